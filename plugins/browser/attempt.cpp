#include "browser/attempt.hpp"

#include <sys/stat.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "agentry/plugin_common/environment.hpp"
#include "browser/base64.hpp"

namespace agentry::browser {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr auto kStartupTimeout = std::chrono::seconds(30);
constexpr auto kEmitPatience = std::chrono::seconds(30);
constexpr auto kFinishPatience = std::chrono::seconds(120);
constexpr std::size_t kMaxText = 20000;
constexpr std::size_t kMaxElements = 200;

// Finds the element of a step ({"selector"} or {"ref"}), scrolls it into view and answers
// its centre, or {"error"}.
constexpr const char* kLocate = R"JS((function(a){
  const el = a.ref ? document.querySelector('[data-agentry-ref="' + CSS.escape(a.ref) + '"]')
                   : document.querySelector(a.selector);
  if (!el) return {error: a.ref ? 'no element has ref "' + a.ref + '" (refs come from the last read of this page)'
                                : 'no element matches selector "' + a.selector + '"'};
  el.scrollIntoView({block: 'center', inline: 'center'});
  const r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return {error: 'the element is not visible'};
  const text = (el.innerText || el.value || el.getAttribute('aria-label') || '').trim().replace(/\s+/g, ' ').slice(0, 80);
  return {x: r.left + r.width / 2, y: r.top + r.height / 2, tag: el.tagName.toLowerCase(), text: text};
}))JS";

constexpr const char* kRead = R"JS((function(maxText, maxEls){
  const d = document, root = d.documentElement;
  let next = parseInt(root.getAttribute('data-agentry-next-ref') || '1', 10);
  const visible = el => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const els = [];
  for (const el of d.querySelectorAll('a[href],button,input,textarea,select,[role=button],[role=link],summary')) {
    if (els.length >= maxEls) break;
    if (el.type === 'hidden' || !visible(el)) continue;
    let ref = el.getAttribute('data-agentry-ref');
    if (!ref) { ref = 'e' + (next++); el.setAttribute('data-agentry-ref', ref); }
    const tag = el.tagName.toLowerCase(), role = el.getAttribute('role');
    const kind = tag === 'a' || role === 'link' ? 'link'
      : (tag === 'button' || role === 'button' || tag === 'summary' ||
         (tag === 'input' && ['submit', 'button', 'reset', 'image'].includes(el.type))) ? 'button' : 'input';
    const e = {ref: ref, kind: kind, tag: tag};
    const text = (tag === 'input' || tag === 'textarea' || tag === 'select' ? (kind === 'button' ? el.value : '')
                  : (el.innerText || el.getAttribute('aria-label') || el.title || '')).trim().replace(/\s+/g, ' ').slice(0, 100);
    if (text) e.text = text;
    if (tag === 'a') e.href = el.href;
    if (kind === 'input') {
      e.type = el.type || tag;
      if (el.name) e.name = el.name;
      if (el.placeholder) e.placeholder = el.placeholder;
      if (el.type !== 'password' && el.value) e.value = String(el.value).slice(0, 100);
    }
    els.push(e);
  }
  root.setAttribute('data-agentry-next-ref', String(next));
  let text = (d.body ? d.body.innerText : '') || '';
  const truncated = text.length > maxText;
  return {title: d.title, url: location.href, text: text.slice(0, maxText), truncated: truncated, elements: els};
}))JS";

constexpr const char* kWaitFor = R"JS((function(a){
  if (a.text !== undefined) return !!(document.body && document.body.innerText.includes(a.text));
  const el = document.querySelector(a.selector);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}))JS";

