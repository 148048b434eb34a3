#include "cli/timeline_render.hpp"

#include "cli/render.hpp"
#include "cli/table.hpp"

#include <boost/json/serialize.hpp>

#include <vector>

namespace agentry::cli {
namespace json = boost::json;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::string current;
  for (char c : text) {
    if (c == '\n') {
      lines.push_back(current);
      current.clear();
    } else if (c != '\r') {
      current += c;
    }
  }
  if (!current.empty()) lines.push_back(current);
  return lines;
}

/// `first` after the time, then `rest` lines indented under it with `bar`.
std::string block(const std::string& time, const std::string& first, const std::vector<std::string>& rest,
                  const std::string& bar) {
  const std::string pad(time.size() + 1, ' ');
  std::string out = time + " " + first + "\n";
  for (const auto& line : rest) out += pad + bar + line + "\n";
  return out;
}

std::string message_block(const std::string& time, const std::string& who, const std::string& text) {
  auto lines = lines_of(text);
  if (lines.empty()) return block(time, who + ": (empty)", {}, "");
  std::string first = who + ": " + lines.front();
  lines.erase(lines.begin());
  // Continuation lines line up with the first line's text.
  return block(time, first, lines, std::string(who.size() + 2, ' '));
}

}  // namespace

std::string render_timeline_event(const json::object& event) {
  const json::value v(event);
  const std::string kind = text_at(v, "kind");
  std::string time = clock_time(text_at(v, "at"));
  if (time.empty()) time = "        ";
  json::value payload = json::object{};
  if (auto* p = event.if_contains("payload"); p && p->is_object()) payload = *p;
  const auto& p = payload;

  // Deltas stream live only; the completed message, reasoning or tool output follows.
  if (kind == "message.delta" || kind == "reasoning.delta" || kind == "tool.output.delta" ||
      kind == "session.checkpoint")
    return {};
  if (kind == "attempt.started") {
    std::string head = "── attempt " + text_at(p, "attemptNumber", text_at(v, "attemptNumber"));
    if (auto s = text_at(p, "sessionIndex"); !s.empty()) head += " · session " + s;
    if (auto b = text_at(p, "backend"); !b.empty()) head += " · " + b;
    return block(time, head + " ──", {}, "");
  }
  if (kind == "attempt.finished") {
    std::string head = "── attempt " + text_at(v, "attemptNumber") + " " + text_at(p, "outcome", "ended");
    if (auto m = text_at(p, "message"); !m.empty()) head += ": " + m;
    if (text_at(p, "forced") == "true") head += " (ended by agentry)";
    return block(time, head + " ──", {}, "");
  }
  if (kind == "run.finished") {
    std::string head = "══ run " + text_at(p, "status");
    if (auto r = text_at(p, "reason"); !r.empty()) head += ": " + r;
    return block(time, head + " ══", {}, "");
  }
  if (kind == "message.completed") {
    std::string role = text_at(p, "role", "assistant");
    return message_block(time, role == "assistant" ? "agent" : role, text_at(p, "text"));
  }
  if (kind == "reasoning") return message_block(time, "thinking", text_at(p, "text"));
  if (kind == "tool.started") {
    std::string command = text_at(p, "command");
    if (command.empty()) command = text_at(p, "tool", "tool") + (p.as_object().contains("input") ? " " + text_at(p, "input") : "");
    auto lines = lines_of(command);
    std::string first = "$ " + (lines.empty() ? std::string() : lines.front());
    if (!lines.empty()) lines.erase(lines.begin());
    return block(time, first, lines, "  ");
  }
  if (kind == "tool.completed") {
    auto lines = lines_of(text_at(p, "output"));
    std::vector<std::string> shown(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(std::min(lines.size(), max_tool_output_lines)));
    if (lines.size() > max_tool_output_lines)
      shown.push_back("… (" + std::to_string(lines.size() - max_tool_output_lines) + " more lines)");
    std::string status = text_at(p, "status", "completed");
    std::string exit = text_at(p, "exitCode");
    const std::string pad(time.size() + 1, ' ');
    std::string out;
    for (const auto& line : shown) out += pad + "│ " + line + "\n";
    if (status != "completed" || (!exit.empty() && exit != "0"))
      out += pad + "[" + status + (exit.empty() ? "" : ", exit " + exit) + "]\n";
    return out;
  }
  if (kind == "notice") {
    std::string level = text_at(p, "level", "info");
    std::string mark = level == "warning" || level == "warn" || level == "error" ? "! " : "· ";
    auto lines = lines_of(text_at(p, "message"));
    std::string first = mark + (lines.empty() ? std::string() : lines.front());
    if (!lines.empty()) lines.erase(lines.begin());
    return block(time, first, lines, "  ");
  }
  if (kind == "plan") {
    std::vector<std::string> lines = lines_of(text_at(p, "explanation"));
    if (auto* steps = p.as_object().if_contains("steps"); steps && steps->is_array())
      for (const auto& step : steps->as_array()) {
        const std::string status = text_at(step, "status");
        const std::string mark = status == "completed" ? "[x] " : status == "in_progress" ? "[>] " : "[ ] ";
        lines.push_back(mark + text_at(step, "step"));
      }
    return block(time, "· plan", lines, "  ");
  }
  if (kind == "diff") {
    auto lines = lines_of(text_at(p, "diff"));
    const std::size_t total = lines.size();
    if (total > max_tool_output_lines) {
      lines.resize(max_tool_output_lines);
      lines.push_back("… (" + std::to_string(total - max_tool_output_lines) + " more lines)");
    }
    return block(time, "· diff of the files the agent changed", lines, "│ ");
  }
  if (kind == "approval.request") {
    return block(time, "? approval requested (" + text_at(p, "kind", "action") + "): " + text_at(p, "summary"), {}, "");
  }
  if (kind == "usage") {
    std::string parts;
    for (const auto& [key, value] : p.as_object())
      if (value.is_number()) parts += (parts.empty() ? "" : " ") + std::string(key) + "=" + json::serialize(value);
    return block(time, "· usage " + (parts.empty() ? json::serialize(p) : parts), {}, "");
  }
  std::string compact = json::serialize(p);
  return block(time, "· " + kind + (compact == "{}" ? std::string() : " " + truncate(compact, 200)), {}, "");
}

}  // namespace agentry::cli
