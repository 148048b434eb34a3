#pragma once
// Serves the dashboard's static files from one directory, never outside it.

#include "api/http_message.hpp"

#include <filesystem>
#include <string>

namespace agentry::api {

inline constexpr std::size_t max_static_file_bytes = 8 * 1024 * 1024;

/// `encoded_path` is the request path ("/" -> index.html). 404 for anything missing,
/// hidden, outside `root`, or not a regular file.
HttpResponse static_file_response(const std::filesystem::path& root, const std::string& encoded_path);

}  // namespace agentry::api