// windowsVirtualKeyCode and code of the named keys `press` knows.
struct Key {
  const char* name;
  int code;
  const char* dom_code;
  const char* text;
};
constexpr Key kKeys[] = {{"Enter", 13, "Enter", "\r"},      {"Tab", 9, "Tab", nullptr},
                         {"Escape", 27, "Escape", nullptr}, {"Backspace", 8, "Backspace", nullptr},
                         {"Delete", 46, "Delete", nullptr}, {"ArrowUp", 38, "ArrowUp", nullptr},
                         {"ArrowDown", 40, "ArrowDown", nullptr}, {"ArrowLeft", 37, "ArrowLeft", nullptr},
                         {"ArrowRight", 39, "ArrowRight", nullptr}, {"PageUp", 33, "PageUp", nullptr},
                         {"PageDown", 34, "PageDown", nullptr}, {"Home", 36, "Home", nullptr},
                         {"End", 35, "End", nullptr},       {"Space", 32, "Space", " "}};

std::string call_js(const char* fn, const json::value& arg) { return std::string(fn) + "(" + json::serialize(arg) + ")"; }

std::string str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// A file name from a user or a server: [A-Za-z0-9._-] kept, the rest '_', no leading dot.
std::string safe_name(const std::string& name, const std::string& fallback) {
  std::string out;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || c == '.';
    out.push_back(ok ? c : '_');
  }
  while (!out.empty() && out.front() == '.') out.erase(0, 1);
  if (out.size() > 100) out.resize(100);
  return out.empty() ? fallback : out;
}

std::string target_text(const Step& s) {
  const std::string ref = str(s.args, "ref");
  return ref.empty() ? str(s.args, "selector") : "ref " + ref;
}

std::string command_of(const Step& s) {
  const std::string& a = s.action;
  if (a == "navigate") return "navigate " + str(s.args, "url");
  if (a == "click" || a == "download") return a + " " + target_text(s);
  if (a == "type") return "type " + target_text(s) + " " + json::serialize(s.args.at("text"));
  if (a == "press") return "press " + str(s.args, "key");
  if (a == "scroll") return "scroll " + json::serialize(s.args.at("y"));
  if (a == "screenshot") return "screenshot" + (s.args.contains("name") ? " " + str(s.args, "name") : std::string());
  if (a == "waitFor")
    return "waitFor " + (s.args.contains("text") ? "text " + json::serialize(s.args.at("text")) : str(s.args, "selector"));
  return a;
}

std::string render_read(const json::object& r) {
  std::string out = "Page: " + str(r, "title") + "\nURL: " + str(r, "url") + "\n\n" + str(r, "text");
  if (const json::value* t = r.if_contains("truncated"); t && t->is_bool() && t->get_bool()) out += "\n[text truncated]";
  const json::value* els = r.if_contains("elements");
  if (els && els->is_array() && !els->get_array().empty()) {
    out += "\n\nElements:";
    for (const auto& e : els->get_array()) {
      if (!e.is_object()) continue;
      const json::object& o = e.get_object();
      out += "\n[" + str(o, "ref") + "] " + str(o, "kind");
      if (o.contains("type")) out += " " + str(o, "type");
      if (o.contains("name")) out += " name=" + str(o, "name");
      if (o.contains("text")) out += " \"" + str(o, "text") + "\"";
      if (o.contains("placeholder")) out += " placeholder=\"" + str(o, "placeholder") + "\"";
      if (o.contains("value")) out += " value=\"" + str(o, "value") + "\"";
      if (o.contains("href")) out += " -> " + str(o, "href");
    }
  }
  return out;
}

std::string tail_of_file(const std::string& path, std::size_t max) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() > max) text = text.substr(text.size() - max);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

Attempt::Attempt(plugin::Host& host, plugin::StartParams params) : host_(host), params_(std::move(params)) {}

Attempt::~Attempt() {
  interrupt("the backend instance is being destroyed");
  if (worker_.joinable()) worker_.join();
}

void Attempt::launch() { worker_ = std::thread([this] { run(); }); }

void Attempt::interrupt(std::string_view reason) {
  {
    std::lock_guard lock(mutex_);
    if (interrupted_.load()) return;
    reason_ = std::string(reason);
    interrupted_ = true;
    if (chromium_) chromium_->kill_now();  // at once: the worker reaps it
  }
  changed_.notify_all();
}

