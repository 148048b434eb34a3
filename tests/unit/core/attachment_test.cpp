#include "core/attachment.hpp"

#include <gtest/gtest.h>

namespace agentry::core {
namespace {

std::string sanitized(std::string_view raw) {
  auto name = sanitize_attachment_name(raw);
  return name ? *name : "<refused: " + name.error().message + ">";
}

TEST(AttachmentName, KeepsTheLastPathComponentOnly) {
  EXPECT_EQ(sanitized("report.pdf"), "report.pdf");
  EXPECT_EQ(sanitized("../../etc/passwd"), "passwd");
  EXPECT_EQ(sanitized("C:\\Users\\me\\notes.txt"), "notes.txt");
  EXPECT_EQ(sanitized("/abs/path/x"), "x");
}

TEST(AttachmentName, DropsControlCharactersAndQuotesAndTrims) {
  EXPECT_EQ(sanitized("  a\r\nb\t\"c\".txt  "), "abc.txt");
  EXPECT_EQ(sanitized(std::string("a\0b", 3)), "ab");
}

TEST(AttachmentName, RefusesWhatNamesNoFile) {
  for (std::string_view bad : {"", "   ", ".", "..", "dir/", "a/..", "\x01\x02"}) {
    auto name = sanitize_attachment_name(bad);
    EXPECT_FALSE(name) << bad;
    if (!name) {
      EXPECT_EQ(name.error().code, ErrorCode::invalid_request);
    }
  }
  EXPECT_FALSE(sanitize_attachment_name("\xff.txt"));  // not UTF-8
}

TEST(AttachmentName, CutsLongNamesOnACharacterBoundary) {
  std::string name;
  for (int i = 0; i < 200; ++i) name += "\xC3\xA9";  // 400 bytes of é
  auto cut = sanitize_attachment_name(name);
  ASSERT_TRUE(cut);
  EXPECT_LE(cut->size(), max_attachment_name_bytes);
  EXPECT_EQ(cut->size() % 2, 0u);
  EXPECT_EQ(cut->size(), 254u);
}

TEST(AttachmentContentType, KeepsTypeSlashSubtypeOnly) {
  EXPECT_EQ(attachment_content_type("text/plain; charset=utf-8"), "text/plain");
  EXPECT_EQ(attachment_content_type("Image/PNG"), "image/png");
  EXPECT_EQ(attachment_content_type("application/vnd.api+json"), "application/vnd.api+json");
  EXPECT_EQ(attachment_content_type(""), "application/octet-stream");
  EXPECT_EQ(attachment_content_type("text/html\r\nX-Evil: 1"), "application/octet-stream");
  EXPECT_EQ(attachment_content_type("nonsense"), "application/octet-stream");
}

}  // namespace
}  // namespace agentry::core
