// The browser's actions carried out on the page: one Attempt member per action of the
// table in actions.cpp (the script language and the model's tools alike). Each returns
// the tool's output text, fills the call's result, and throws StepFailure.
#include <boost/asio/awaitable.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <filesystem>
#include <fstream>
#include <system_error>

#include "agentry/plugin_common/base64.hpp"
#include "agentry/plugin_common/json_fields.hpp"
#include "browser/attempt.hpp"
#include "browser/page_scripts.hpp"

namespace agentry::browser {
namespace asio = boost::asio;
namespace json = boost::json;
using plugin_common::text_field;
namespace fs = std::filesystem;
using namespace page_scripts;

namespace {

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

std::string render_read(const json::object& r) {
  std::string out = "Page: " + text_field(r, "title") + "\nURL: " + text_field(r, "url") + "\n\n" + text_field(r, "text");
  if (const json::value* t = r.if_contains("truncated"); t && t->is_bool() && t->get_bool()) out += "\n[text truncated]";
  const json::value* els = r.if_contains("elements");
  if (els && els->is_array() && !els->get_array().empty()) {
    out += "\n\nElements:";
    for (const auto& e : els->get_array()) {
      if (!e.is_object()) continue;
      const json::object& o = e.get_object();
      out += "\n[" + text_field(o, "ref") + "] " + text_field(o, "kind");
      if (o.contains("type")) out += " " + text_field(o, "type");
      if (o.contains("name")) out += " name=" + text_field(o, "name");
      if (o.contains("text")) out += " \"" + text_field(o, "text") + "\"";
      if (o.contains("placeholder")) out += " placeholder=\"" + text_field(o, "placeholder") + "\"";
      if (o.contains("value")) out += " value=\"" + text_field(o, "value") + "\"";
      if (o.contains("href")) out += " -> " + text_field(o, "href");
    }
  }
  return out;
}

}  // namespace

asio::awaitable<std::string> Attempt::navigate(ActionCall& c) {
  const Step& s = c.step;
  auto& deadline = c.deadline;
  json::object& result = c.result;
  const uint64_t before = nav_started_;
  json::object target{{"url", s.args.at("url")}};  // GCC 12: no braced lists inside a co_await
  CdpReply r = co_await page_call("Page.navigate", std::move(target), deadline);
  if (auto err = text_field(r.result, "errorText"); !err.empty()) throw StepFailure{"cannot load " + text_field(s.args, "url") + ": " + err};
  if (r.result.contains("loaderId")) co_await wait_navigation(before, deadline, true);
  result = co_await page_state(deadline);
  co_return "loaded " + text_field(result, "url") + " (" + text_field(result, "title") + ")";
}

asio::awaitable<std::string> Attempt::click(ActionCall& c) {
  const Step& s = c.step;
  auto& deadline = c.deadline;
  json::object& result = c.result;
  json::object el = co_await locate(s, deadline);
  const uint64_t before = nav_started_;
  co_await mouse_click(el.at("x").to_number<double>(), el.at("y").to_number<double>(), deadline);
  co_await wait_navigation(before, deadline, false);
  result = co_await page_state(deadline);
  co_return "clicked " + text_field(el, "tag") + (text_field(el, "text").empty() ? "" : " \"" + text_field(el, "text") + "\"") + "; now at " +
         text_field(result, "url");
}

asio::awaitable<std::string> Attempt::type_text(ActionCall& c) {
  const Step& s = c.step;
  auto& deadline = c.deadline;
  json::object el = co_await locate(s, deadline);
  json::object arg;
  if (s.args.contains("ref")) arg["ref"] = s.args.at("ref");
  else arg["selector"] = s.args.at("selector");
  co_await eval(call_js(R"JS((function(a){
    const el = a.ref ? document.querySelector('[data-agentry-ref="' + CSS.escape(a.ref) + '"]') : document.querySelector(a.selector);
    el.focus();
    if (typeof el.select === 'function') el.select();
    if ('value' in el) { el.value = ''; el.dispatchEvent(new Event('input', {bubbles: true})); }
    return true; }))JS", arg), deadline);
  const std::string text = text_field(s.args, "text");
  if (!text.empty()) {
    json::object insert{{"text", text}};
    co_await page_call("Input.insertText", std::move(insert), deadline);
  }
  co_return "typed " + std::to_string(text.size()) + " bytes into " + text_field(el, "tag");
}