void Attempt::emit(uint16_t type, const json::object& payload, uint32_t flags) {
  const agentry_status_t st = host_.emit_with_retry(type, flags, json::serialize(payload), kEmitPatience);
  if (st != AGENTRY_OK) host_.log(AGENTRY_LOG_WARNING, "browser: event type " + std::to_string(type) + " refused: " + std::to_string(st));
}

void Attempt::notice(const std::string& level, const std::string& message) {
  emit(AGENTRY_EVENT_NOTICE, {{"level", level}, {"message", message}});
}

bool Attempt::frames_allowed() const {
  const agentry_version_t v = host_.raw()->abi_version;
  return settings_.live_view && (v.major > 1 || (v.major == 1 && v.minor >= 2));
}

void Attempt::unavailable(const std::string& reason) {
  if (frames_allowed())
    emit(AGENTRY_EVENT_BROWSER_FRAME, {{"status", "unavailable"}, {"reason", reason}}, AGENTRY_EVENT_FLAG_EPHEMERAL);
}

void Attempt::run() noexcept {
  std::pair<std::string, std::string> finish{"error", "internal error in the browser backend"};
  try {
    finish = play();
  } catch (const std::exception& e) {
    finish.second += std::string(": ") + e.what();
  } catch (...) {
  }
  try {
    settle_frames();
  } catch (...) {
  }
  std::unique_ptr<Chromium> chromium;
  {
    std::lock_guard lock(mutex_);
    chromium = std::move(chromium_);
  }
  // Before FINISHED: no Chromium outlives its attempt. A clean close flushes cookies.
  if (chromium) chromium->close(interrupted_.load() ? std::chrono::milliseconds(0) : std::chrono::milliseconds(5000));
  chromium.reset();
  if (interrupted_.load() && finish.first != "error") {
    std::lock_guard lock(mutex_);
    finish = {"interrupted", reason_};
  }
  finishing_ = true;
  json::object payload{{"outcome", finish.first}};
  if (!finish.second.empty()) payload["message"] = finish.second;
  host_.emit_with_retry(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL, json::serialize(payload), kFinishPatience);
}

void Attempt::start_browser() {
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
  {
    std::lock_guard lock(mutex_);
    if (interrupted_.load()) return;
    try {
      chromium_ = std::make_unique<Chromium>(resolved.path, args, settings_.env, log,
                                             [this](const std::string& m, const json::object& p, const std::string& s) {
                                               on_event(m, p, s);
                                             });
    } catch (const std::system_error& e) {
      throw StepFailure{"cannot start Chromium '" + resolved.path + "': " + e.code().message() + install};
    }
  }
  const auto fail_start = [&](const std::string& what) {
    std::string why = "Chromium ('" + resolved.path + "') did not start: " + what;
    if (auto tail = tail_of_file(log, 600); !tail.empty()) why += "; its last output: " + tail;
    throw StepFailure{why};
  };
  CdpReply targets = chromium_->call("Target.getTargets", {}, "", kStartupTimeout);
  if (!targets.ok) fail_start(targets.error);
  std::string target;
  if (const json::value* infos = targets.result.if_contains("targetInfos"); infos && infos->is_array())
    for (const auto& t : infos->get_array())
      if (t.is_object() && str(t.get_object(), "type") == "page") target = str(t.get_object(), "targetId");
  if (target.empty()) {
    CdpReply created = chromium_->call("Target.createTarget", {{"url", "about:blank"}}, "", kStartupTimeout);
    if (!created.ok) fail_start(created.error);
    target = str(created.result, "targetId");
  }
  CdpReply attached = chromium_->call("Target.attachToTarget", {{"targetId", target}, {"flatten", true}}, "", kStartupTimeout);
  if (!attached.ok) fail_start(attached.error);
  session_ = str(attached.result, "sessionId");
  for (const char* m : {"Page.enable"}) {
    CdpReply r = chromium_->call(m, {}, session_, kStartupTimeout);
    if (!r.ok) fail_start(std::string(m) + ": " + r.error);
  }
  CdpReply tree = chromium_->call("Page.getFrameTree", {}, session_, kStartupTimeout);
  if (tree.ok)
    if (const json::value* ft = tree.result.if_contains("frameTree"); ft && ft->is_object())
      if (const json::value* f = ft->get_object().if_contains("frame"); f && f->is_object()) {
        std::lock_guard lock(mutex_);
        main_frame_ = str(f->get_object(), "id");
        url_ = str(f->get_object(), "url");
      }
  if (frames_allowed())
    chromium_->call("Page.startScreencast",
                    {{"format", "jpeg"}, {"quality", 60}, {"maxWidth", 1280}, {"maxHeight", 800}}, session_,
                    kStartupTimeout);
}

