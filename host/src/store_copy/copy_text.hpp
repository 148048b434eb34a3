#pragma once
// Rows in the text format of PostgreSQL's COPY: fields separated by tabs, a row ended by a
// newline, NULL written \N, and a backslash, tab, newline or carriage return inside a value
// escaped, so any text arrives byte for byte.

#include <string>
#include <string_view>

namespace agentry::store_copy {

/// Appends `value` as one field, escaped.
void append_copy_field(std::string& row, std::string_view value);
/// Appends a NULL field.
inline void append_copy_null(std::string& row) { row += "\\N"; }

}  // namespace agentry::store_copy