asio::awaitable<std::string> Attempt::press(ActionCall& c) {
  const Step& s = c.step;
  auto& deadline = c.deadline;
  json::object& result = c.result;
  const std::string key = text_field(s.args, "key");
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
  const uint64_t before = nav_started_;
  co_await page_call("Input.dispatchKeyEvent", down, deadline);
  json::object up = down;
  up["type"] = "keyUp";
  up.erase("text");
  co_await page_call("Input.dispatchKeyEvent", up, deadline);
  co_await wait_navigation(before, deadline, false);
  result = co_await page_state(deadline);
  co_return "pressed " + key + "; now at " + text_field(result, "url");
}

asio::awaitable<std::string> Attempt::scroll(ActionCall& c) {
  const Step& s = c.step;
  auto& deadline = c.deadline;
  json::value v = co_await eval("(function(y){ window.scrollBy(0, y); return window.scrollY; })(" +
                           json::serialize(s.args.at("y")) + ")",
                       deadline);
  co_return "scrolled; scrollY is now " + json::serialize(v);
}

asio::awaitable<std::string> Attempt::read_page(ActionCall& c) {
  auto& deadline = c.deadline;
  json::object& result = c.result;
  const std::size_t index = c.index;
  json::value v = co_await eval(std::string(kRead) + "(" + std::to_string(kMaxText) + "," + std::to_string(kMaxElements) + ")", deadline);
  if (!v.is_object()) throw StepFailure{"the page gave no answer"};
  const std::string text = render_read(v.get_object());
  result = v.get_object();
  result.erase("text");
  if (model_mode_) co_return text;  // the model reads it in the tool result; it is not the agent's message
  emit(AGENTRY_EVENT_MESSAGE_COMPLETED, {{"text", text}, {"itemId", "read-" + std::to_string(params_.attempt_number) + "-" + std::to_string(index)}, {"role", "assistant"}});
  const json::value* els = v.get_object().if_contains("elements");
  co_return "read " + text_field(v.get_object(), "url") + " (" + text_field(v.get_object(), "title") + "): " +
         std::to_string(text_field(v.get_object(), "text").size()) + " bytes of text, " +
         std::to_string(els && els->is_array() ? els->get_array().size() : 0) + " elements";
}

asio::awaitable<std::string> Attempt::screenshot(ActionCall& c) {
  const Step& s = c.step;
  auto& deadline = c.deadline;
  json::object& result = c.result;
  const std::size_t index = c.index;
  json::object png{{"format", "png"}};
  CdpReply r = co_await page_call("Page.captureScreenshot", std::move(png), deadline);
  auto bytes = plugin_common::base64_decode(text_field(r.result, "data"));
  if (!bytes) throw StepFailure{"Chromium sent a screenshot that is not base64"};
  std::string name = safe_name(text_field(s.args, "name"), "screenshot-" + std::to_string(index));
  if (name.size() < 4 || name.substr(name.size() - 4) != ".png") name += ".png";
  const std::string path = artifacts_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  if (!out.flush()) throw StepFailure{"cannot write " + path};
  result = {{"path", path}, {"bytes", bytes->size()}};
  notice("info", "screenshot saved: " + path);
  co_return "saved " + path;
}