void Attempt::on_event(const std::string& method, const json::object& p, const std::string& session) {
  if (method == "Page.frameStartedLoading" || method == "Page.frameStoppedLoading") {
    {
      std::lock_guard lock(mutex_);
      if (str(p, "frameId") != main_frame_) return;
      (method == "Page.frameStartedLoading" ? nav_started_ : nav_stopped_)++;
    }
    changed_.notify_all();
  } else if (method == "Page.frameNavigated") {
    if (const json::value* f = p.if_contains("frame"); f && f->is_object() && !f->get_object().contains("parentId")) {
      std::lock_guard lock(mutex_);
      url_ = str(f->get_object(), "url");
    }
  } else if (method == "Browser.downloadWillBegin") {
    {
      std::lock_guard lock(mutex_);
      download_ = Download{str(p, "guid"), str(p, "suggestedFilename"), "inProgress"};
    }
    changed_.notify_all();
  } else if (method == "Browser.downloadProgress") {
    {
      std::lock_guard lock(mutex_);
      if (download_ && download_->guid == str(p, "guid")) download_->state = str(p, "state");
    }
    changed_.notify_all();
  } else if (method == "Page.screencastFrame") {
    const json::value* sid = p.if_contains("sessionId");
    if (sid && chromium_) chromium_->send("Page.screencastFrameAck", {{"sessionId", *sid}}, session);
    const auto now = Clock::now();
    std::string url;
    bool throttled = false;
    {
      std::lock_guard lock(mutex_);
      last_received_ = now;
      received_url_ = url_;
      throttled = now - last_frame_ < std::chrono::milliseconds(250);  // at most 4 frames/s
      if (!throttled) last_frame_ = now, held_frame_.reset();
      url = url_;
    }
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
    json::object frame{{"mime", "image/jpeg"}, {"data", str(p, "data")}, {"width", static_cast<int64_t>(w)},
                       {"height", static_cast<int64_t>(h)}, {"url", url}};
    if (throttled) {
      // Kept, not dropped: the page's last state must reach the viewer even when it was
      // painted right after another frame.
      std::lock_guard lock(mutex_);
      held_frame_ = std::move(frame);
      return;
    }
    emit(AGENTRY_EVENT_BROWSER_FRAME, frame, AGENTRY_EVENT_FLAG_EPHEMERAL);
  }
}

void Attempt::flush_frame() {
  std::optional<json::object> frame;
  {
    std::lock_guard lock(mutex_);
    frame.swap(held_frame_);
    if (frame) last_frame_ = Clock::now();
  }
  if (frame) emit(AGENTRY_EVENT_BROWSER_FRAME, *frame, AGENTRY_EVENT_FLAG_EPHEMERAL);
}

void Attempt::settle_frames() {
  if (!frames_allowed() || interrupted_.load()) return;
  // A paint the last action caused may still be on its way. Wait at least 200 ms, then
  // until a frame of the page now shown has come and the page has been quiet for 150 ms;
  // at most 1 s in all.
  const auto begun = Clock::now();
  std::unique_lock lock(mutex_);
  if (last_received_ == Clock::time_point{}) return;  // Chromium never drew a frame
  for (;;) {
    const auto now = Clock::now();
    const bool settled = now - begun >= std::chrono::milliseconds(200) && received_url_ == url_ &&
                         now - last_received_ >= std::chrono::milliseconds(150);
    if (settled || interrupted_.load() || now - begun >= std::chrono::seconds(1)) break;
    changed_.wait_for(lock, std::chrono::milliseconds(50));
  }
  lock.unlock();
  flush_frame();
}

