// One attempt of the browser backend, on the instance's executor: a coroutine starts
// Chromium, plays the script or runs the model loop (model_loop.hpp), and always takes
// Chromium down before its terminal FINISHED. Interrupts are posted onto the executor.
#pragma once

#include <agentry/plugin/cpp/backend.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "agentry/plugin_common/runtime/event_sink.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "agentry/plugin_common/runtime/http.hpp"
#include "agentry/plugin_common/runtime/wakeup.hpp"
#include "browser/actions.hpp"
#include "browser/cdp_pipe.hpp"
#include "browser/model_loop.hpp"
#include "browser/settings.hpp"

namespace agentry::browser {

struct StepFailure {
  std::string message;
};

class Attempt : public std::enable_shared_from_this<Attempt> {
 public:
  // [control] Starts the attempt's coroutine on `executor`.
  static std::shared_ptr<Attempt> start(plugin::Host& host, plugin_common::runtime::Executor& executor,
                                        plugin::StartParams params);
  Attempt(const Attempt&) = delete;
  Attempt& operator=(const Attempt&) = delete;

  bool finishing() const noexcept { return finishing_.load(); }
  void interrupt(std::string_view reason);  // [control] posted: kills Chromium's group at once
  void wait_finished();                     // [control] until FINISHED is out (destroy, obligation 10)

  // [executor] The handlers the action table names (page_actions.cpp); run through act().
  using Text = boost::asio::awaitable<std::string>;
  Text navigate(ActionCall& call);
  Text click(ActionCall& call);
  Text type_text(ActionCall& call);
  Text press(ActionCall& call);
  Text scroll(ActionCall& call);
  Text read_page(ActionCall& call);
  Text screenshot(ActionCall& call);
  Text back(ActionCall& call);
  Text wait_for(ActionCall& call);
  Text download(ActionCall& call);

 private:
  using Clock = std::chrono::steady_clock;
  using Outcome = std::pair<std::string, std::string>;  // outcome, message
  template <class T>
  using Task = boost::asio::awaitable<T>;

  Attempt(plugin::Host& host, plugin_common::runtime::Executor& executor, plugin::StartParams params);
  Task<void> run();
  Task<Outcome> play();
  Task<Outcome> play_script();
  // One action with its TOOL_STARTED/TOOL_COMPLETED events (script and model mode alike).
  Task<ToolOutcome> run_tool(const Step& step, std::size_t index, const std::string& call_id);
  Task<void> start_browser();
  void emit(uint16_t type, const boost::json::object& payload, uint32_t flags = 0);
  void notice(const std::string& level, const std::string& message);
  void unavailable(const std::string& reason);
  bool frames_allowed() const;
  void on_event(const std::string& method, const boost::json::object& params, const std::string& session);

  // The step's action from the table (actions.hpp): the tool output text; throws StepFailure.
  Task<std::string> act(const Step& step, std::size_t index, boost::json::object& result);
  // Page helpers of the handlers.
  Task<boost::json::object> page_state(Clock::time_point deadline);
  Task<boost::json::value> eval(const std::string& expression, Clock::time_point deadline);
  Task<CdpReply> page_call(const std::string& method, boost::json::object params, Clock::time_point deadline);
  Task<void> wait_navigation(uint64_t generation_before, Clock::time_point deadline, bool must_start);
  Task<boost::json::object> locate(const Step& step, Clock::time_point deadline);
  Task<void> mouse_click(double x, double y, Clock::time_point deadline);
  std::string artifacts_dir();
  bool gone() const { return !chromium_ || chromium_->exited(); }

  plugin::Host& host_;
  plugin_common::runtime::Executor& executor_;
  const plugin::StartParams params_;
  plugin_common::runtime::EventSink sink_;
  Settings settings_;
  std::shared_ptr<Chromium> chromium_;
  std::shared_ptr<plugin_common::runtime::HttpCall> model_call_;  // the one in flight, for an interrupt
  std::string session_;     // the page's flattened DevTools session
  std::string main_frame_;
  plugin_common::runtime::Wakeup changed_;  // the page's loads, a download's progress, a frame, an interrupt

  uint64_t nav_started_ = 0;  // main-frame loads started
  uint64_t nav_stopped_ = 0;  // main-frame loads stopped
  std::string url_;
  struct Download {
    std::string guid, filename, state;
  };
  std::optional<Download> download_;
  Clock::time_point last_frame_{};     // the last frame emitted
  Clock::time_point last_received_{};  // the last frame Chromium sent
  std::string received_url_;           // the page it showed
  std::optional<boost::json::object> held_frame_;  // throttled: sent at the next step's end
  void flush_frame();  // emits the held frame, if any
  Task<void> settle_frames();  // at the end: lets the last paint arrive, then flushes

  bool interrupted_ = false;
  std::string reason_;
  std::atomic<bool> finishing_{false};
  std::promise<void> finished_;
  uint64_t ids_ = 0;
  bool model_mode_ = false;  // read answers the page text to the model instead of a message
};

}  // namespace agentry::browser
