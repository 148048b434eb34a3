#include "store_import/agent_runner/events_reader.hpp"

#include "store_import/agent_runner/json_fields.hpp"
#include "store_import/agent_runner/read_errors.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <array>
#include <string_view>

namespace agentry::store_import::agent_runner {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr std::array<std::string_view, 10> shared_keys = {"schemaVersion", "recordedAt", "cursor", "runId",
                                                          "eventType", "source", "hostMode", "controllerInstanceId",
                                                          "sessionIndex", "attemptNumber"};
constexpr std::array<std::string_view, 4> sources = {"system", "cli", "daemon", "task_command"};

bool is_shared(std::string_view key) {
  return std::find(shared_keys.begin(), shared_keys.end(), key) != shared_keys.end();
}

AuditRecord read_record(const Fields& f) {
  if (f.integer("schemaVersion") != 2) f.fail("schemaVersion", "must be 2");
  AuditRecord r;
  r.cursor = f.integer("cursor");
  if (r.cursor < 1) f.fail("cursor", "must be a positive integer");
  r.recorded_at = f.string("recordedAt");
  r.event_type = f.string("eventType");
  if (r.event_type.empty()) f.fail("eventType", "must not be empty");
  r.source = f.string("source");
  if (std::find(sources.begin(), sources.end(), r.source) == sources.end())
    f.fail("source", "must be one of system, cli, daemon, task_command");
  r.host_mode = f.string("hostMode");
  if (r.host_mode != "embedded" && r.host_mode != "daemon") f.fail("hostMode", "must be \"embedded\" or \"daemon\"");
  r.controller_instance_id = f.optional_string("controllerInstanceId");
  r.session_index = f.optional_integer("sessionIndex");
  r.attempt_number = f.optional_integer("attemptNumber");
  if (r.session_index && *r.session_index < 0) f.fail("sessionIndex", "must not be negative");
  if (r.attempt_number && *r.attempt_number < 0) f.fail("attemptNumber", "must not be negative");
  return r;
}

}  // namespace

core::Result<std::vector<AuditRecord>> parse_run_events(const std::string& text, const fs::path& file,
                                                         const std::string& run_id) {
  std::vector<AuditRecord> out;
  std::size_t line_start = 0;
  for (int line = 1; line_start < text.size(); ++line) {
    auto end = text.find('\n', line_start);
    if (end == std::string::npos) end = text.size();
    const std::string_view row(text.data() + line_start, end - line_start);
    line_start = end + 1;
    if (row.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = file.string() + " line " + std::to_string(line);
    boost::system::error_code ec;
    auto value = json::parse(row, ec);
    if (ec) return file_failure(file, "line " + std::to_string(line) + " is not JSON (" + ec.message() + ")");
    if (!value.is_object()) return file_failure(file, "line " + std::to_string(line) + " must hold a JSON object");
    try {
      const Fields f(value.as_object(), where);
      if (f.string("runId") != run_id) continue;
      auto record = read_record(f);
      for (const auto& [key, field] : value.as_object())
        if (!is_shared(key)) record.fields[key] = field;
      out.push_back(std::move(record));
    } catch (const FieldError& e) {
      return field_failure(e);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.cursor < b.cursor; });
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i].cursor == out[i - 1].cursor)
      return core::fail(core::ErrorCode::validation,
                        file.string() + ": cursor " + std::to_string(out[i].cursor) + " appears twice",
                        {{"file", file.string()}, {"field", "cursor"}});
  return out;
}

core::Result<std::vector<AuditRecord>> read_run_events(const fs::path& file, const std::string& run_id) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::vector<AuditRecord>{};
  auto text = read_text_file(file);
  if (!text) return text.failure();
  return parse_run_events(*text, file, run_id);
}

core::Result<std::optional<std::string>> read_attempt_stderr(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::optional<std::string>();
  auto text = read_text_file(file);
  if (!text) return text.failure();
  boost::system::error_code jec;
  auto value = json::parse(*text, jec);
  if (jec) return file_failure(file, "is not JSON (" + jec.message() + ")");
  if (!value.is_object()) return file_failure(file, "must hold a JSON object");
  try {
    const Fields f(value.as_object(), file.string());
    if (f.integer("schemaVersion") != 3) f.fail("schemaVersion", "must be 3");
    return std::optional<std::string>(f.string("stderr"));
  } catch (const FieldError& e) {
    return field_failure(e);
  }
}

}  // namespace agentry::store_import::agent_runner