CdpReply Attempt::page_call(const std::string& method, json::object params, Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (left.count() <= 0) throw StepFailure{"timed out"};
  CdpReply r = chromium_->call(method, std::move(params), session_, left);
  if (!r.ok) throw StepFailure{method + ": " + r.error};
  return r;
}

json::value Attempt::eval(const std::string& expression, Clock::time_point deadline) {
  CdpReply r = page_call("Runtime.evaluate",
                         {{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}}, deadline);
  if (const json::value* ex = r.result.if_contains("exceptionDetails"); ex && ex->is_object()) {
    std::string text = str(ex->get_object(), "text");
    if (const json::value* e = ex->get_object().if_contains("exception"); e && e->is_object())
      if (auto d = str(e->get_object(), "description"); !d.empty()) text = d;
    throw StepFailure{"page script failed: " + text};
  }
  if (const json::value* res = r.result.if_contains("result"); res && res->is_object())
    if (const json::value* v = res->get_object().if_contains("value")) return *v;
  return nullptr;
}

void Attempt::wait_navigation(uint64_t before, Clock::time_point deadline, bool must_start) {
  std::unique_lock lock(mutex_);
  // A click or a key may or may not navigate: give it a moment to begin.
  const auto start_by = must_start ? deadline : std::min(deadline, Clock::now() + std::chrono::milliseconds(200));
  changed_.wait_until(lock, start_by, [&] { return interrupted_.load() || nav_started_ > before || chromium_->exited(); });
  if (nav_started_ == before) return;
  const bool done = changed_.wait_until(lock, deadline, [&] {
    return interrupted_.load() || chromium_->exited() || (nav_stopped_ >= nav_started_);
  });
  if (!done) throw StepFailure{"the page did not finish loading in time"};
}

json::object Attempt::locate(const Step& s, Clock::time_point deadline) {
  json::object a;
  if (s.args.contains("ref")) a["ref"] = s.args.at("ref");
  else a["selector"] = s.args.at("selector");
  json::value v = eval(call_js(kLocate, a), deadline);
  if (!v.is_object()) throw StepFailure{"cannot find the element"};
  if (auto e = str(v.get_object(), "error"); !e.empty()) throw StepFailure{e};
  return v.get_object();
}

void Attempt::mouse_click(double x, double y, Clock::time_point deadline) {
  page_call("Input.dispatchMouseEvent", {{"type", "mouseMoved"}, {"x", x}, {"y", y}}, deadline);
  page_call("Input.dispatchMouseEvent",
            {{"type", "mousePressed"}, {"x", x}, {"y", y}, {"button", "left"}, {"clickCount", 1}}, deadline);
  page_call("Input.dispatchMouseEvent",
            {{"type", "mouseReleased"}, {"x", x}, {"y", y}, {"button", "left"}, {"clickCount", 1}}, deadline);
}

std::string Attempt::artifacts_dir() {
  const fs::path dir = fs::path(params_.workspace_path) / "browser-artifacts";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw StepFailure{"cannot create " + dir.string() + ": " + ec.message()};
  return dir.string();
}

