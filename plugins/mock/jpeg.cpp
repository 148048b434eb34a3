#include "mock/jpeg.hpp"

namespace agentry::mock {

// SOI; DQT of all ones; SOF0 8x8, one component; DHT DC and AC tables of one code each;
// SOS; one block (DC difference 0, then end of block), padded with ones; EOI.
std::string_view tiny_jpeg_base64() {
  return "/9j/2wBDAAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQH/"
         "wAALCAAIAAgBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAAAP/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AP//Z";
}

}  // namespace agentry::mock
