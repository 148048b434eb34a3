#include "browser/attempt.hpp"

#include <sys/stat.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "agentry/plugin_common/environment.hpp"
#include "agentry/plugin_common/json_fields.hpp"
#include "browser/page_scripts.hpp"

namespace agentry::browser {
namespace asio = boost::asio;
namespace json = boost::json;
namespace rt = plugin_common::runtime;
using plugin_common::text_field;
namespace fs = std::filesystem;
using namespace page_scripts;

namespace {

constexpr auto kStartupTimeout = std::chrono::seconds(30);

std::string tail_of_file(const std::string& path, std::size_t max) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() > max) text = text.substr(text.size() - max);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

Attempt::Attempt(plugin::Host& host, rt::Executor& executor, plugin::StartParams params)
    : host_(host), executor_(executor), params_(std::move(params)), sink_(host, "browser"), changed_(executor.get_executor()) {}

std::shared_ptr<Attempt> Attempt::start(plugin::Host& host, rt::Executor& executor, plugin::StartParams params) {
  std::shared_ptr<Attempt> attempt(new Attempt(host, executor, std::move(params)));
  asio::co_spawn(executor.get_executor(), attempt->run(), [attempt](std::exception_ptr) { attempt->finished_.set_value(); });
  return attempt;
}

void Attempt::wait_finished() { finished_.get_future().wait(); }

void Attempt::interrupt(std::string_view reason) {
  executor_.post([self = shared_from_this(), reason = std::string(reason)] {
    if (self->interrupted_) return;
    self->reason_ = reason;
    self->interrupted_ = true;
    if (self->chromium_) self->chromium_->kill_now();  // at once: close() reaps it
    if (self->model_call_) self->model_call_->cancel();
    self->changed_.notify();
  });
}

void Attempt::emit(uint16_t type, const json::object& payload, uint32_t flags) { sink_.emit({type, flags, payload}); }

void Attempt::notice(const std::string& level, const std::string& message) { sink_.notice(level, message); }

bool Attempt::frames_allowed() const {
  const agentry_version_t v = host_.raw()->abi_version;
  return settings_.live_view && (v.major > 1 || (v.major == 1 && v.minor >= 2));
}

void Attempt::unavailable(const std::string& reason) {
  if (frames_allowed())
    emit(AGENTRY_EVENT_BROWSER_FRAME, {{"status", "unavailable"}, {"reason", reason}}, AGENTRY_EVENT_FLAG_EPHEMERAL);
}

asio::awaitable<void> Attempt::run() {
  Outcome finish{"error", "internal error in the browser backend"};
  try {
    finish = co_await play();
  } catch (const std::exception& e) {
    finish.second += std::string(": ") + e.what();
  } catch (...) {
  }
  try {
    co_await settle_frames();
  } catch (...) {
  }
  // Before FINISHED: no Chromium outlives its attempt. A clean close flushes cookies.
  if (auto chromium = std::move(chromium_)) {
    try {
      co_await chromium->close(interrupted_ ? std::chrono::milliseconds(0) : std::chrono::milliseconds(5000));
    } catch (...) {
      chromium->kill_now();
    }
  }
  if (interrupted_ && finish.first != "error") finish = {"interrupted", reason_};
  finishing_ = true;
  sink_.finish(finish.first, finish.second, std::nullopt);
}

asio::awaitable<void> Attempt::start_browser() {
  const auto resolved = plugin_common::resolve_program(settings_.chromium, settings_.env, params_.workspace_path);
  const std::string install = "; install Chromium (apt-get install chromium) or name its binary in "
                              "backendConfig.browser.chromium or AGENTRY_CHROMIUM";
  if (!resolved.error.empty()) throw StepFailure{"cannot start Chromium '" + settings_.chromium + "': " + resolved.error + install};
  std::error_code ec;
  fs::create_directories(settings_.profile_dir, ec);
  if (ec) throw StepFailure{"cannot create the browser profile directory " + settings_.profile_dir + ": " + ec.message()};
  ::chmod(settings_.profile_dir.c_str(), 0700);
  std::vector<std::string> args = {
      "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
      "--remote-debugging-pipe", "--user-data-dir=" + settings_.profile_dir, "--disable-dev-shm-usage",
      "--disable-back-forward-cache", "--window-size=1280,800", "--mute-audio", "--hide-scrollbars"};
  args.insert(args.end(), settings_.extra_args.begin(), settings_.extra_args.end());
  args.push_back("about:blank");
  const std::string log = settings_.profile_dir + "/chromium-stderr.log";
  if (interrupted_) co_return;
  try {
    // The attempt outlives its Chromium (run() closes it), so `this` is safe in the handlers.
    chromium_ = Chromium::start(executor_.get_executor(), resolved.path, args, settings_.env, log,
                                CdpHandlers{[this](const std::string& m, const json::object& p, const std::string& s) {
                                              on_event(m, p, s);
                                            },
                                            [this] { changed_.notify(); }});
  } catch (const std::system_error& e) {
    throw StepFailure{"cannot start Chromium '" + resolved.path + "': " + e.code().message() + install};
  }
  const auto fail_start = [&](const std::string& what) {
    std::string why = "Chromium ('" + resolved.path + "') did not start: " + what;
    if (auto tail = tail_of_file(log, 600); !tail.empty()) why += "; its last output: " + tail;
    throw StepFailure{why};
  };
  CdpReply targets = co_await chromium_->call("Target.getTargets", {}, "", kStartupTimeout);
  if (!targets.ok) fail_start(targets.error);
  std::string target;
  if (const json::value* infos = targets.result.if_contains("targetInfos"); infos && infos->is_array())
    for (const auto& t : infos->get_array())
      if (t.is_object() && text_field(t.get_object(), "type") == "page") target = text_field(t.get_object(), "targetId");
  if (target.empty()) {
    json::object blank{{"url", "about:blank"}};  // GCC 12: no braced lists inside a co_await
    CdpReply created = co_await chromium_->call("Target.createTarget", std::move(blank), "", kStartupTimeout);
    if (!created.ok) fail_start(created.error);
    target = text_field(created.result, "targetId");
  }
  json::object attach{{"targetId", target}, {"flatten", true}};
  CdpReply attached = co_await chromium_->call("Target.attachToTarget", std::move(attach), "", kStartupTimeout);
  if (!attached.ok) fail_start(attached.error);
  session_ = text_field(attached.result, "sessionId");
  for (const char* m : {"Page.enable"}) {
    CdpReply r = co_await chromium_->call(m, {}, session_, kStartupTimeout);
    if (!r.ok) fail_start(std::string(m) + ": " + r.error);
  }
  CdpReply tree = co_await chromium_->call("Page.getFrameTree", {}, session_, kStartupTimeout);
  if (tree.ok)
    if (const json::value* ft = tree.result.if_contains("frameTree"); ft && ft->is_object())
      if (const json::value* f = ft->get_object().if_contains("frame"); f && f->is_object()) {
        main_frame_ = text_field(f->get_object(), "id");
        url_ = text_field(f->get_object(), "url");
      }
  if (frames_allowed()) {
    json::object screencast{{"format", "jpeg"}, {"quality", 60}, {"maxWidth", 1280}, {"maxHeight", 800}};
    co_await chromium_->call("Page.startScreencast", std::move(screencast), session_, kStartupTimeout);
  }
}

void Attempt::on_event(const std::string& method, const json::object& p, const std::string& session) {
  if (method == "Page.frameStartedLoading" || method == "Page.frameStoppedLoading") {
    if (text_field(p, "frameId") != main_frame_) return;
    (method == "Page.frameStartedLoading" ? nav_started_ : nav_stopped_)++;
    changed_.notify();
  } else if (method == "Page.frameNavigated") {
    if (const json::value* f = p.if_contains("frame"); f && f->is_object() && !f->get_object().contains("parentId"))
      url_ = text_field(f->get_object(), "url");
  } else if (method == "Browser.downloadWillBegin") {
    download_ = Download{text_field(p, "guid"), text_field(p, "suggestedFilename"), "inProgress"};
    changed_.notify();
  } else if (method == "Browser.downloadProgress") {
    if (download_ && download_->guid == text_field(p, "guid")) download_->state = text_field(p, "state");
    changed_.notify();
  } else if (method == "Page.screencastFrame") {
    const json::value* sid = p.if_contains("sessionId");
    if (sid && chromium_) chromium_->send("Page.screencastFrameAck", {{"sessionId", *sid}}, session);
    const auto now = Clock::now();
    last_received_ = now;
    received_url_ = url_;
    const bool throttled = now - last_frame_ < std::chrono::milliseconds(250);  // at most 4 frames/s
    if (!throttled) last_frame_ = now, held_frame_.reset();
    const std::string url = url_;
    changed_.notify();
    double w = 0, h = 0;
    if (const json::value* md = p.if_contains("metadata"); md && md->is_object()) {
      const auto num = [&](const char* k) {
        const json::value* v = md->get_object().if_contains(k);
        return v && v->is_number() ? v->to_number<double>() : 0.0;
      };
      w = num("deviceWidth"), h = num("deviceHeight");
      const double scale = std::min({1.0, w > 0 ? 1280 / w : 1.0, h > 0 ? 800 / h : 1.0});
      w = std::round(w * scale), h = std::round(h * scale);
    }
    json::object frame{{"mime", "image/jpeg"}, {"data", text_field(p, "data")}, {"width", static_cast<int64_t>(w)},
                       {"height", static_cast<int64_t>(h)}, {"url", url}};
    if (throttled) {
      // Kept, not dropped: the page's last state must reach the viewer even when it was
      // painted right after another frame.
      held_frame_ = std::move(frame);
      return;
    }
    emit(AGENTRY_EVENT_BROWSER_FRAME, frame, AGENTRY_EVENT_FLAG_EPHEMERAL);
  }
}

void Attempt::flush_frame() {
  std::optional<json::object> frame;
  frame.swap(held_frame_);
  if (!frame) return;
  last_frame_ = Clock::now();
  emit(AGENTRY_EVENT_BROWSER_FRAME, *frame, AGENTRY_EVENT_FLAG_EPHEMERAL);
}

asio::awaitable<void> Attempt::settle_frames() {
  if (!frames_allowed() || interrupted_) co_return;
  // A paint the last action caused may still be on its way (the first one too: Chromium
  // can take a while to send its first frame). Wait at least 200 ms, then until a frame
  // of the page now shown has come and the page has been quiet for 150 ms; at most 1 s.
  const auto begun = Clock::now();
  for (;;) {
    const auto now = Clock::now();
    const bool settled = last_received_ != Clock::time_point{} && now - begun >= std::chrono::milliseconds(200) &&
                         received_url_ == url_ && now - last_received_ >= std::chrono::milliseconds(150);
    if (settled || interrupted_ || now - begun >= std::chrono::seconds(1)) break;
    co_await changed_.wait_until(now + std::chrono::milliseconds(50));
  }
  flush_frame();
}

asio::awaitable<CdpReply> Attempt::page_call(const std::string& method, json::object params, Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (left.count() <= 0) throw StepFailure{"timed out"};
  if (!chromium_) throw StepFailure{method + ": Chromium is gone (the DevTools pipe is closed)"};
  CdpReply r = co_await chromium_->call(method, std::move(params), session_, left);
  if (!r.ok) throw StepFailure{method + ": " + r.error};
  co_return r;
}

asio::awaitable<json::value> Attempt::eval(const std::string& expression, Clock::time_point deadline) {
  json::object params{{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}};
  CdpReply r = co_await page_call("Runtime.evaluate", std::move(params), deadline);
  if (const json::value* ex = r.result.if_contains("exceptionDetails"); ex && ex->is_object()) {
    std::string text = text_field(ex->get_object(), "text");
    if (const json::value* e = ex->get_object().if_contains("exception"); e && e->is_object())
      if (auto d = text_field(e->get_object(), "description"); !d.empty()) text = d;
    throw StepFailure{"page script failed: " + text};
  }
  if (const json::value* res = r.result.if_contains("result"); res && res->is_object())
    if (const json::value* v = res->get_object().if_contains("value")) co_return *v;
  co_return nullptr;
}

asio::awaitable<void> Attempt::wait_navigation(uint64_t before, Clock::time_point deadline, bool must_start) {
  // A click or a key may or may not navigate: give it a moment to begin.
  const auto start_by = must_start ? deadline : std::min(deadline, Clock::now() + std::chrono::milliseconds(200));
  while (!(interrupted_ || nav_started_ > before || gone()) && Clock::now() < start_by)
    co_await changed_.wait_until(start_by);
  if (nav_started_ == before) co_return;
  const auto done = [&] { return interrupted_ || gone() || nav_stopped_ >= nav_started_; };
  while (!done() && Clock::now() < deadline) co_await changed_.wait_until(deadline);
  if (!done()) throw StepFailure{"the page did not finish loading in time"};
}

asio::awaitable<json::object> Attempt::locate(const Step& s, Clock::time_point deadline) {
  json::object a;
  if (s.args.contains("ref")) a["ref"] = s.args.at("ref");
  else a["selector"] = s.args.at("selector");
  json::value v = co_await eval(call_js(kLocate, a), deadline);
  if (!v.is_object()) throw StepFailure{"cannot find the element"};
  if (auto e = text_field(v.get_object(), "error"); !e.empty()) throw StepFailure{e};
  co_return v.get_object();
}

asio::awaitable<void> Attempt::mouse_click(double x, double y, Clock::time_point deadline) {
  for (const char* type : {"mouseMoved", "mousePressed", "mouseReleased"}) {
    json::object event{{"type", type}, {"x", x}, {"y", y}};
    if (std::string_view(type) != "mouseMoved") event["button"] = "left", event["clickCount"] = 1;
    co_await page_call("Input.dispatchMouseEvent", std::move(event), deadline);
  }
}

std::string Attempt::artifacts_dir() {
  const fs::path dir = fs::path(params_.workspace_path) / "browser-artifacts";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw StepFailure{"cannot create " + dir.string() + ": " + ec.message()};
  return dir.string();
}

asio::awaitable<std::string> Attempt::act(const Step& s, std::size_t index, json::object& result) {
  const Action* action = find_action(s.action);
  if (action == nullptr || action->run == nullptr) throw StepFailure{"unknown action"};
  ActionCall call{s, index, Clock::now() + settings_.action_timeout, result};
  co_return co_await (this->*(action->run))(call);
}

asio::awaitable<json::object> Attempt::page_state(Clock::time_point deadline) {
  json::value v = co_await eval("({title: document.title, url: location.href})", deadline);
  co_return v.is_object() ? v.get_object() : json::object();
}

asio::awaitable<Attempt::Outcome> Attempt::play() {
  settings_ = read_settings(params_);
  if (!settings_.error.empty()) {
    notice("error", settings_.error);
    co_return Outcome{"error", settings_.error};
  }
  emit(AGENTRY_EVENT_CHECKPOINT, {{"resumeToken", "browser-" + params_.run_id}});
  if (params_.resume_token) notice("info", "resumed with the browser profile " + settings_.profile_dir);
  std::optional<StepFailure> failed;
  try {
    co_await start_browser();
  } catch (const StepFailure& f) {
    failed = f;
  }
  if (failed) {
    if (interrupted_) co_return Outcome{"interrupted", ""};
    unavailable(failed->message);
    notice("error", failed->message);
    co_return Outcome{"error", failed->message};
  }
  if (!settings_.model) co_return co_await play_script();
  model_mode_ = true;
  const LoopHost loop_host{
      executor_.get_executor(), model_call_,
      [this](const Step& s, std::size_t index, const std::string& id) { return run_tool(s, index, id); },
      [this](uint16_t type, const json::object& payload) { emit(type, payload); },
      [this] { return interrupted_; }};
  // Named, not a braced temporary: GCC 12 destroys an aggregate temporary in a co_await's
  // operand twice (its strings were freed twice once the model loop returned).
  const LoopInput input{*settings_.model, settings_.prompt, settings_.profile_dir + "/conversation.json",
                        params_.resume_token.has_value(), params_.attempt_number};
  co_return co_await run_model_loop(input, loop_host);
}

asio::awaitable<Attempt::Outcome> Attempt::play_script() {
  for (std::size_t i = 0; i < settings_.steps.size(); ++i) {
    if (interrupted_) co_return Outcome{"interrupted", ""};
    const Step& s = settings_.steps[i];
    if (s.action == "finish") {
      emit(AGENTRY_EVENT_MESSAGE_COMPLETED, {{"text", text_field(s.args, "summary")}, {"itemId", "finish-" + std::to_string(params_.attempt_number)}, {"role", "assistant"}});
      co_return Outcome{"success", ""};
    }
    const std::string id = "browser-" + std::to_string(params_.attempt_number) + "-" + std::to_string(++ids_);
    const ToolOutcome outcome = co_await run_tool(s, i + 1, id);
    if (!outcome.ok) {
      if (interrupted_) co_return Outcome{"interrupted", ""};
      std::string message = "step " + std::to_string(i + 1) + " (" + command_of(s) + ") failed: " + outcome.output;
      notice("error", message);
      co_return Outcome{"error", message};
    }
  }
  co_return Outcome{"success", ""};
}

asio::awaitable<ToolOutcome> Attempt::run_tool(const Step& s, std::size_t index, const std::string& id) {
  json::object input = s.args;
  input["action"] = s.action;
  emit(AGENTRY_EVENT_TOOL_STARTED, {{"toolCallId", id}, {"tool", "browser"}, {"command", command_of(s)}, {"input", input}});
  json::object result;
  ToolOutcome outcome;
  try {
    outcome.output = co_await act(s, index, result);
    outcome.ok = true;
  } catch (const StepFailure& f) {
    outcome.output = f.message;
  }
  if (outcome.ok && gone() && !interrupted_) outcome = {false, "Chromium exited", false};
  outcome.fatal = !outcome.ok && (interrupted_ || gone());
  if (!outcome.ok) {
    emit(AGENTRY_EVENT_TOOL_COMPLETED, {{"toolCallId", id}, {"tool", "browser"}, {"status", "failed"}, {"output", outcome.output}});
    if (gone() && !interrupted_) unavailable("Chromium exited unexpectedly");
    co_return outcome;
  }
  json::object done{{"toolCallId", id}, {"tool", "browser"}, {"status", "completed"}, {"output", outcome.output}};
  if (!result.empty()) done["result"] = std::move(result);
  flush_frame();
  emit(AGENTRY_EVENT_TOOL_COMPLETED, done);
  co_return outcome;
}

}  // namespace agentry::browser