std::string Attempt::act(const Step& s, std::size_t index, json::object& result) {
  const std::string& a = s.action;
  auto deadline = Clock::now() + settings_.action_timeout;
  const auto generation = [&] {
    std::lock_guard lock(mutex_);
    return nav_started_;
  };
  const auto page_state = [&] {
    json::value v = eval("({title: document.title, url: location.href})", deadline);
    return v.is_object() ? v.get_object() : json::object();
  };
  if (a == "navigate") {
    const uint64_t before = generation();
    CdpReply r = page_call("Page.navigate", {{"url", s.args.at("url")}}, deadline);
    if (auto err = str(r.result, "errorText"); !err.empty()) throw StepFailure{"cannot load " + str(s.args, "url") + ": " + err};
    if (r.result.contains("loaderId")) wait_navigation(before, deadline, true);
    result = page_state();
    return "loaded " + str(result, "url") + " (" + str(result, "title") + ")";
  }
  if (a == "click") {
    json::object el = locate(s, deadline);
    const uint64_t before = generation();
    mouse_click(el.at("x").to_number<double>(), el.at("y").to_number<double>(), deadline);
    wait_navigation(before, deadline, false);
    result = page_state();
    return "clicked " + str(el, "tag") + (str(el, "text").empty() ? "" : " \"" + str(el, "text") + "\"") + "; now at " +
           str(result, "url");
  }
  if (a == "type") {
    json::object el = locate(s, deadline);
    json::object arg;
    if (s.args.contains("ref")) arg["ref"] = s.args.at("ref");
    else arg["selector"] = s.args.at("selector");
    eval(call_js(R"JS((function(a){
      const el = a.ref ? document.querySelector('[data-agentry-ref="' + CSS.escape(a.ref) + '"]') : document.querySelector(a.selector);
      el.focus();
      if (typeof el.select === 'function') el.select();
      if ('value' in el) { el.value = ''; el.dispatchEvent(new Event('input', {bubbles: true})); }
      return true; }))JS", arg), deadline);
    const std::string text = str(s.args, "text");
    if (!text.empty()) page_call("Input.insertText", {{"text", text}}, deadline);
    return "typed " + std::to_string(text.size()) + " bytes into " + str(el, "tag");
  }
  if (a == "press") {
    const std::string key = str(s.args, "key");
    json::object down{{"type", "keyDown"}, {"key", key}};
    bool known = false;
    for (const Key& k : kKeys)
      if (key == k.name) {
        known = true;
        down["code"] = k.dom_code;
        down["windowsVirtualKeyCode"] = k.code;
        down["nativeVirtualKeyCode"] = k.code;
        if (k.text) down["text"] = k.text, down["key"] = std::string(k.name) == "Space" ? " " : key;
      }
    if (!known) {
      if (key.size() != 1) throw StepFailure{"unknown key \"" + key + "\" (a single character, or Enter, Tab, Escape, Backspace, Delete, Arrow*, PageUp, PageDown, Home, End, Space)"};
      down["text"] = key;
    }
    const uint64_t before = generation();
    page_call("Input.dispatchKeyEvent", down, deadline);
    json::object up = down;
    up["type"] = "keyUp";
    up.erase("text");
    page_call("Input.dispatchKeyEvent", up, deadline);
    wait_navigation(before, deadline, false);
    result = page_state();
    return "pressed " + key + "; now at " + str(result, "url");
  }
  if (a == "scroll") {
    json::value v = eval("(function(y){ window.scrollBy(0, y); return window.scrollY; })(" +
                             json::serialize(s.args.at("y")) + ")",
                         deadline);
    return "scrolled; scrollY is now " + json::serialize(v);
  }
  if (a == "read") {
    json::value v = eval(std::string(kRead) + "(" + std::to_string(kMaxText) + "," + std::to_string(kMaxElements) + ")", deadline);
    if (!v.is_object()) throw StepFailure{"the page gave no answer"};
    const std::string text = render_read(v.get_object());
    result = v.get_object();
    result.erase("text");
    if (model_mode_) return text;  // the model reads it in the tool result; it is not the agent's message
    emit(AGENTRY_EVENT_MESSAGE_COMPLETED, {{"text", text}, {"itemId", "read-" + std::to_string(params_.attempt_number) + "-" + std::to_string(index)}, {"role", "assistant"}});
    const json::value* els = v.get_object().if_contains("elements");
    return "read " + str(v.get_object(), "url") + " (" + str(v.get_object(), "title") + "): " +
           std::to_string(str(v.get_object(), "text").size()) + " bytes of text, " +
           std::to_string(els && els->is_array() ? els->get_array().size() : 0) + " elements";
  }
  if (a == "screenshot") {
    CdpReply r = page_call("Page.captureScreenshot", {{"format", "png"}}, deadline);
    auto bytes = base64_decode(str(r.result, "data"));
    if (!bytes) throw StepFailure{"Chromium sent a screenshot that is not base64"};
    std::string name = safe_name(str(s.args, "name"), "screenshot-" + std::to_string(index));
    if (name.size() < 4 || name.substr(name.size() - 4) != ".png") name += ".png";
    const std::string path = artifacts_dir() + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    if (!out.flush()) throw StepFailure{"cannot write " + path};
    result = {{"path", path}, {"bytes", bytes->size()}};
    notice("info", "screenshot saved: " + path);
    return "saved " + path;
  }
  if (a == "back") {
    CdpReply h = page_call("Page.getNavigationHistory", {}, deadline);
    const int64_t current = h.result.contains("currentIndex") ? h.result.at("currentIndex").to_number<int64_t>() : 0;
    const json::value* entries = h.result.if_contains("entries");
    if (current <= 0 || !entries || !entries->is_array() || entries->get_array().size() <= static_cast<std::size_t>(current))
      throw StepFailure{"there is no previous page"};
    const uint64_t before = generation();
    page_call("Page.navigateToHistoryEntry", {{"entryId", entries->get_array()[current - 1].get_object().at("id")}}, deadline);
    wait_navigation(before, deadline, false);
    result = page_state();
    return "back at " + str(result, "url");
  }
  if (a == "waitFor") {
    if (const json::value* t = s.args.if_contains("timeoutMs")) deadline = Clock::now() + std::chrono::milliseconds(t->get_int64());
    json::object arg;
    if (s.args.contains("text")) arg["text"] = s.args.at("text");
    else arg["selector"] = s.args.at("selector");
    const std::string what = s.args.contains("text") ? "the text " + json::serialize(s.args.at("text")) : "the selector \"" + str(s.args, "selector") + "\"";
    for (;;) {
      if (interrupted_.load()) throw StepFailure{"interrupted"};
      bool found = false;
      try {
        json::value v = eval(call_js(kWaitFor, arg), deadline);
        found = v.is_bool() && v.get_bool();
      } catch (const StepFailure&) {
        if (chromium_->exited()) throw;
      }
      if (found) return "found " + what;
      if (Clock::now() + std::chrono::milliseconds(100) >= deadline) throw StepFailure{what + " did not appear in time"};
      std::unique_lock lock(mutex_);
      changed_.wait_for(lock, std::chrono::milliseconds(100), [&] { return interrupted_.load(); });
    }
  }
  if (a == "download") {
    const std::string dir = artifacts_dir();
    const std::string staging = dir + "/.downloading";
    std::error_code ec;
    fs::create_directories(staging, ec);
    {
      std::lock_guard lock(mutex_);
      download_.reset();
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    CdpReply b = chromium_->call("Browser.setDownloadBehavior",
                                 {{"behavior", "allowAndName"}, {"downloadPath", staging}, {"eventsEnabled", true}}, "",
                                 left);
    if (!b.ok) throw StepFailure{"Browser.setDownloadBehavior: " + b.error};
    json::object el = locate(s, deadline);
    mouse_click(el.at("x").to_number<double>(), el.at("y").to_number<double>(), deadline);
    Download d;
    {
      std::unique_lock lock(mutex_);
      const bool done = changed_.wait_until(lock, deadline, [&] {
        return interrupted_.load() || chromium_->exited() ||
               (download_ && (download_->state == "completed" || download_->state == "canceled"));
      });
      if (!done || !download_) throw StepFailure{"no download completed in time"};
      d = *download_;
    }
    if (d.state != "completed") throw StepFailure{"the download was canceled"};
    const std::string path = dir + "/" + safe_name(d.filename, "download-" + std::to_string(index));
    fs::rename(fs::path(staging) / d.guid, path, ec);
    if (ec) throw StepFailure{"cannot move the download to " + path + ": " + ec.message()};
    fs::remove_all(staging, ec);
    const auto size = fs::file_size(path, ec);
    result = {{"path", path}, {"bytes", ec ? 0 : size}};
    notice("info", "download saved: " + path);
    return "saved " + path;
  }
  throw StepFailure{"unknown action"};
}

