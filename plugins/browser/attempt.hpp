// One attempt of the browser backend: a worker thread that starts Chromium, plays the
// script or runs the model loop (model_loop.hpp), and always takes Chromium down before
// its terminal FINISHED.
#pragma once

#include <agentry/plugin/cpp/backend.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "browser/actions.hpp"
#include "browser/cdp_pipe.hpp"
#include "browser/model_loop.hpp"
#include "browser/settings.hpp"

namespace agentry::browser {

struct StepFailure {
  std::string message;
};

class Attempt {
 public:
  Attempt(plugin::Host& host, plugin::StartParams params);
  ~Attempt();  // interrupts and joins (obligation 10)
  Attempt(const Attempt&) = delete;
  Attempt& operator=(const Attempt&) = delete;

  void launch();
  bool finishing() const noexcept { return finishing_.load(); }
  void interrupt(std::string_view reason);  // [control] kills Chromium's group at once

  // [worker] The handlers the action table names (page_actions.cpp); run through act().
  std::string navigate(ActionCall& call);
  std::string click(ActionCall& call);
  std::string type_text(ActionCall& call);
  std::string press(ActionCall& call);
  std::string scroll(ActionCall& call);
  std::string read_page(ActionCall& call);
  std::string screenshot(ActionCall& call);
  std::string back(ActionCall& call);
  std::string wait_for(ActionCall& call);
  std::string download(ActionCall& call);

 private:
  using Clock = std::chrono::steady_clock;
  void run() noexcept;
  std::pair<std::string, std::string> play();  // outcome, message
  std::pair<std::string, std::string> play_script();
  // One action with its TOOL_STARTED/TOOL_COMPLETED events (script and model mode alike).
  ToolOutcome run_tool(const Step& step, std::size_t index, const std::string& call_id);
  void start_browser();
  void emit(uint16_t type, const boost::json::object& payload, uint32_t flags = 0);
  void notice(const std::string& level, const std::string& message);
  void unavailable(const std::string& reason);
  bool frames_allowed() const;
  void on_event(const std::string& method, const boost::json::object& params, const std::string& session);

  // The step's action from the table (actions.hpp): the tool output text; throws StepFailure.
  std::string act(const Step& step, std::size_t index, boost::json::object& result);
  // Page helpers of the handlers.
  uint64_t navigations_started();
  boost::json::object page_state(Clock::time_point deadline);
  boost::json::value eval(const std::string& expression, Clock::time_point deadline);
  CdpReply page_call(const std::string& method, boost::json::object params, Clock::time_point deadline);
  void wait_navigation(uint64_t generation_before, Clock::time_point deadline, bool must_start);
  boost::json::object locate(const Step& step, Clock::time_point deadline);
  void mouse_click(double x, double y, Clock::time_point deadline);
  std::string artifacts_dir();

  plugin::Host& host_;
  const plugin::StartParams params_;
  Settings settings_;
  std::unique_ptr<Chromium> chromium_;
  std::string session_;     // the page's flattened DevTools session
  std::string main_frame_;

  std::mutex mutex_;
  std::condition_variable changed_;
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
  void settle_frames();  // at the end: lets the last paint arrive, then flushes

  std::atomic<bool> interrupted_{false};
  std::string reason_;
  std::atomic<bool> finishing_{false};
  uint64_t ids_ = 0;
  bool model_mode_ = false;  // read answers the page text to the model instead of a message
  std::thread worker_;
};

}  // namespace agentry::browser
