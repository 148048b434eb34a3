// Where the checkout's own files are (fixtures, scripts, recorded transcripts), for tests
// that read them.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace agentry::test {

/// The checkout's root directory (CMake's PROJECT_SOURCE_DIR). Only source_tree.cpp is
/// compiled knowing it: an absolute path in any other file's flags would make that file
/// miss ccache in a checkout at another path (a CI clone).
[[nodiscard]] const std::filesystem::path& source_tree();

/// source_tree() / relative, as a string (for argv and definition files).
[[nodiscard]] std::string source_file(std::string_view relative);

}  // namespace agentry::test
