#include "events/browser_frames.hpp"

#include "core/clock.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace agentry::events {
namespace json = boost::json;

namespace {

const json::string* string_field(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? &v->get_string() : nullptr;
}

bool is_base64(std::string_view s) {
  if (s.empty() || s.size() % 4 != 0) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' ||
           c == '=';
  });
}

}  // namespace

std::optional<std::string> BrowserFrames::publish(const std::string& run_id, const json::object& payload) {
  BrowserView view;
  view.at = core::now_iso8601();
  json::object out{{"type", "browser_frame"}, {"runId", run_id}};
  if (const auto* status = string_field(payload, "status"); status && *status == "unavailable") {
    const auto* reason = string_field(payload, "reason");
    if (!reason || reason->empty()) return "an unavailable live view needs a \"reason\" string";
    view.reason = std::string(std::string_view(*reason).substr(0, 2000));
    out["type"] = "browser_unavailable";
    out["reason"] = view.reason;
  } else {
    const auto* mime = string_field(payload, "mime");
    const auto* data = string_field(payload, "data");
    if (!mime || (*mime != "image/jpeg" && *mime != "image/png")) return "a frame's \"mime\" must be image/jpeg or image/png";
    if (!data || data->size() > max_data_bytes || !is_base64(std::string_view(*data)))
      return "a frame's \"data\" must be base64 of at most 1 MiB";
    view.available = true;
    view.mime = std::string(std::string_view(*mime));
    view.data_base64 = std::string(std::string_view(*data));
    out["mime"] = view.mime;
    out["data"] = view.data_base64;
    for (const char* key : {"width", "height"})
      if (const json::value* v = payload.if_contains(key); v && v->is_int64()) out[key] = *v;
    if (const auto* url = string_field(payload, "url")) out["url"] = std::string_view(*url).substr(0, 4096);
  }
  std::lock_guard lock(mutex_);
  view.seq = next_seq_++;
  out["seq"] = view.seq;
  out["at"] = view.at;
  view.frame = make_frame(json::serialize(out));
  auto shared = std::make_shared<const BrowserView>(std::move(view));
  auto it = views_.find(run_id);
  if (it == views_.end()) {
    if (views_.size() >= max_runs) {
      views_.erase(order_.front());
      order_.pop_front();
    }
    views_.emplace(run_id, std::move(shared));
  } else {
    it->second = std::move(shared);
    order_.remove(run_id);
  }
  order_.push_back(run_id);
  return std::nullopt;
}

std::shared_ptr<const BrowserView> BrowserFrames::latest(const std::string& run_id) const {
  std::lock_guard lock(mutex_);
  auto it = views_.find(run_id);
  return it == views_.end() ? nullptr : it->second;
}

void BrowserFrames::forget(const std::string& run_id) {
  std::lock_guard lock(mutex_);
  if (views_.erase(run_id)) order_.remove(run_id);
}

std::string no_view_reason(const core::Run& run) {
  const std::string status(core::to_string(run.status));
  if (run.status == core::RunStatus::running)
    return "no frame yet: the run is running; a live view comes only from a backend that drives a browser "
           "(backend browser, unless backendConfig.browser.liveView is false)";
  std::string why = "no live view: the run is " + status;
  if (!run.status_reason.empty()) why += " (" + run.status_reason + ")";
  return why + "; a browser's live view is shown only while an attempt runs, and the latest frame is kept until "
               "the daemon restarts";
}

Frame no_view_frame(const core::Run& run) {
  return make_frame(json::serialize(json::object{
      {"type", "browser_unavailable"}, {"runId", run.id}, {"seq", 0}, {"reason", no_view_reason(run)}}));
}

}  // namespace agentry::events
