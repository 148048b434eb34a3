#pragma once
// Structured logging: one line per event on stderr, `key=value` pairs after the message.
// Never pass a token or an Authorization header value here.

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace agentry::core {

enum class LogLevel { debug, info, warn, error };

using LogField = std::pair<std::string_view, std::string>;

void log(LogLevel level, std::string_view message, std::initializer_list<LogField> fields = {});
void set_log_level(LogLevel level);
/// Parses "debug|info|warn|error"; unknown text keeps the current level.
void set_log_level(std::string_view name);

inline void log_info(std::string_view m, std::initializer_list<LogField> f = {}) { log(LogLevel::info, m, f); }
inline void log_warn(std::string_view m, std::initializer_list<LogField> f = {}) { log(LogLevel::warn, m, f); }
inline void log_error(std::string_view m, std::initializer_list<LogField> f = {}) { log(LogLevel::error, m, f); }
inline void log_debug(std::string_view m, std::initializer_list<LogField> f = {}) { log(LogLevel::debug, m, f); }

}  // namespace agentry::core
