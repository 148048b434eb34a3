// Our own `codex app-server` child on the runtime's Child: JSON-RPC as JSON lines on its
// stdin/stdout; its stderr (tracing logs) goes to the host log, and its last line into
// the reason the link gives when the child dies.
#include <cstring>
#include <stdexcept>
#include <system_error>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "agentry/plugin_common/runtime/child.hpp"
#include "link.hpp"

namespace agentry::codex {

namespace pc = agentry::plugin_common;
namespace rt = agentry::plugin_common::runtime;

namespace {

constexpr std::size_t kMaxLine = 64u * 1024 * 1024;  // a whole JSON-RPC message
constexpr std::size_t kMaxLogLine = 4096;

// ANSI colour codes out of a log line (codex colours its tracing output).
std::string strip_ansi(const std::string& line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && !(line[i] >= '@' && line[i] <= '~')) ++i;
      continue;
    }
    out.push_back(line[i]);
  }
  return out;
}

class StdioLink final : public Link, public std::enable_shared_from_this<StdioLink> {
 public:
  StdioLink(const boost::asio::any_io_executor& io, int grace_ms, LinkHandlers handlers)
      : io_(io), grace_(grace_ms), handlers_(std::move(handlers)), grace_timer_(io) {}

  void spawn(const StdioLaunch& launch, const std::string& cwd) {
    rt::ChildSpec spec{launch.program, launch.argv, launch.env, cwd};
    spec.max_stdout_line = kMaxLine;
    spec.max_stderr_line = kMaxLogLine;
    const std::weak_ptr<StdioLink> weak = weak_from_this();
    rt::ChildHandlers child_handlers;
    child_handlers.stdout_line = [weak](pc::Line line) {
      if (auto self = weak.lock()) self->on_line(std::move(line));
    };
    child_handlers.stderr_line = [weak](const pc::Line& line) {
      if (auto self = weak.lock()) self->on_log(strip_ansi(line.text));
    };
    child_handlers.exited = [weak](pc::WaitStatus status) {
      if (auto self = weak.lock()) self->on_exit(status);
    };
    try {
      child_ = rt::Child::spawn(io_, std::move(spec), std::move(child_handlers));
    } catch (const std::system_error& e) {
      throw std::runtime_error("cannot start '" + launch.program + "': " + std::strerror(e.code().value()));
    }
    // Posted, so that the session holds the link before it hears from it.
    boost::asio::post(io_, [weak] {
      if (auto self = weak.lock(); self && self->handlers_.ready) self->handlers_.ready();
    });
  }

  void send(std::string message) override {
    if (closing_ || exited_) return;
    message.push_back('\n');
    if (child_->write(std::move(message)) || write_failed_) return;
    write_failed_ = true;  // the exit, when it comes, tells why
    if (handlers_.log) handlers_.log("codex app-server does not read its stdin; messages to it are dropped");
  }

  void close() override {
    if (closing_) return;
    closing_ = true;
    rt::wind_down(child_, grace_timer_, grace_);
  }

  void abandon() noexcept override {
    handlers_ = {};
    grace_timer_.cancel();
    child_->forget_handlers();
    child_->kill();
  }

 private:
  void on_line(pc::Line line) {
    if (line.dropped > 0) {
      last_words_ = "(a protocol line of " + std::to_string(line.text.size() + line.dropped) + " bytes was dropped)";
      return;
    }
    if (handlers_.message) handlers_.message(std::move(line.text));
  }

  void on_log(std::string line) {
    if (line.empty()) return;
    last_words_ = line;
    if (handlers_.log) handlers_.log(std::move(line));
  }

  void on_exit(pc::WaitStatus status) {
    exited_ = true;
    grace_timer_.cancel();
    std::string reason = "codex app-server ";
    if (status.exit_code)
      reason += "exited with code " + std::to_string(*status.exit_code);
    else if (status.signal)
      reason += "was killed by signal " + std::to_string(*status.signal);
    else
      reason += "ended";
    if (!last_words_.empty()) reason += ": " + last_words_;
    if (handlers_.closed) handlers_.closed(std::move(reason));
  }

  boost::asio::any_io_executor io_;
  const std::chrono::milliseconds grace_;
  LinkHandlers handlers_;
  boost::asio::steady_timer grace_timer_;  // stdin EOF -> SIGTERM
  std::shared_ptr<rt::Child> child_;
  std::string last_words_;  // the last stderr line, for the reason of a death
  bool closing_ = false, exited_ = false, write_failed_ = false;
};

}  // namespace

std::shared_ptr<Link> open_stdio(const boost::asio::any_io_executor& io, const StdioLaunch& launch, const std::string& cwd,
                                 int shutdown_grace_ms, LinkHandlers handlers) {
  auto link = std::make_shared<StdioLink>(io, shutdown_grace_ms, std::move(handlers));
  link->spawn(launch, cwd);
  return link;
}

}  // namespace agentry::codex
