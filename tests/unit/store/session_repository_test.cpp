#include "store/session_repository.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::open_database;
using testing::read;
using testing::TempDir;
using testing::write;

core::Session make_session(const std::string& run_id, int index, std::string status = "running") {
  core::Session s;
  s.run_id = run_id;
  s.index = index;
  s.status = std::move(status);
  s.started_at = "2024-01-01T00:00:0" + std::to_string(index) + ".000Z";
  s.prompt = "prompt " + std::to_string(index);
  return s;
}

core::Attempt make_attempt(const std::string& run_id, int number, int session_index, int index_in_session) {
  core::Attempt a;
  a.run_id = run_id;
  a.number = number;
  a.session_index = session_index;
  a.index_in_session = index_in_session;
  a.started_at = "2024-01-01T00:00:00.000Z";
  return a;
}

class SessionRepositoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = open_database(dir_.path() / "agentry.db");
    write(*db_, [](store::Transaction& c) {
      for (const char* id : {"runA", "runB", "runC"}) c.runs().insert(make_run(id));
    });
  }

  std::vector<core::Session> list(const std::string& run_id) {
    return read(*db_, [&](store::Transaction& c) { return c.sessions().list(run_id); });
  }
  std::vector<core::Attempt> attempts(const std::string& run_id) {
    return read(*db_, [&](store::Transaction& c) { return c.sessions().list_attempts(run_id); });
  }
  void set_session_count(const std::string& run_id, int count) {
    write(*db_, [&](store::Transaction& c) {
      auto run = c.runs().get(run_id);
      run->session_count = count;
      c.runs().update(*run);
    });
  }

  TempDir dir_;
  std::unique_ptr<SqliteStore> db_;
};

TEST_F(SessionRepositoryTest, InsertGetAndListInIndexOrder) {
  write(*db_, [](store::Transaction& c) {
    c.sessions().insert(make_session("runA", 1, "success"));
    c.sessions().insert(make_session("runA", 0, "error"));
    c.sessions().insert(make_session("runB", 0));
  });
  const auto sessions = list("runA");
  ASSERT_EQ(sessions.size(), 2u);
  EXPECT_EQ(sessions[0].index, 0);
  EXPECT_EQ(sessions[0].status, "error");
  EXPECT_EQ(sessions[1].index, 1);
  EXPECT_EQ(sessions[1].status, "success");
  EXPECT_EQ(sessions[1].prompt, "prompt 1");
  EXPECT_FALSE(sessions[1].ended_at.has_value());
  EXPECT_FALSE(sessions[1].backend_session_id.has_value());

  auto one = read(*db_, [](store::Transaction& c) { return c.sessions().get("runB", 0); });
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->run_id, "runB");
  EXPECT_EQ(one->started_at, "2024-01-01T00:00:00.000Z");
  EXPECT_FALSE(read(*db_, [](store::Transaction& c) { return c.sessions().get("runB", 1); }).has_value());
  EXPECT_TRUE(list("runC").empty());
}

TEST_F(SessionRepositoryTest, UpdateEndsASession) {
  write(*db_, [](store::Transaction& c) { c.sessions().insert(make_session("runA", 0)); });
  core::Session ended = make_session("runA", 0, "success");
  ended.ended_at = "2024-01-01T01:00:00.000Z";
  ended.backend_session_id = "backend-xyz";
  ended.end_reason = "all tasks completed";
  ended.ended_by = "agent";
  write(*db_, [&](store::Transaction& c) { c.sessions().update(ended); });
  auto back = read(*db_, [](store::Transaction& c) { return c.sessions().get("runA", 0); });
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->status, "success");
  EXPECT_EQ(back->ended_at, ended.ended_at);
  EXPECT_EQ(back->backend_session_id, ended.backend_session_id);
  EXPECT_EQ(back->end_reason, "all tasks completed");
  EXPECT_EQ(back->ended_by, "agent");
  EXPECT_EQ(back->prompt, "prompt 0");
}

TEST_F(SessionRepositoryTest, AttemptsInsertUpdateAndListInNumberOrder) {
  write(*db_, [](store::Transaction& c) {
    c.sessions().insert(make_session("runA", 0));
    c.sessions().insert_attempt(make_attempt("runA", 2, 0, 1));
    c.sessions().insert_attempt(make_attempt("runA", 1, 0, 0));
    c.sessions().insert_attempt(make_attempt("runB", 1, 0, 0));
  });
  core::Attempt finished = make_attempt("runA", 1, 0, 0);
  finished.ended_at = "2024-01-01T00:10:00.000Z";
  finished.outcome = "rate_limited";
  write(*db_, [&](store::Transaction& c) { c.sessions().update_attempt(finished); });

  const auto a = attempts("runA");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].number, 1);
  EXPECT_EQ(a[0].ended_at, finished.ended_at);
  EXPECT_EQ(a[0].outcome, "rate_limited");
  EXPECT_EQ(a[1].number, 2);
  EXPECT_EQ(a[1].index_in_session, 1);
  EXPECT_FALSE(a[1].ended_at.has_value());
  EXPECT_EQ(a[1].outcome, "");
  EXPECT_EQ(attempts("runB").size(), 1u);
}

TEST_F(SessionRepositoryTest, LatestReturnsEachRunsCurrentSession) {
  write(*db_, [](store::Transaction& c) {
    for (int i = 0; i < 3; ++i) c.sessions().insert(make_session("runA", i, i < 2 ? "error" : "running"));
    c.sessions().insert(make_session("runB", 0, "success"));
  });
  set_session_count("runA", 3);
  set_session_count("runB", 1);

  auto latest = read(*db_, [](store::Transaction& c) { return c.sessions().latest({"runA", "runB", "runC"}); });
  ASSERT_EQ(latest.size(), 2u);
  ASSERT_TRUE(latest.count("runA"));
  EXPECT_EQ(latest.at("runA").index, 2);
  EXPECT_EQ(latest.at("runA").status, "running");
  EXPECT_EQ(latest.at("runA").run_id, "runA");
  ASSERT_TRUE(latest.count("runB"));
  EXPECT_EQ(latest.at("runB").index, 0);
  EXPECT_EQ(latest.at("runB").status, "success");
  EXPECT_FALSE(latest.count("runC"));

  EXPECT_TRUE(read(*db_, [](store::Transaction& c) { return c.sessions().latest({}); }).empty());
  auto only_b = read(*db_, [](store::Transaction& c) { return c.sessions().latest({"runB"}); });
  EXPECT_EQ(only_b.size(), 1u);
}

TEST_F(SessionRepositoryTest, RemoveAllClearsOneRunsSessionsAndAttempts) {
  write(*db_, [](store::Transaction& c) {
    for (const char* run : {"runA", "runB"}) {
      c.sessions().insert(make_session(run, 0));
      c.sessions().insert_attempt(make_attempt(run, 1, 0, 0));
    }
  });
  write(*db_, [](store::Transaction& c) { c.sessions().remove_all("runA"); });
  EXPECT_TRUE(list("runA").empty());
  EXPECT_TRUE(attempts("runA").empty());
  EXPECT_EQ(list("runB").size(), 1u);
  EXPECT_EQ(attempts("runB").size(), 1u);
}

}  // namespace
}  // namespace agentry::sqlite_store