std::pair<std::string, std::string> Attempt::play() {
  settings_ = read_settings(params_);
  if (!settings_.error.empty()) {
    notice("error", settings_.error);
    return {"error", settings_.error};
  }
  emit(AGENTRY_EVENT_CHECKPOINT, {{"resumeToken", "browser-" + params_.run_id}});
  if (params_.resume_token) notice("info", "resumed with the browser profile " + settings_.profile_dir);
  try {
    start_browser();
  } catch (const StepFailure& f) {
    if (interrupted_.load()) return {"interrupted", ""};
    unavailable(f.message);
    notice("error", f.message);
    return {"error", f.message};
  }
  if (!settings_.model) return play_script();
  model_mode_ = true;
  const LoopHost loop_host{
      [this](const Step& s, std::size_t index, const std::string& id) { return run_tool(s, index, id); },
      [this](uint16_t type, const json::object& payload) { emit(type, payload); },
      [this] { return interrupted_.load(); }};
  return run_model_loop(LoopInput{*settings_.model, settings_.prompt, settings_.profile_dir + "/conversation.json",
                                  params_.resume_token.has_value(), params_.attempt_number},
                        loop_host);
}

std::pair<std::string, std::string> Attempt::play_script() {
  for (std::size_t i = 0; i < settings_.steps.size(); ++i) {
    if (interrupted_.load()) return {"interrupted", ""};
    const Step& s = settings_.steps[i];
    if (s.action == "finish") {
      emit(AGENTRY_EVENT_MESSAGE_COMPLETED, {{"text", str(s.args, "summary")}, {"itemId", "finish-" + std::to_string(params_.attempt_number)}, {"role", "assistant"}});
      return {"success", ""};
    }
    const std::string id = "browser-" + std::to_string(params_.attempt_number) + "-" + std::to_string(++ids_);
    const ToolOutcome outcome = run_tool(s, i + 1, id);
    if (!outcome.ok) {
      if (interrupted_.load()) return {"interrupted", ""};
      std::string message = "step " + std::to_string(i + 1) + " (" + command_of(s) + ") failed: " + outcome.output;
      notice("error", message);
      return {"error", message};
    }
  }
  return {"success", ""};
}

