// The mock's live view image: the smallest JPEG a browser shows (8x8, one grey block),
// as base64, so frame steps cost nothing to make and tests can decode a real image.
#pragma once

#include <string_view>

namespace agentry::mock {

std::string_view tiny_jpeg_base64();

}  // namespace agentry::mock
