#include "browser/cdp_pipe.hpp"

#include <dirent.h>
#include <fcntl.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <system_error>

#include "agentry/plugin_common/child_process.hpp"

namespace agentry::browser {
namespace asio = boost::asio;
namespace json = boost::json;
namespace pc = agentry::plugin_common;
namespace rt = agentry::plugin_common::runtime;

namespace {

constexpr auto kAwait = asio::as_tuple(asio::use_awaitable);
constexpr const char* kGone = "Chromium is gone (the DevTools pipe is closed)";

// A close-on-exec copy of `fd` numbered 10 or above, so dup2 onto 3 and 4 never collides.
pc::Fd high_copy(int fd) {
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
  if (copy < 0) throw std::system_error(errno, std::generic_category(), "fcntl(F_DUPFD_CLOEXEC)");
  return pc::Fd(copy);
}

// Whether a process of group `pgid` is still alive (zombies do not count): SIGKILL is
// delivered at once but a process takes a moment to die, and "no Chromium outlives its
// attempt" means gone, not signalled. /proc/<pid>/stat: "pid (comm) state ppid pgrp ...".
bool group_alive(pid_t pgid) {
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return false;
  bool alive = false;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    if (!std::getline(in, line)) continue;
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3) continue;
    if (pgrp == pgid && state != 'Z' && state != 'X') {
      alive = true;
      break;
    }
  }
  ::closedir(dir);
  return alive;
}

}  // namespace

Chromium::Chromium(const asio::any_io_executor& io, CdpHandlers handlers)
    : io_(io), handlers_(std::move(handlers)), to_browser_(io), from_browser_(io) {}

std::shared_ptr<Chromium> Chromium::start(const asio::any_io_executor& io, const std::string& program,
                                          const std::vector<std::string>& args, const std::vector<std::string>& env,
                                          const std::string& stderr_path, CdpHandlers handlers) {
  std::shared_ptr<Chromium> chromium(new Chromium(io, std::move(handlers)));
  pc::Pipe commands = pc::make_pipe();  // we write, Chromium reads on its fd 3
  pc::Pipe output = pc::make_pipe();    // Chromium writes on its fd 4, we read
  pc::Fd child_in = high_copy(commands.read.get());
  pc::Fd child_out = high_copy(output.write.get());
  commands.read = pc::Fd();
  output.write = pc::Fd();
  rt::ChildSpec spec;
  spec.program = program;
  spec.argv = {program};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = env;
  spec.output_file = stderr_path;
  spec.more_fds = {{child_in.get(), 3}, {child_out.get(), 4}};
  rt::ChildHandlers on;
  on.exited = [weak = std::weak_ptr<Chromium>(chromium)](pc::WaitStatus) {
    auto self = weak.lock();
    if (!self) return;
    self->child_exited_ = true;
    if (self->exit_waiter_) self->exit_waiter_->cancel();
    if (self->handlers_.gone) self->handlers_.gone();
  };
  chromium->child_ = rt::Child::spawn(io, std::move(spec), std::move(on));  // throws with the spawn errno
  // The child's ends close here (child_in, child_out), so EOF on fd 4 means the group is gone.
  chromium->to_browser_.assign(commands.write.release());
  chromium->from_browser_.assign(output.read.release());
  chromium->read_next();
  return chromium;
}

Chromium::~Chromium() { kill_now(); }

void Chromium::read_next() {
  chunk_.resize(64 * 1024);
  from_browser_.async_read_some(asio::buffer(chunk_), [self = shared_from_this()](boost::system::error_code ec,
                                                                                  std::size_t n) {
    if (ec) return self->closed();
    self->inbox_.append(self->chunk_.data(), n);
    std::size_t start = 0;
    for (std::size_t nul; (nul = self->inbox_.find('\0', start)) != std::string::npos; start = nul + 1)
      self->dispatch(std::string_view(self->inbox_).substr(start, nul - start));
    self->inbox_.erase(0, start);
    self->read_next();
  });
}

