#include "core/log.hpp"

#include "core/clock.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace agentry::core {
namespace {

std::atomic<LogLevel> g_level{LogLevel::info};
std::mutex g_mutex;

std::string_view level_name(LogLevel level) {
  switch (level) {
    case LogLevel::debug: return "debug";
    case LogLevel::info: return "info";
    case LogLevel::warn: return "warn";
    case LogLevel::error: return "error";
  }
  return "info";
}

bool needs_quotes(std::string_view v) {
  if (v.empty()) return true;
  for (char c : v)
    if (c == ' ' || c == '"' || c == '=' || c == '\n' || c == '\t') return true;
  return false;
}

void append_value(std::string& out, std::string_view v) {
  if (!needs_quotes(v)) {
    out += v;
    return;
  }
  out += '"';
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  out += '"';
}

}  // namespace

void set_log_level(LogLevel level) { g_level = level; }

void set_log_level(std::string_view name) {
  for (auto level : {LogLevel::debug, LogLevel::info, LogLevel::warn, LogLevel::error})
    if (level_name(level) == name) g_level = level;
}

void log(LogLevel level, std::string_view message, std::initializer_list<LogField> fields) {
  if (level < g_level.load()) return;
  std::string line = "ts=" + now_iso8601() + " level=";
  line += level_name(level);
  line += " msg=";
  append_value(line, message);
  for (const auto& [key, value] : fields) {
    line += ' ';
    line += key;
    line += '=';
    append_value(line, value);
  }
  line += '\n';
  std::lock_guard lock(g_mutex);
  std::fputs(line.c_str(), stderr);
}

}  // namespace agentry::core
