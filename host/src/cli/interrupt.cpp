#include "cli/interrupt.hpp"

#include "cli/exit_codes.hpp"

#include <atomic>
#include <csignal>

#include <unistd.h>

namespace agentry::cli {
namespace {

std::atomic<int> signals_seen{0};
struct sigaction previous_int;
struct sigaction previous_term;

extern "C" void on_signal(int) {
  if (signals_seen.fetch_add(1) >= 1) {
    static const char message[] = "\nagentry: interrupted again; exiting without waiting\n";
    (void)!::write(STDERR_FILENO, message, sizeof message - 1);
    ::_exit(exit_code::cancelled);
  }
}

}  // namespace

InterruptGuard::InterruptGuard() {
  signals_seen = 0;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  ::sigaction(SIGINT, &action, &previous_int);
  ::sigaction(SIGTERM, &action, &previous_term);
}

InterruptGuard::~InterruptGuard() {
  ::sigaction(SIGINT, &previous_int, nullptr);
  ::sigaction(SIGTERM, &previous_term, nullptr);
}

bool InterruptGuard::interrupted() { return signals_seen.load() > 0; }

void InterruptGuard::simulate() { signals_seen.fetch_add(1); }

}  // namespace agentry::cli
