#pragma once
// The few frozen inputs a run summary shows, read from frozen_json without building it:
// a listing of 100 runs spent a third of its time parsing every run's whole inputs
// (instructions, vars, templates) into a JSON tree and copying them out, to show five
// fields. This reads the text once with a streaming parser and keeps only those. A row
// also keeps those fields alone (frozen_summary_json, written by write_frozen_summary),
// about a tenth of the text, which listings read instead when the row has it.

#include "core/run.hpp"

#include <string_view>

namespace agentry::store {

/// Fills, from frozen_json `text`, what a summary shows and what else frozen_inputs_from_json
/// would read the same way: agent_name, assignment_name, backend, model,
/// max_attempts_per_session, locked_fields, hooks_not_imported, and hooks as that many
/// empty entries (a summary counts them). False when `text` is not JSON.
bool read_frozen_summary(std::string_view text, core::FrozenInputs& out);

/// The fields read_frozen_summary fills, as JSON it reads back to the same values: the
/// frozen inputs' own members, and each hook as an empty object.
std::string write_frozen_summary(const core::FrozenInputs& in);

}  // namespace agentry::store
