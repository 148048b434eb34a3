#include "pg_store/pg_listener.hpp"

#include "core/log.hpp"
#include "pg_store/pg.hpp"

#include "pg_store/libpq.hpp"

#include <optional>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace agentry::pg_store {
namespace {

// Every topic a process may wake (Transaction::wake, and the writer's "changed").
constexpr const char* every_topic[] = {"changed", "requests", "starts"};

}  // namespace

Listener::Listener(std::string uri, std::string own_tag, OnTopic on_topic)
    : uri_(std::move(uri)), own_tag_(std::move(own_tag)), on_topic_(std::move(on_topic)),
      stop_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  thread_ = std::thread([this] { loop(); });
}

Listener::~Listener() {
  const std::uint64_t one = 1;
  if (::write(stop_fd_, &one, sizeof one) < 0) core::log_warn("cannot stop the PostgreSQL listener");
  if (thread_.joinable()) thread_.join();
  ::close(stop_fd_);
}

void Listener::loop() {
  std::optional<Connection> connection;
  bool lost = false;
  for (;;) {
    if (!connection) {
      auto opened = Connection::open(uri_);
      if (opened) {
        try {
          opened->exec("LISTEN agentry");
          connection.emplace(std::move(*opened));
          // Whatever was sent while nobody listened is lost: look now.
          if (lost)
            for (const char* topic : every_topic) on_topic_(topic);
        } catch (const PgError& e) {
          core::log_warn("cannot listen for other members' wake-ups", {{"error", e.what()}});
        }
      }
      lost = true;
    }
    pollfd fds[2] = {{stop_fd_, POLLIN, 0}, {connection ? libpq::get().PQsocket(connection->native()) : -1, POLLIN, 0}};
    // Without a connection, wait a second before the next try.
    const int ready = ::poll(fds, connection ? 2 : 1, connection ? -1 : 1000);
    if (ready < 0 && errno != EINTR) return;
    if (fds[0].revents & POLLIN) return;
    if (!connection || !(fds[1].revents & (POLLIN | POLLERR | POLLHUP))) continue;
    PGconn* conn = connection->native();
    if (libpq::get().PQconsumeInput(conn) == 0 || libpq::get().PQstatus(conn) != CONNECTION_OK) {
      core::log_warn("lost the connection that listens for other members' wake-ups; opening it again");
      connection.reset();
      continue;
    }
    while (PGnotify* notification = libpq::get().PQnotifies(conn)) {
      const std::string payload = notification->extra ? notification->extra : "";
      libpq::get().PQfreemem(notification);
      const auto space = payload.find(' ');
      const std::string topic = payload.substr(0, space);
      const std::string tag = space == std::string::npos ? std::string() : payload.substr(space + 1);
      if (!topic.empty() && tag != own_tag_) on_topic_(topic);
    }
  }
}

}  // namespace agentry::pg_store
