// `agentry attachment add|list|get|rm` in both modes: embedded (the blob store written
// directly) and connected (WebSocket byte streams to the daemon).
#include "cli_fixture.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <random>

namespace agentry::integration {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class AttachmentCliTest : public CliTest {};

TEST_P(AttachmentCliTest, AddListGetAndRemove) {
  auto init = cli({"init", "worker", "-m", "x"});
  ASSERT_EQ(init.code, 0) << init.err;
  const std::string id = init.out.substr(0, init.out.find('\n'));

  std::mt19937 gen(3);
  std::string bytes(3 * 1024 * 1024 + 5, '\0');
  for (auto& c : bytes) c = static_cast<char>(gen() & 0xff);
  {
    std::ofstream(work_ / "input.bin", std::ios::binary) << bytes;
  }
  auto added = cli({"attachment", "add", id, "input.bin", "--name", "report data.bin", "--json"});
  ASSERT_EQ(added.code, 0) << added.out << added.err;
  const auto a = json::parse(added.out).at("attachment").as_object();
  EXPECT_EQ(a.at("name"), "report data.bin");
  EXPECT_EQ(a.at("size").to_number<std::uint64_t>(), bytes.size());
  const std::string att(a.at("attachmentId").as_string());

  auto human = cli({"attachment", "add", id, "input.bin"});
  ASSERT_EQ(human.code, 0) << human.err;
  EXPECT_TRUE(contains(human.out, "added att")) << human.out;
  EXPECT_TRUE(contains(human.out, "input.bin")) << human.out;

  auto listed = cli({"attachment", "list", id});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_TRUE(contains(listed.out, att + "  3.0 MiB  report data.bin")) << listed.out;
  auto listed_json = cli({"attachment", "list", id, "--scope", "run", "--json"});
  ASSERT_EQ(listed_json.code, 0) << listed_json.err;
  EXPECT_EQ(json::parse(listed_json.out).at("attachments").as_array().size(), 2u);

  // get: the attachment's name in the current directory, never over an existing file.
  auto got = cli({"attachment", "get", id, att});
  ASSERT_EQ(got.code, 0) << got.out << got.err;
  EXPECT_TRUE(read_file(work_ / "report data.bin") == bytes);
  auto again = cli({"attachment", "get", id, att});
  EXPECT_NE(again.code, 0);
  EXPECT_TRUE(contains(again.err, "--force")) << again.err;
  EXPECT_EQ(cli({"attachment", "get", id, att, "--force"}).code, 0);
  auto to = cli({"attachment", "get", id, att, "-o", "copy.bin", "--json"});
  ASSERT_EQ(to.code, 0) << to.err;
  EXPECT_EQ(json::parse(to.out).at("path"), json::value((work_ / "copy.bin").string()));
  EXPECT_TRUE(read_file(work_ / "copy.bin") == bytes);
  for (const auto& e : fs::directory_iterator(work_))
    EXPECT_FALSE(contains(e.path().filename().string(), "agentry-partial")) << e.path();

  auto removed = cli({"attachment", "rm", id, att});
  ASSERT_EQ(removed.code, 0) << removed.err;
  EXPECT_TRUE(contains(removed.out, "removed " + att)) << removed.out;
  EXPECT_EQ(json::parse(cli({"attachment", "list", id, "--json"}).out).at("attachments").as_array().size(), 1u);
  auto missing = cli({"attachment", "get", id, att, "-o", "gone.bin"});
  EXPECT_NE(missing.code, 0);
  EXPECT_FALSE(fs::exists(work_ / "gone.bin"));

  // Refusals: a missing file, a bad name, an unknown run.
  EXPECT_EQ(cli({"attachment", "add", id, "nope.bin"}).code, 3);
  EXPECT_NE(cli({"attachment", "add", id, "input.bin", "--name", ".."}).code, 0);
  EXPECT_NE(cli({"attachment", "add", "run_nope", "input.bin"}).code, 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, AttachmentCliTest, ::testing::Values(CliMode::embedded, CliMode::connected),
                         mode_name);

}  // namespace
}  // namespace agentry::integration
