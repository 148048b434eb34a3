#include "store/attachment_repository.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::read;
using testing::write;

core::Attachment make_attachment(const std::string& id, const std::string& run_id, const std::string& sha256,
                                 std::uint64_t size, const std::string& created_at = "2024-01-01T00:00:00.000Z") {
  core::Attachment a;
  a.id = id;
  a.run_id = run_id;
  a.run_group_id = "group-" + run_id;
  a.name = id + ".txt";
  a.sha256 = sha256;
  a.size = size;
  a.content_type = "text/plain";
  a.created_at = created_at;
  return a;
}

class AttachmentRepositoryTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    write(db(), [](store::Transaction& c) {
      for (const char* id : {"runA", "runB"}) c.runs().insert(make_run(id));
    });
  }

  void insert(const std::vector<core::Attachment>& attachments) {
    write(db(), [&](store::Transaction& c) {
      for (const auto& a : attachments) c.attachments().insert(a);
    });
  }

  static std::vector<std::string> ids_of(const std::vector<core::Attachment>& attachments) {
    std::vector<std::string> out;
    for (const auto& a : attachments) out.push_back(a.id);
    return out;
  }

  using V = std::vector<std::string>;
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(AttachmentRepositoryTest);

TEST_P(AttachmentRepositoryTest, GetReturnsEveryFieldOnlyThroughItsRunOrGroup) {
  auto big = make_attachment("att_1", "runA", "aaaa", 5'000'000'000ull);  // more than 32 bits
  big.run_group_id = "shared";
  insert({big});
  auto back = read(db(), [](store::Transaction& c) { return c.attachments().get("runA", "att_1"); });
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->id, "att_1");
  EXPECT_EQ(back->run_id, "runA");
  EXPECT_EQ(back->run_group_id, "shared");
  EXPECT_EQ(back->name, "att_1.txt");
  EXPECT_EQ(back->sha256, "aaaa");
  EXPECT_EQ(back->size, 5'000'000'000ull);
  EXPECT_EQ(back->content_type, "text/plain");
  EXPECT_EQ(back->created_at, "2024-01-01T00:00:00.000Z");
  EXPECT_FALSE(read(db(), [](store::Transaction& c) { return c.attachments().get("runB", "att_1"); }));
  EXPECT_TRUE(read(db(), [](store::Transaction& c) { return c.attachments().get_in_group("shared", "att_1"); }));
  EXPECT_FALSE(read(db(), [](store::Transaction& c) { return c.attachments().get_in_group("group-runA", "att_1"); }));
}

TEST_P(AttachmentRepositoryTest, ListsAreOldestFirstThenById) {
  auto in_group = [](core::Attachment a) {
    a.run_group_id = "shared";
    return a;
  };
  insert({in_group(make_attachment("att_b", "runA", "s1", 1, "2024-01-02T00:00:00.000Z")),
          in_group(make_attachment("att_c", "runA", "s2", 1, "2024-01-01T00:00:00.000Z")),
          in_group(make_attachment("att_a", "runB", "s3", 1, "2024-01-02T00:00:00.000Z")),
          make_attachment("att_d", "runA", "s4", 1, "2024-01-03T00:00:00.000Z")});
  EXPECT_EQ(ids_of(read(db(), [](store::Transaction& c) { return c.attachments().list_for_run("runA"); })),
            (V{"att_c", "att_b", "att_d"}));
  EXPECT_EQ(ids_of(read(db(), [](store::Transaction& c) { return c.attachments().list_for_group("shared"); })),
            (V{"att_c", "att_a", "att_b"}));
  EXPECT_TRUE(read(db(), [](store::Transaction& c) { return c.attachments().list_for_group("nobody"); }).empty());
}

TEST_P(AttachmentRepositoryTest, TotalsCountAndSumAPerRun) {
  insert({make_attachment("att_1", "runA", "s1", 100), make_attachment("att_2", "runA", "s2", 5'000'000'000ull),
          make_attachment("att_3", "runB", "s3", 7)});
  auto totals = read(db(), [](store::Transaction& c) { return c.attachments().totals_for_run("runA"); });
  EXPECT_EQ(totals.count, 2);
  EXPECT_EQ(totals.bytes, 5'000'000'100ull);
  write(db(), [](store::Transaction& c) { c.runs().insert(make_run("runC")); });
  auto none = read(db(), [](store::Transaction& c) { return c.attachments().totals_for_run("runC"); });
  EXPECT_EQ(none.count, 0);
  EXPECT_EQ(none.bytes, 0u);
}

TEST_P(AttachmentRepositoryTest, EveryReadOfARunCountsItsAttachments) {
  insert({make_attachment("att_1", "runA", "s1", 1), make_attachment("att_2", "runA", "s2", 2),
          make_attachment("att_3", "runB", "s3", 3)});
  auto run = read(db(), [](store::Transaction& c) { return c.runs().get("runA"); });
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->attachment_count, 2);
  auto page = read(db(), [](store::Transaction& c) { return c.runs().list(core::RunQuery{}); });
  ASSERT_EQ(page.runs.size(), 2u);
  for (const auto& r : page.runs) EXPECT_EQ(r.attachment_count, r.id == "runA" ? 2 : 1) << r.id;
  write(db(), [](store::Transaction& c) { c.attachments().remove("att_3"); });
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.runs().get("runB"); })->attachment_count, 0);
}

TEST_P(AttachmentRepositoryTest, ContentIsReferencedUntilItsLastRowGoes) {
  insert({make_attachment("att_1", "runA", "same", 3), make_attachment("att_2", "runB", "same", 3),
          make_attachment("att_3", "runB", "other", 5)});
  auto references = [&](const std::string& sha) {
    return read(db(), [&](store::Transaction& c) { return c.attachments().references(sha); });
  };
  auto referenced = [&] { return read(db(), [](store::Transaction& c) { return c.attachments().referenced(); }); };
  EXPECT_EQ(references("same"), 2);
  EXPECT_EQ(references("none"), 0);
  EXPECT_EQ(referenced(), (std::set<std::string>{"other", "same"}));
  write(db(), [](store::Transaction& c) { c.attachments().remove("att_1"); });
  EXPECT_EQ(references("same"), 1);
  EXPECT_FALSE(read(db(), [](store::Transaction& c) { return c.attachments().get("runA", "att_1"); }));
  write(db(), [](store::Transaction& c) { c.runs().remove("runB"); });
  EXPECT_EQ(references("same"), 0) << "deleting the run deletes its rows";
  EXPECT_TRUE(referenced().empty());
}

}  // namespace
}  // namespace agentry::sqlite_store
