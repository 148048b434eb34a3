// A module hook's `mutate.attachments` as read from its result
// (engine/hooks/hook_attachments.hpp): agent-runner's {add, remove, replace}, and
// malformed changes refused naming the member.
#include "engine/hooks/module_hook.hpp"

#include <boost/json.hpp>

#include <gtest/gtest.h>

namespace agentry::engine {
namespace {
namespace json = boost::json;

ModuleVerdict with_attachments(std::string_view changes) {
  return map_module_result(core::HookPhase::after_attempt,
                           json::parse(std::string(R"({"action": "continue", "mutate": {"attachments": )") +
                                       std::string(changes) + "}}"));
}

TEST(HookAttachments, AddRemoveAndReplaceAreRead) {
  auto v = with_attachments(R"({
      "add": [{"sourcePath": "out/report.md"}, {"sourcePath": "/tmp/a.png", "name": "shot.png", "mimeType": "image/png"}],
      "remove": ["att-1"],
      "replace": [{"attachmentId": "att-2", "sourcePath": "b.txt", "name": "b2.txt"}]})");
  ASSERT_FALSE(v.failure) << *v.failure;
  ASSERT_EQ(v.attachments.add.size(), 2u);
  EXPECT_EQ(v.attachments.add[0].source_path, "out/report.md");
  EXPECT_EQ(v.attachments.add[0].name, "");
  EXPECT_EQ(v.attachments.add[1].name, "shot.png");
  EXPECT_EQ(v.attachments.add[1].mime_type, "image/png");
  EXPECT_EQ(v.attachments.remove, std::vector<std::string>{"att-1"});
  ASSERT_EQ(v.attachments.replace.size(), 1u);
  EXPECT_EQ(v.attachments.replace[0].attachment_id, "att-2");
  EXPECT_EQ(v.attachments.replace[0].name, "b2.txt");
  EXPECT_FALSE(v.attachments.replace[0].mime_type);
  EXPECT_TRUE(with_attachments("{}").attachments.empty());
}

TEST(HookAttachments, MalformedChangesFailNamingTheMember) {
  auto failure = [](std::string_view changes) { return with_attachments(changes).failure.value_or(""); };
  EXPECT_NE(failure(R"([])").find("mutate.attachments must be an object"), std::string::npos);
  EXPECT_NE(failure(R"({"move": []})").find("mutate.attachments.move is not a member"), std::string::npos);
  EXPECT_NE(failure(R"({"add": {}})").find("mutate.attachments.add must be a list"), std::string::npos);
  EXPECT_NE(failure(R"({"add": [{"name": "x"}]})").find("add[0].sourcePath is required"), std::string::npos);
  EXPECT_NE(failure(R"({"add": [{"sourcePath": "a", "size": 3}]})").find("add[0].size is not a member"),
            std::string::npos);
  EXPECT_NE(failure(R"({"remove": [3]})").find("remove[0] must be an attachment id"), std::string::npos);
  EXPECT_NE(failure(R"({"replace": [{"sourcePath": "a"}]})").find("replace[0].attachmentId is required"),
            std::string::npos);
  EXPECT_NE(failure(R"({"replace": [{"attachmentId": "x", "sourcePath": "a", "name": 1}]})")
                .find("replace[0].name must be a string"),
            std::string::npos);
  std::string many = R"({"remove": [)";
  for (int i = 0; i < 101; ++i) many += (i ? ", " : "") + std::string("\"att-") + std::to_string(i) + "\"";
  EXPECT_NE(failure(many + "]}").find("at most 100"), std::string::npos);
}

}  // namespace
}  // namespace agentry::engine