ToolOutcome Attempt::run_tool(const Step& s, std::size_t index, const std::string& id) {
  json::object input = s.args;
  input["action"] = s.action;
  emit(AGENTRY_EVENT_TOOL_STARTED, {{"toolCallId", id}, {"tool", "browser"}, {"command", command_of(s)}, {"input", input}});
  json::object result;
  ToolOutcome outcome;
  try {
    outcome.output = act(s, index, result);
    outcome.ok = true;
  } catch (const StepFailure& f) {
    outcome.output = f.message;
  }
  if (outcome.ok && chromium_->exited() && !interrupted_.load()) outcome = {false, "Chromium exited", false};
  outcome.fatal = !outcome.ok && (interrupted_.load() || chromium_->exited());
  if (!outcome.ok) {
    emit(AGENTRY_EVENT_TOOL_COMPLETED, {{"toolCallId", id}, {"tool", "browser"}, {"status", "failed"}, {"output", outcome.output}});
    if (chromium_->exited() && !interrupted_.load()) unavailable("Chromium exited unexpectedly");
    return outcome;
  }
  json::object done{{"toolCallId", id}, {"tool", "browser"}, {"status", "completed"}, {"output", outcome.output}};
  if (!result.empty()) done["result"] = std::move(result);
  flush_frame();
  emit(AGENTRY_EVENT_TOOL_COMPLETED, done);
  return outcome;
}

}  // namespace agentry::browser
