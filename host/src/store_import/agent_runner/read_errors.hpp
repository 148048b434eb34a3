#pragma once
// How the readers of agent-runner's files report what they cannot read: one VALIDATION
// error naming the file and the field, with both in its details for the import report.

#include "core/result.hpp"
#include "store_import/agent_runner/json_fields.hpp"

#include <filesystem>
#include <string>

namespace agentry::store_import::agent_runner {

inline core::Failure field_failure(const FieldError& e) {
  return core::fail(core::ErrorCode::validation, e.what(), {{"file", e.file()}, {"field", e.field()}});
}

inline core::Failure file_failure(const std::filesystem::path& file, const std::string& reason) {
  return core::fail(core::ErrorCode::validation, file.string() + ": " + reason, {{"file", file.string()}, {"field", ""}});
}

/// The whole file as text; NOT_FOUND naming it when it cannot be read.
core::Result<std::string> read_text_file(const std::filesystem::path& file);

}  // namespace agentry::store_import::agent_runner
