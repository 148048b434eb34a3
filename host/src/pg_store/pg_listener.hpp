#pragma once
// Wake-ups from the other processes on the database (store::Store::set_wakeup_listener):
// one connection of its own that LISTENs on agentry's channel, on a thread that waits on
// its socket (and on an eventfd that stops it), handing each topic other processes sent
// to the callback. Only a hint: a connection lost is opened again a second later, and
// since what was sent meanwhile is lost, every topic is then reported once, for whoever
// polls to look now.

#include <functional>
#include <string>
#include <thread>

namespace agentry::pg_store {

class Listener {
 public:
  using OnTopic = std::function<void(const std::string& topic)>;

  /// `own_tag` marks this process's own notifications (Connection::set_wake_tag), which
  /// are not reported.
  Listener(std::string uri, std::string own_tag, OnTopic on_topic);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

 private:
  void loop();

  const std::string uri_;
  const std::string own_tag_;
  OnTopic on_topic_;
  int stop_fd_ = -1;
  std::thread thread_;
};

}  // namespace agentry::pg_store
