#include "store/session_repository.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::query_int;
using testing::read;
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

class SessionRepositoryTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    write(db(), [](store::Transaction& c) {
      for (const char* id : {"runA", "runB", "runC"}) c.runs().insert(make_run(id));
    });
  }

  std::vector<core::Session> list(const std::string& run_id) {
    return read(db(), [&](store::Transaction& c) { return c.sessions().list(run_id); });
  }
  std::vector<core::Attempt> attempts(const std::string& run_id) {
    return read(db(), [&](store::Transaction& c) { return c.sessions().list_attempts(run_id); });
  }
  void set_session_count(const std::string& run_id, int count) {
    write(db(), [&](store::Transaction& c) {
      auto run = c.runs().get(run_id);
      run->session_count = count;
      c.runs().update(*run);
    });
  }
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(SessionRepositoryTest);

TEST_P(SessionRepositoryTest, InsertGetAndListInIndexOrder) {
  write(db(), [](store::Transaction& c) {
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

  auto one = read(db(), [](store::Transaction& c) { return c.sessions().get("runB", 0); });
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->run_id, "runB");
  EXPECT_EQ(one->started_at, "2024-01-01T00:00:00.000Z");
  EXPECT_FALSE(read(db(), [](store::Transaction& c) { return c.sessions().get("runB", 1); }).has_value());
  EXPECT_TRUE(list("runC").empty());
}

TEST_P(SessionRepositoryTest, UpdateEndsASession) {
  write(db(), [](store::Transaction& c) { c.sessions().insert(make_session("runA", 0)); });
  core::Session ended = make_session("runA", 0, "success");
  ended.ended_at = "2024-01-01T01:00:00.000Z";
  ended.backend_session_id = "backend-xyz";
  ended.end_reason = "all tasks completed";
  ended.ended_by = "agent";
  write(db(), [&](store::Transaction& c) { c.sessions().update(ended); });
  auto back = read(db(), [](store::Transaction& c) { return c.sessions().get("runA", 0); });
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->status, "success");
  EXPECT_EQ(back->ended_at, ended.ended_at);
  EXPECT_EQ(back->backend_session_id, ended.backend_session_id);
  EXPECT_EQ(back->end_reason, "all tasks completed");
  EXPECT_EQ(back->ended_by, "agent");
  EXPECT_EQ(back->prompt, "prompt 0");
}

