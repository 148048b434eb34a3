#include "store/project_trust_repository.hpp"

#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using store::ProjectTrustRecord;
using testing::read;
using testing::write;

ProjectTrustRecord record(const std::string& dir, const std::string& digest) {
  return {dir, digest, "2024-01-01T00:00:00.000Z", "cli"};
}

class ProjectTrustRepositoryTest : public testing::StoreTest {
 protected:
  void put(const std::vector<ProjectTrustRecord>& records) {
    write(db(), [&](store::Transaction& c) {
      for (const auto& r : records) c.project_trust().put(r);
    });
  }

  std::optional<ProjectTrustRecord> get(const std::string& dir) {
    return read(db(), [&](store::Transaction& c) { return c.project_trust().get(dir); });
  }

  std::vector<std::string> dirs() {
    std::vector<std::string> out;
    for (const auto& r : read(db(), [](store::Transaction& c) { return c.project_trust().list(); }))
      out.push_back(r.project_dir);
    return out;
  }

  using V = std::vector<std::string>;
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(ProjectTrustRepositoryTest);

TEST_P(ProjectTrustRepositoryTest, PutThenGetReturnsEveryField) {
  EXPECT_FALSE(get("/work/a").has_value());
  put({{"/work/a", "sha256:1", "2024-02-03T04:05:06.007Z", "api"}});
  auto back = get("/work/a");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->project_dir, "/work/a");
  EXPECT_EQ(back->digest, "sha256:1");
  EXPECT_EQ(back->trusted_at, "2024-02-03T04:05:06.007Z");
  EXPECT_EQ(back->trusted_by, "api");
  EXPECT_FALSE(get("/work/a/").has_value()) << "directories match exactly";
}

TEST_P(ProjectTrustRepositoryTest, PutReplacesTheDirectorysRecord) {
  put({record("/work/a", "sha256:1"), record("/work/b", "sha256:2")});
  put({{"/work/a", "sha256:3", "2024-05-05T00:00:00.000Z", "api"}});
  auto back = get("/work/a");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->digest, "sha256:3");
  EXPECT_EQ(back->trusted_at, "2024-05-05T00:00:00.000Z");
  EXPECT_EQ(back->trusted_by, "api");
  EXPECT_EQ(get("/work/b")->digest, "sha256:2");
  EXPECT_EQ(dirs(), (V{"/work/a", "/work/b"}));
}

TEST_P(ProjectTrustRepositoryTest, RemoveSaysWhetherThereWasARecord) {
  put({record("/work/a", "sha256:1"), record("/work/b", "sha256:2")});
  bool removed = false, again = true;
  write(db(), [&](store::Transaction& c) {
    removed = c.project_trust().remove("/work/a");
    again = c.project_trust().remove("/work/a");
  });
  EXPECT_TRUE(removed);
  EXPECT_FALSE(again);
  EXPECT_FALSE(get("/work/a").has_value());
  EXPECT_EQ(dirs(), (V{"/work/b"}));
}

TEST_P(ProjectTrustRepositoryTest, ListIsByDirectoryInByteOrder) {
  EXPECT_TRUE(dirs().empty());
  put({record("/work/b", "d"), record("/work/B", "d"), record("/work/a-b", "d"), record("/work/a/b", "d"),
       record("/work/\xc3\xa9", "d"), record("/work/a", "d")});
  // Bytes, whatever the database's locale: uppercase first, '-' before '/', UTF-8 last.
  EXPECT_EQ(dirs(), (V{"/work/B", "/work/a", "/work/a-b", "/work/a/b", "/work/b", "/work/\xc3\xa9"}));
}

}  // namespace
}  // namespace agentry::sqlite_store