void Chromium::dispatch(std::string_view text) {
  json::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return;
  json::object& m = v.get_object();
  if (const json::value* id = m.if_contains("id"); id && id->is_number()) {
    const auto it = pending_.find(id->to_number<uint64_t>());
    if (it == pending_.end()) return;  // a send()'s reply, or a call that gave up
    CdpReply& reply = it->second->reply.emplace();
    if (const json::value* r = m.if_contains("result"); r && r->is_object()) reply.ok = true, reply.result = r->get_object();
    else if (const json::value* e = m.if_contains("error"); e && e->is_object()) {
      const json::value* msg = e->get_object().if_contains("message");
      reply.error = msg && msg->is_string() ? std::string(msg->get_string()) : json::serialize(*e);
    } else reply.ok = true;
    it->second->timer.cancel();
  } else if (const json::value* method = m.if_contains("method"); method && method->is_string()) {
    const json::value* params = m.if_contains("params");
    const json::value* session = m.if_contains("sessionId");
    if (handlers_.event)
      handlers_.event(std::string(method->get_string()), params && params->is_object() ? params->get_object() : json::object(),
                      session && session->is_string() ? std::string(session->get_string()) : std::string());
  }
}

void Chromium::closed() {
  if (eof_) return;
  eof_ = true;
  for (auto& [id, pending] : pending_) pending->timer.cancel();
  if (handlers_.gone) handlers_.gone();
}

bool Chromium::write(std::string message) {
  if (write_failed_ || !to_browser_.is_open()) return false;
  message.push_back('\0');
  outbox_.push_back(std::move(message));
  if (outbox_.size() == 1) write_next();
  return true;
}

void Chromium::write_next() {
  asio::async_write(to_browser_, asio::buffer(outbox_.front()), [self = shared_from_this()](boost::system::error_code ec,
                                                                                              std::size_t) {
    self->outbox_.pop_front();
    if (ec) {  // Chromium stopped reading (EPIPE): the read side reports the end
      self->write_failed_ = true;
      self->outbox_.clear();
      return;
    }
    if (!self->outbox_.empty()) self->write_next();
  });
}

void Chromium::send(const std::string& method, json::object params, const std::string& session) {
  json::object m{{"id", next_id_++}, {"method", method}, {"params", std::move(params)}};
  if (!session.empty()) m["sessionId"] = session;
  write(json::serialize(m));
}

asio::awaitable<CdpReply> Chromium::call(const std::string& method, json::object params, const std::string& session,
                                         std::chrono::milliseconds timeout) {
  auto self = shared_from_this();
  const uint64_t id = next_id_++;
  json::object m{{"id", id}, {"method", method}, {"params", std::move(params)}};
  if (!session.empty()) m["sessionId"] = session;
  CdpReply out;
  if (eof_ || !write(json::serialize(m))) {
    out.error = kGone;
    co_return out;
  }
  Pending pending{asio::steady_timer(io_, timeout), std::nullopt};
  pending_[id] = &pending;
  co_await pending.timer.async_wait(kAwait);
  pending_.erase(id);
  if (pending.reply) co_return std::move(*pending.reply);
  out.error = eof_ ? kGone : method + " timed out after " + std::to_string(timeout.count()) + " ms";
  co_return out;
}

void Chromium::kill_now() noexcept {
  if (child_) child_->kill();
}

asio::awaitable<bool> Chromium::wait_exit(std::chrono::milliseconds timeout) {
  if (child_exited_) co_return true;
  asio::steady_timer timer(io_, timeout);
  exit_waiter_ = &timer;
  co_await timer.async_wait(kAwait);
  exit_waiter_ = nullptr;
  co_return child_exited_;
}

asio::awaitable<void> Chromium::close(std::chrono::milliseconds grace) {
  auto self = shared_from_this();
  if (grace.count() > 0 && !eof_) send("Browser.close", {}, "");
  if (!co_await wait_exit(grace)) {
    kill_now();
    co_await wait_exit(std::chrono::seconds(10));
  }
  const pid_t group = child_->pid();
  asio::steady_timer pause(io_);
  for (int i = 0; i < 200 && group_alive(group); ++i) {
    pause.expires_after(std::chrono::milliseconds(10));
    co_await pause.async_wait(kAwait);
  }
  boost::system::error_code ignored;
  to_browser_.close(ignored);
  from_browser_.close(ignored);
  handlers_ = {};
}

}  // namespace agentry::browser