TEST_P(SessionRepositoryTest, AttemptsInsertUpdateAndListInNumberOrder) {
  write(db(), [](store::Transaction& c) {
    c.sessions().insert(make_session("runA", 0));
    c.sessions().insert_attempt(make_attempt("runA", 2, 0, 1));
    c.sessions().insert_attempt(make_attempt("runA", 1, 0, 0));
    c.sessions().insert_attempt(make_attempt("runB", 1, 0, 0));
  });
  core::Attempt finished = make_attempt("runA", 1, 0, 0);
  finished.ended_at = "2024-01-01T00:10:00.000Z";
  finished.outcome = "rate_limited";
  write(db(), [&](store::Transaction& c) { c.sessions().update_attempt(finished); });

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

TEST_P(SessionRepositoryTest, LatestReturnsEachRunsCurrentSession) {
  write(db(), [](store::Transaction& c) {
    for (int i = 0; i < 3; ++i) c.sessions().insert(make_session("runA", i, i < 2 ? "error" : "running"));
    c.sessions().insert(make_session("runB", 0, "success"));
  });
  set_session_count("runA", 3);
  set_session_count("runB", 1);

  auto latest = read(db(), [](store::Transaction& c) { return c.sessions().latest({"runA", "runB", "runC"}); });
  ASSERT_EQ(latest.size(), 2u);
  ASSERT_TRUE(latest.count("runA"));
  EXPECT_EQ(latest.at("runA").index, 2);
  EXPECT_EQ(latest.at("runA").status, "running");
  EXPECT_EQ(latest.at("runA").run_id, "runA");
  ASSERT_TRUE(latest.count("runB"));
  EXPECT_EQ(latest.at("runB").index, 0);
  EXPECT_EQ(latest.at("runB").status, "success");
  EXPECT_FALSE(latest.count("runC"));

  EXPECT_TRUE(read(db(), [](store::Transaction& c) { return c.sessions().latest({}); }).empty());
  auto only_b = read(db(), [](store::Transaction& c) { return c.sessions().latest({"runB"}); });
  EXPECT_EQ(only_b.size(), 1u);
}

TEST_P(SessionRepositoryTest, LatestCarriesItsSessionsAttemptRange) {
  write(db(), [](store::Transaction& c) {
    c.sessions().insert(make_session("runA", 0, "error"));
    c.sessions().insert(make_session("runA", 1, "running"));
    c.sessions().insert_attempt(make_attempt("runA", 1, 0, 0));
    c.sessions().insert_attempt(make_attempt("runA", 2, 0, 1));
    c.sessions().insert_attempt(make_attempt("runA", 3, 1, 0));
    c.sessions().insert_attempt(make_attempt("runA", 4, 1, 1));
    c.sessions().insert_attempt(make_attempt("runA", 5, 1, 2));
    c.sessions().insert(make_session("runB", 0));  // opened, no attempt yet
  });
  set_session_count("runA", 2);
  set_session_count("runB", 1);
  auto latest = read(db(), [](store::Transaction& c) { return c.sessions().latest({"runA", "runB"}); });
  ASSERT_TRUE(latest.count("runA"));
  EXPECT_EQ(latest.at("runA").first_attempt_number, 3);
  EXPECT_EQ(latest.at("runA").last_attempt_number, 5);
  EXPECT_EQ(latest.at("runA").attempt_count, 3);
  ASSERT_TRUE(latest.count("runB"));
  EXPECT_EQ(latest.at("runB").first_attempt_number, 0);
  EXPECT_EQ(latest.at("runB").last_attempt_number, 0);
  EXPECT_EQ(latest.at("runB").attempt_count, 0);
}

TEST_P(SessionRepositoryTest, RemoveAllClearsOneRunsSessionsAndAttempts) {
  write(db(), [](store::Transaction& c) {
    for (const char* run : {"runA", "runB"}) {
      c.sessions().insert(make_session(run, 0));
      c.sessions().insert_attempt(make_attempt(run, 1, 0, 0));
    }
  });
  write(db(), [](store::Transaction& c) { c.sessions().remove_all("runA"); });
  EXPECT_TRUE(list("runA").empty());
  EXPECT_TRUE(attempts("runA").empty());
  EXPECT_EQ(list("runB").size(), 1u);
  EXPECT_EQ(attempts("runB").size(), 1u);
}

TEST_P(SessionRepositoryTest, TheSourceIsKeptAndAnUnreadableOneIsEmpty) {
  core::Session opened = make_session("runA", 0);
  opened.source = {{"kind", "child_completed"}, {"childRunId", "runB"}, {"sessions", boost::json::array{0, 1}}};
  write(db(), [&](store::Transaction& c) {
    c.sessions().insert(opened);
    c.sessions().insert(make_session("runB", 0));
  });
  EXPECT_EQ(list("runA").at(0).source, opened.source);
  EXPECT_TRUE(list("runB").at(0).source.empty());
  write(db(), [](store::Transaction& c) {
    query_int(c, "UPDATE sessions SET source_json = '{\"kind\":' WHERE run_id = 'runA' RETURNING 1");
  });
  EXPECT_TRUE(list("runA").at(0).source.empty());
}

TEST_P(SessionRepositoryTest, LatestLeavesThePromptOut) {
  core::Session s = make_session("runA", 0);
  s.source = {{"kind", "queued_messages"}};
  write(db(), [&](store::Transaction& c) { c.sessions().insert(s); });
  set_session_count("runA", 1);
  auto latest = read(db(), [](store::Transaction& c) { return c.sessions().latest({"runA"}); });
  ASSERT_TRUE(latest.count("runA"));
  EXPECT_EQ(latest.at("runA").prompt, "");
  EXPECT_EQ(latest.at("runA").source, s.source);
  EXPECT_EQ(latest.at("runA").started_at, s.started_at);
}

TEST_P(SessionRepositoryTest, ADuplicateSessionOrAttemptFailsAndKeepsTheFirst) {
  write(db(), [](store::Transaction& c) {
    c.sessions().insert(make_session("runA", 0, "first"));
    c.sessions().insert_attempt(make_attempt("runA", 1, 0, 0));
  });
  EXPECT_THROW(write(db(), [](store::Transaction& c) { c.sessions().insert(make_session("runA", 0, "second")); }),
               std::runtime_error);
  EXPECT_THROW(write(db(), [](store::Transaction& c) { c.sessions().insert_attempt(make_attempt("runA", 1, 0, 5)); }),
               std::runtime_error);
  EXPECT_EQ(list("runA").at(0).status, "first");
  EXPECT_EQ(attempts("runA").at(0).index_in_session, 0);
}

}  // namespace
}  // namespace agentry::sqlite_store
