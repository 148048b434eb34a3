// The WebSocket client's framing and handshake pieces, and the SHA-1 it needs, against
// the examples of RFC 6455 and FIPS 180.
#include "websocket.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sha1.hpp"

namespace agentry::codex {
namespace {

std::string hex(const std::array<uint8_t, 20>& digest) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : digest) out += {digits[b >> 4], digits[b & 15]};
  return out;
}

// A frame as a server sends it: unmasked.
std::string server_frame(uint8_t first_byte, const std::string& payload) {
  std::string out{static_cast<char>(first_byte)};
  if (payload.size() < 126) {
    out.push_back(static_cast<char>(payload.size()));
  } else {
    out.push_back(126);
    out.push_back(static_cast<char>(payload.size() >> 8));
    out.push_back(static_cast<char>(payload.size() & 0xFF));
  }
  return out + payload;
}

TEST(CodexSha1, KnownDigests) {
  EXPECT_EQ(hex(sha1("abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(hex(sha1("")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(hex(sha1("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
}

TEST(CodexWebSocket, AcceptKeyOfTheRfcExample) {
  EXPECT_EQ(ws::accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(CodexWebSocket, ClientFramesAreMasked) {
  const std::string frame = ws::encode_frame(ws::text, "Hello", {0x37, 0xfa, 0x21, 0x3d});
  // RFC 6455 §5.7: a masked "Hello".
  EXPECT_EQ(frame, std::string("\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58", 11));
  const std::string big = ws::encode_frame(ws::text, std::string(70000, 'x'), {1, 2, 3, 4});
  EXPECT_EQ(static_cast<uint8_t>(big[1]), 0x80 | 127);
  EXPECT_EQ(big.size(), 2 + 8 + 4 + 70000u);
}

TEST(CodexWebSocket, TakesWholeFramesOnly) {
  std::string buffer = server_frame(0x81, std::string(300, 'a'));
  std::string partial = buffer.substr(0, 100);
  EXPECT_FALSE(ws::take_frame(partial, 1 << 20).has_value());
  auto frame = ws::take_frame(buffer, 1 << 20);
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(frame->payload.size(), 300u);
  EXPECT_TRUE(buffer.empty());
}

TEST(CodexWebSocket, FragmentsAndControlFramesAreParsed) {
  std::string buffer = server_frame(0x01, "{\"a\":") + server_frame(0x89, "hb") + server_frame(0x80, "1}");
  auto first = ws::take_frame(buffer, 1 << 20);
  auto ping = ws::take_frame(buffer, 1 << 20);
  auto last = ws::take_frame(buffer, 1 << 20);
  ASSERT_TRUE(first && ping && last);
  EXPECT_FALSE(first->fin);
  EXPECT_EQ(first->opcode, ws::text);
  EXPECT_EQ(ping->opcode, ws::ping);
  EXPECT_EQ(ping->payload, "hb");
  EXPECT_TRUE(last->fin);
  EXPECT_EQ(last->opcode, ws::continuation);
  EXPECT_EQ(first->payload + last->payload, "{\"a\":1}");
}

TEST(CodexWebSocket, RejectsWhatAServerMustNotSend) {
  std::string reserved = server_frame(0xC1, "x");
  EXPECT_THROW(ws::take_frame(reserved, 1 << 20), std::runtime_error);
  std::string fragmented_ping = server_frame(0x09, "x");
  EXPECT_THROW(ws::take_frame(fragmented_ping, 1 << 20), std::runtime_error);
  std::string too_big = server_frame(0x81, std::string(200, 'x'));
  EXPECT_THROW(ws::take_frame(too_big, 100), std::runtime_error);
}

}  // namespace
}  // namespace agentry::codex
