#include "events/frame.hpp"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace agentry::events {
namespace {
namespace json = boost::json;

EnvelopeFields fields_of(std::int64_t cursor, const std::string& payload) {
  return {"run-1", cursor, "notice", 2, "2026-12-06T04:15:00.123Z", payload};
}

TEST(TimelineFrame, IsAnSseFrameAroundTheEnvelope) {
  auto frame = timeline_frame(fields_of(7, R"({"text":"a \"quoted\" line"})"), 7);
  EXPECT_EQ(frame->cursor, 7);
  EXPECT_EQ(frame->text.substr(0, 15), "id: 7\ndata: {\"r");
  EXPECT_EQ(frame->text.substr(frame->text.size() - 2), "\n\n");
  auto envelope = json::parse(frame->json()).as_object();
  EXPECT_EQ(envelope.at("runId"), "run-1");
  EXPECT_EQ(envelope.at("cursor"), 7);
  EXPECT_EQ(envelope.at("attemptNumber"), 2);
  EXPECT_EQ(envelope.at("at"), "2026-12-06T04:15:00.123Z");
  EXPECT_EQ(envelope.at("payload").at("text"), "a \"quoted\" line");
}

TEST(TimelineFrame, EscapesTextsThatNeedItAndWritesTheRestAsTheyAre) {
  // Plain texts take a path without escapes; a kind with a quote and a control character
  // takes the escaping one. Both must say the same in JSON.
  const std::string tricky_kind = "odd\"kind\x01\\";
  for (const auto& kind : {std::string("notice"), tricky_kind}) {
    for (bool ephemeral : {false, true}) {
      EnvelopeFields f{"run-1", ephemeral ? 0 : 9, kind, std::nullopt, "2026-12-06T04:15:00.123Z", ""};
      f.conflated = ephemeral;
      auto frame = timeline_frame(f, f.cursor);
      auto envelope = json::parse(frame->json()).as_object();
      EXPECT_EQ(envelope.at("kind").as_string(), kind);
      EXPECT_EQ(envelope.at("runId"), "run-1");
      EXPECT_TRUE(envelope.at("attemptNumber").is_null());
      EXPECT_TRUE(envelope.at("payload").as_object().empty());  // an empty payload is {}
      if (ephemeral) {
        EXPECT_TRUE(envelope.at("cursor").is_null());
        EXPECT_EQ(envelope.at("ephemeral"), true);
        EXPECT_EQ(envelope.at("conflated"), true);
      } else {
        EXPECT_EQ(envelope.at("cursor"), 9);
        EXPECT_FALSE(envelope.contains("ephemeral"));
      }
    }
  }
}

TEST(FramePacker, WritesTheSameFramesAsOneAtATimeAcrossSeveralBlocks) {
  // Enough frames of mixed sizes to fill several blocks, and two frames too large for one
  // (each gets a block of its own).
  std::vector<std::string> payloads;
  for (int i = 0; i < 600; ++i)
    payloads.push_back(R"({"n":)" + std::to_string(i) + R"(,"text":")" + std::string(static_cast<std::size_t>(i % 97), 'x') +
                       R"("})");
  payloads[100] = R"({"text":")" + std::string(20'000, 'y') + R"("})";
  payloads[400] = R"({"text":")" + std::string(9'000, 'z') + R"("})";
  std::vector<Frame> packed(payloads.size());
  {
    FramePacker packer;
    for (std::size_t i = 0; i < payloads.size(); ++i)
      packer.add(&packed[i], fields_of(static_cast<std::int64_t>(i) + 1, payloads[i]), static_cast<std::int64_t>(i) + 1);
  }  // the destructor flushes what is left
  for (std::size_t i = 0; i < payloads.size(); ++i) {
    ASSERT_TRUE(packed[i]) << i;
    auto alone = timeline_frame(fields_of(static_cast<std::int64_t>(i) + 1, payloads[i]), static_cast<std::int64_t>(i) + 1);
    EXPECT_EQ(packed[i]->text, alone->text) << i;
    EXPECT_EQ(packed[i]->json(), alone->json()) << i;
    EXPECT_EQ(packed[i]->cursor, alone->cursor) << i;
  }
  // Frames share blocks: far fewer owners than frames. The frames outlive the packer.
  std::size_t shared = 0;
  for (std::size_t i = 1; i < packed.size(); ++i)
    if (!packed[i].owner_before(packed[i - 1]) && !packed[i - 1].owner_before(packed[i])) ++shared;
  EXPECT_GT(shared, packed.size() * 9 / 10);
  EXPECT_EQ(packed[100].use_count(), 1);  // the large one stands alone
}

TEST(FramePacker, FlushFillsTheSlotsSoFarAndAFrameOutlivesItsNeighbours) {
  Frame first;
  Frame second;
  {
    FramePacker packer;
    packer.add(&first, fields_of(1, R"({"a":1})"), 1);
    EXPECT_FALSE(first);  // not before the flush
    packer.flush();
    ASSERT_TRUE(first);
    packer.add(&second, fields_of(0, R"({"b":2})"), 0);
  }
  ASSERT_TRUE(second);
  EXPECT_EQ(second->cursor, 0);
  EXPECT_EQ(second->text.substr(0, 6), "data: ");  // no id: an ephemeral event is not resumable
  Frame kept = first;
  first.reset();
  EXPECT_EQ(json::parse(kept->json()).at("payload").at("a"), 1);
}

TEST(FramePacker, OneAtATimePerThread) {
  FramePacker packer;
  EXPECT_THROW(FramePacker{}, std::logic_error);
}

}  // namespace
}  // namespace agentry::events
