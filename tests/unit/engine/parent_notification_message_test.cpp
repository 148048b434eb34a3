#include "engine/parent_completion/parent_notification_message.hpp"

#include "core/utf8.hpp"

#include <gtest/gtest.h>

namespace agentry::engine {
namespace {

ChildCompletion child(std::vector<std::string> transcript) {
  ChildCompletion c;
  c.child_run_id = "k3x9q0a1bc";
  c.session_index = 1;
  c.status = "success";
  c.status_reason = "all tasks completed";
  c.transcript = std::move(transcript);
  return c;
}

TEST(ParentNotificationMessage, NamesTheChildItsStatusAndHowToInspectIt) {
  const std::string text = parent_completion_message(child({"Done: the flaky test is fixed."}));
  EXPECT_NE(text.find("Child run k3x9q0a1bc ended: success (all tasks completed)"), std::string::npos) << text;
  EXPECT_NE(text.find("Session 1"), std::string::npos) << text;
  EXPECT_NE(text.find("agentry show k3x9q0a1bc"), std::string::npos) << text;
  EXPECT_NE(text.find("agentry logs k3x9q0a1bc"), std::string::npos) << text;
  EXPECT_NE(text.find("Last transcript:\nDone: the flaky test is fixed.\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("[truncated]"), std::string::npos) << text;
}

TEST(ParentNotificationMessage, NamesANamedChildAndSaysWhenNothingWasSaid) {
  auto c = child({});
  c.child_name = "reviewer";
  c.status = "error";
  c.status_reason.clear();
  const std::string text = parent_completion_message(c);
  EXPECT_NE(text.find("Child run k3x9q0a1bc (reviewer) ended: error."), std::string::npos) << text;
  EXPECT_NE(text.find("(the session recorded no assistant message)"), std::string::npos) << text;
}

TEST(ParentNotificationMessage, JoinsTheLastMessagesOldestFirst) {
  const std::string text = parent_completion_message(child({"first", "", "second"}));
  EXPECT_NE(text.find("first\n\nsecond\n"), std::string::npos) << text;
}

TEST(ParentNotificationMessage, KeepsTheEndOfALongTranscriptBehindTheMarker) {
  std::string long_text(10000, 'a');
  long_text += "THE END";
  const std::string text = parent_completion_message(child({long_text}), 4096);
  const auto marker = text.find("Last transcript:\n[truncated]\n");
  ASSERT_NE(marker, std::string::npos) << text.substr(0, 300);
  EXPECT_NE(text.find("THE END\n"), std::string::npos);
  const std::string kept = text.substr(marker + std::string("Last transcript:\n").size());
  EXPECT_LE(kept.size(), 4096u + 1);  // + the final newline
}

TEST(BoundedTranscript, LeavesTextThatFitsAlone) {
  EXPECT_EQ(bounded_transcript("short", 5), "short");
  EXPECT_EQ(bounded_transcript("", 0), "");
}

TEST(BoundedTranscript, NeverCutsACharacterInHalf) {
  // "€" is three bytes: any cut that is not on a boundary must move forward.
  std::string euros;
  for (int i = 0; i < 100; ++i) euros += "\xE2\x82\xAC";
  for (std::size_t limit = 12; limit < 40; ++limit) {
    const std::string out = bounded_transcript(euros, limit);
    ASSERT_EQ(out.rfind("[truncated]\n", 0), 0u) << limit;
    EXPECT_LE(out.size(), limit) << limit;
    EXPECT_TRUE(core::is_valid_utf8(out)) << limit;
    const std::string tail = out.substr(12);
    EXPECT_EQ(tail.size() % 3, 0u) << limit;
    EXPECT_EQ(euros.substr(euros.size() - tail.size()), tail) << limit;
  }
}

TEST(BoundedTranscript, FourByteCharactersAtTheCut) {
  std::string text = "x";
  for (int i = 0; i < 50; ++i) text += "\xF0\x9F\x98\x80";  // 😀
  const std::string out = bounded_transcript(text, 12 + 6);
  EXPECT_EQ(out, "[truncated]\n\xF0\x9F\x98\x80");
}

}  // namespace
}  // namespace agentry::engine