asio::awaitable<std::string> Attempt::back(ActionCall& c) {
  auto& deadline = c.deadline;
  json::object& result = c.result;
  CdpReply h = co_await page_call("Page.getNavigationHistory", {}, deadline);
  const int64_t current = h.result.contains("currentIndex") ? h.result.at("currentIndex").to_number<int64_t>() : 0;
  const json::value* entries = h.result.if_contains("entries");
  if (current <= 0 || !entries || !entries->is_array() || entries->get_array().size() <= static_cast<std::size_t>(current))
    throw StepFailure{"there is no previous page"};
  const uint64_t before = nav_started_;
  json::object entry{{"entryId", entries->get_array()[current - 1].get_object().at("id")}};
  co_await page_call("Page.navigateToHistoryEntry", std::move(entry), deadline);
  co_await wait_navigation(before, deadline, false);
  result = co_await page_state(deadline);
  co_return "back at " + text_field(result, "url");
}

asio::awaitable<std::string> Attempt::wait_for(ActionCall& c) {
  const Step& s = c.step;
  auto& deadline = c.deadline;
  if (const json::value* t = s.args.if_contains("timeoutMs")) deadline = Clock::now() + std::chrono::milliseconds(t->get_int64());
  json::object arg;
  if (s.args.contains("text")) arg["text"] = s.args.at("text");
  else arg["selector"] = s.args.at("selector");
  const std::string what = s.args.contains("text") ? "the text " + json::serialize(s.args.at("text")) : "the selector \"" + text_field(s.args, "selector") + "\"";
  for (;;) {
    if (interrupted_) throw StepFailure{"interrupted"};
    bool found = false;
    try {
      json::value v = co_await eval(call_js(kWaitFor, arg), deadline);
      found = v.is_bool() && v.get_bool();
    } catch (const StepFailure&) {
      if (gone()) throw;
    }
    if (found) co_return "found " + what;
    if (Clock::now() + std::chrono::milliseconds(100) >= deadline) throw StepFailure{what + " did not appear in time"};
    const auto next = Clock::now() + std::chrono::milliseconds(100);
    while (!interrupted_ && Clock::now() < next) co_await changed_.wait_until(next);
  }
}

asio::awaitable<std::string> Attempt::download(ActionCall& c) {
  const Step& s = c.step;
  auto& deadline = c.deadline;
  json::object& result = c.result;
  const std::size_t index = c.index;
  const std::string dir = artifacts_dir();
  const std::string staging = dir + "/.downloading";
  std::error_code ec;
  fs::create_directories(staging, ec);
  download_.reset();
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (gone()) throw StepFailure{"Browser.setDownloadBehavior: Chromium is gone (the DevTools pipe is closed)"};
  json::object behavior{{"behavior", "allowAndName"}, {"downloadPath", staging}, {"eventsEnabled", true}};
  CdpReply b = co_await chromium_->call("Browser.setDownloadBehavior", std::move(behavior), "", left);
  if (!b.ok) throw StepFailure{"Browser.setDownloadBehavior: " + b.error};
  json::object el = co_await locate(s, deadline);
  co_await mouse_click(el.at("x").to_number<double>(), el.at("y").to_number<double>(), deadline);
  const auto done = [&] {
    return interrupted_ || gone() || (download_ && (download_->state == "completed" || download_->state == "canceled"));
  };
  while (!done() && Clock::now() < deadline) co_await changed_.wait_until(deadline);
  if (!done() || !download_) throw StepFailure{"no download completed in time"};
  const Download d = *download_;
  if (d.state != "completed") throw StepFailure{"the download was canceled"};
  const std::string path = dir + "/" + safe_name(d.filename, "download-" + std::to_string(index));
  fs::rename(fs::path(staging) / d.guid, path, ec);
  if (ec) throw StepFailure{"cannot move the download to " + path + ": " + ec.message()};
  fs::remove_all(staging, ec);
  const auto size = fs::file_size(path, ec);
  result = {{"path", path}, {"bytes", ec ? 0 : size}};
  notice("info", "download saved: " + path);
  co_return "saved " + path;
}

}  // namespace agentry::browser
