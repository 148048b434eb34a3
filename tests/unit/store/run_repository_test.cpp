#include "store/run_repository.hpp"

#include "core/clock.hpp"
#include "pg_store/pg_store.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::query_int;
using testing::read;
using testing::write;

/// Every column set to something other than its default.
core::Run full_run(const std::string& id) {
  core::Run r;
  r.id = id;
  r.status = core::RunStatus::blocked;
  r.status_reason = "waiting for review";
  r.created_at = "2024-03-01T10:00:00.000Z";
  r.updated_at = "2024-03-01T11:00:00.000Z";
  r.started_at = "2024-03-01T10:00:01.000Z";
  r.finished_at = "2024-03-01T10:59:59.000Z";
  r.cwd = "/work/repo/sub dir";
  r.repo_root = "/work/repo";
  r.run_group_id = "grp-7";
  r.parent_run_id = "parent0001";
  r.name = "Login form";
  r.note = "check the \"edge\" cases";
  r.pinned = true;
  r.archived = true;
  r.archived_at = "2024-03-02T00:00:00.000Z";
  r.backend_session_id = "sess-123";
  r.controller_id = "daemon-4242-abc123";
  r.session_count = 3;
  r.attempt_count = 5;
  r.revision = 17;
  r.frozen.agent_name = "coder";
  r.frozen.assignment_name = "implement-feature";
  r.frozen.backend = "claude";
  r.frozen.model = "opus";
  r.frozen.timeout_sec = 600;
  r.frozen.unrestricted = false;
  r.frozen.launcher = core::FrozenLauncher{"nice", {"nice", "-n", "5"}, {{"A", "1"}}};
  r.frozen.vars = {{"feature", "login"}};
  r.frozen.task_templates = boost::json::array{boost::json::object{{"id", "t1"}, {"title", "T"}, {"body", ""}}};
  r.frozen.locked_fields = {"tasks"};
  r.frozen.max_attempts_per_session = 2;
  return r;
}

void expect_same_run(const core::Run& a, const core::Run& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.status_reason, b.status_reason);
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.updated_at, b.updated_at);
  EXPECT_EQ(a.started_at, b.started_at);
  EXPECT_EQ(a.finished_at, b.finished_at);
  EXPECT_EQ(a.cwd, b.cwd);
  EXPECT_EQ(a.repo_root, b.repo_root);
  EXPECT_EQ(a.run_group_id, b.run_group_id);
  EXPECT_EQ(a.parent_run_id, b.parent_run_id);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.note, b.note);
  EXPECT_EQ(a.pinned, b.pinned);
  EXPECT_EQ(a.archived, b.archived);
  EXPECT_EQ(a.archived_at, b.archived_at);
  EXPECT_EQ(a.backend_session_id, b.backend_session_id);
  EXPECT_EQ(a.controller_id, b.controller_id);
  EXPECT_EQ(a.session_count, b.session_count);
  EXPECT_EQ(a.attempt_count, b.attempt_count);
  EXPECT_EQ(a.revision, b.revision);
  EXPECT_EQ(core::to_json(a.frozen), core::to_json(b.frozen));
}

std::optional<core::Run> get(store::Store& db, const std::string& id) {
  return read(db, [&](store::Transaction& c) { return c.runs().get(id); });
}

void insert(store::Store& db, const std::vector<core::Run>& runs) {
  write(db, [&](store::Transaction& c) {
    for (const auto& r : runs) c.runs().insert(r);
  });
}

std::vector<std::string> ids_of(const core::RunPage& page) {
  std::vector<std::string> out;
  for (const auto& r : page.runs) out.push_back(r.id);
  return out;
}

/// A second store on the same file or database, as another process would open it.
std::unique_ptr<store::Store> open_again(store::Store& db, testing::Engine engine) {
  if (engine == testing::Engine::sqlite) return testing::open_database(db.describe());
  auto other = pg_store::PgStore::open(db.describe());
  if (!other.ok()) throw std::runtime_error(other.error().message);
  return std::move(other).value();
}

/// Follows next_cursor to the end; returns the ids in the order served and each page's size.
std::vector<std::string> page_through(store::Store& db, core::RunQuery q, std::vector<std::size_t>& sizes) {
  std::vector<std::string> ids;
  for (int guard = 0; guard < 1000; ++guard) {
    core::RunPage page = read(db, [&](store::Transaction& c) { return c.runs().list(q); });
    sizes.push_back(page.runs.size());
    for (const auto& r : page.runs) ids.push_back(r.id);
    if (!page.next_cursor) return ids;
    EXPECT_TRUE(core::is_valid_run_page_cursor(*page.next_cursor)) << *page.next_cursor;
    q.after = page.next_cursor;
  }
  ADD_FAILURE() << "paging did not end";
  return ids;
}

/// The ids of `runs` in listing order: created_at DESC, then id DESC.
std::vector<std::string> expected_order(std::vector<core::Run> runs) {
  std::sort(runs.begin(), runs.end(), [](const core::Run& a, const core::Run& b) {
    return a.created_at != b.created_at ? a.created_at > b.created_at : a.id > b.id;
  });
  std::vector<std::string> out;
  for (const auto& r : runs) out.push_back(r.id);
  return out;
}

class RunRepositoryTest : public testing::StoreTest {};
AGENTRY_STORE_TEST_ON_EVERY_ENGINE(RunRepositoryTest);

class RunRepositoryListTest : public testing::StoreTest {};
AGENTRY_STORE_TEST_ON_EVERY_ENGINE(RunRepositoryListTest);

TEST_P(RunRepositoryTest, InsertThenGetReturnsEveryColumn) {
  const core::Run run = full_run("full000001");
  insert(db(), {run});
  auto back = get(db(), run.id);
  ASSERT_TRUE(back.has_value());
  expect_same_run(*back, run);
}

TEST_P(RunRepositoryTest, AbsentOptionalColumnsComeBackAbsent) {
  const core::Run run = make_run("plain00001");
  insert(db(), {run});
  auto back = get(db(), run.id);
  ASSERT_TRUE(back.has_value());
  expect_same_run(*back, run);
  EXPECT_FALSE(back->started_at.has_value());
  EXPECT_FALSE(back->finished_at.has_value());
  EXPECT_FALSE(back->parent_run_id.has_value());
  EXPECT_FALSE(back->name.has_value());
  EXPECT_FALSE(back->note.has_value());
  EXPECT_FALSE(back->archived_at.has_value());
  EXPECT_FALSE(back->backend_session_id.has_value());
  EXPECT_EQ(back->controller_id, "");
  EXPECT_FALSE(back->frozen.launcher.has_value());
}

TEST_P(RunRepositoryTest, UpdateWritesEveryColumn) {
  insert(db(), {make_run("upd0000001")});
  const core::Run changed = full_run("upd0000001");
  bool updated = false;
  write(db(), [&](store::Transaction& c) { updated = c.runs().update(changed); });
  EXPECT_TRUE(updated);
  auto back = get(db(), changed.id);
  ASSERT_TRUE(back.has_value());
  expect_same_run(*back, changed);

  // And back again: optional columns can be cleared.
  const core::Run cleared = make_run("upd0000001");
  write(db(), [&](store::Transaction& c) { updated = c.runs().update(cleared); });
  EXPECT_TRUE(updated);
  back = get(db(), cleared.id);
  ASSERT_TRUE(back.has_value());
  expect_same_run(*back, cleared);
}

TEST_P(RunRepositoryTest, UpdateOfAMissingRunReturnsFalseAndCreatesNothing) {
  insert(db(), {make_run("exists0001")});
  bool updated = true;
  write(db(), [&](store::Transaction& c) { updated = c.runs().update(full_run("missing001")); });
  EXPECT_FALSE(updated);
  EXPECT_FALSE(get(db(), "missing001").has_value());
  EXPECT_TRUE(get(db(), "exists0001").has_value());
}

TEST_P(RunRepositoryTest, GetOfAMissingRunIsEmpty) {
  EXPECT_FALSE(get(db(), "nothing").has_value());
}

TEST_P(RunRepositoryTest, InsertingADuplicateIdFailsAndKeepsTheOriginal) {
  core::Run original = make_run("dup0000001");
  original.status_reason = "original";
  insert(db(), {original});
  core::Run copy = make_run("dup0000001");
  copy.status_reason = "copy";
  EXPECT_THROW(insert(db(), {copy}), std::runtime_error);
  EXPECT_EQ(get(db(), "dup0000001")->status_reason, "original");
}

TEST_P(RunRepositoryTest, RemoveDeletesOnlyThatRun) {
  insert(db(), {make_run("gone000001"), make_run("stay000001")});
  bool removed = false, removed_again = true;
  write(db(), [&](store::Transaction& c) {
    removed = c.runs().remove("gone000001");
    removed_again = c.runs().remove("gone000001");
  });
  EXPECT_TRUE(removed);
  EXPECT_FALSE(removed_again);
  EXPECT_FALSE(get(db(), "gone000001").has_value());
  EXPECT_TRUE(get(db(), "stay000001").has_value());
}

class RunListing : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    auto add = [&](const std::string& id, const std::string& created, const std::string& cwd,
                   const std::string& repo, const std::string& group, bool archived) {
      core::Run r = make_run(id, created);
      r.cwd = cwd;
      r.repo_root = repo;
      r.run_group_id = group;
      r.archived = archived;
      runs_.push_back(r);
    };
    add("r1", "2024-01-01T00:00:01.000Z", "/a", "/repo", "g1", false);
    add("r2", "2024-01-01T00:00:02.000Z", "/b", "/repo", "g1", false);
    add("r3", "2024-01-01T00:00:03.000Z", "/a", "/other", "g2", false);
    add("r4", "2024-01-01T00:00:04.000Z", "/a", "/repo", "g1", true);
    add("r5", "2024-01-01T00:00:05.000Z", "/a/deeper", "", "g3", false);
    insert(db(), runs_);
  }

  std::vector<std::string> list(core::RunQuery::Scope scope, std::string value, bool include_archived) {
    core::RunQuery q;
    q.scope = scope;
    q.value = std::move(value);
    q.include_archived = include_archived;
    return ids_of(read(db(), [&](store::Transaction& c) { return c.runs().list(q); }));
  }

  using V = std::vector<std::string>;
  std::vector<core::Run> runs_;
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(RunListing);

TEST_P(RunListing, GlobalScopeListsEveryRunNewestFirst) {
  EXPECT_EQ(list(core::RunQuery::Scope::global, "", false), (V{"r5", "r3", "r2", "r1"}));
  EXPECT_EQ(list(core::RunQuery::Scope::global, "", true), (V{"r5", "r4", "r3", "r2", "r1"}));
}

TEST_P(RunListing, CwdScopeMatchesTheDirectoryExactly) {
  EXPECT_EQ(list(core::RunQuery::Scope::cwd, "/a", false), (V{"r3", "r1"}));
  EXPECT_EQ(list(core::RunQuery::Scope::cwd, "/a", true), (V{"r4", "r3", "r1"}));
  EXPECT_EQ(list(core::RunQuery::Scope::cwd, "/nowhere", true), V{});
}

TEST_P(RunListing, RepoScopeMatchesTheRepositoryRoot) {
  EXPECT_EQ(list(core::RunQuery::Scope::repo, "/repo", false), (V{"r2", "r1"}));
  EXPECT_EQ(list(core::RunQuery::Scope::repo, "/repo", true), (V{"r4", "r2", "r1"}));
  EXPECT_EQ(list(core::RunQuery::Scope::repo, "/other", false), (V{"r3"}));
}

TEST_P(RunListing, GroupScopeMatchesTheRunGroup) {
  EXPECT_EQ(list(core::RunQuery::Scope::group, "g1", false), (V{"r2", "r1"}));
  EXPECT_EQ(list(core::RunQuery::Scope::group, "g1", true), (V{"r4", "r2", "r1"}));
  EXPECT_EQ(list(core::RunQuery::Scope::group, "g3", false), (V{"r5"}));
  EXPECT_EQ(list(core::RunQuery::Scope::group, "g9", true), V{});
}

TEST_P(RunListing, ASinglePageHasNoNextCursor) {
  core::RunQuery q;
  q.include_archived = true;
  q.limit = 5;
  auto page = read(db(), [&](store::Transaction& c) { return c.runs().list(q); });
  EXPECT_EQ(page.runs.size(), 5u);
  EXPECT_FALSE(page.next_cursor.has_value());
}

TEST_P(RunRepositoryListTest, OrdersByCreatedAtDescendingThenIdDescending) {
  const std::vector<core::Run> runs{
      make_run("b", "2024-01-02T00:00:00.000Z"), make_run("a", "2024-01-02T00:00:00.000Z"),
      make_run("z", "2024-01-01T00:00:00.000Z"), make_run("c", "2024-01-02T00:00:00.000Z"),
      make_run("y", "2024-01-03T00:00:00.000Z")};
  insert(db(), runs);
  auto page = read(db(), [](store::Transaction& c) { return c.runs().list(core::RunQuery{}); });
  EXPECT_EQ(ids_of(page), (std::vector<std::string>{"y", "c", "b", "a", "z"}));
}

TEST_P(RunRepositoryListTest, KeysetPagingServesEveryRunExactlyOnce) {
  std::vector<core::Run> runs;
  for (int i = 0; i < 250; ++i)
    runs.push_back(make_run("run" + std::to_string(1000 + i), core::format_iso8601(1'700'000'000'000 + i * 1000)));
  std::shuffle(runs.begin(), runs.end(), std::mt19937{7});
  insert(db(), runs);

  core::RunQuery q;
  q.limit = 100;
  std::vector<std::size_t> sizes;
  const auto ids = page_through(db(), q, sizes);
  EXPECT_EQ(sizes, (std::vector<std::size_t>{100, 100, 50}));
  EXPECT_EQ(ids, expected_order(runs));
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 250u);
}

TEST_P(RunRepositoryListTest, AnExactlyFullLastPageHasNoNextCursor) {
  std::vector<core::Run> runs;
  for (int i = 0; i < 200; ++i)
    runs.push_back(make_run("run" + std::to_string(1000 + i), core::format_iso8601(1'700'000'000'000 + i)));
  insert(db(), runs);
  core::RunQuery q;
  q.limit = 100;
  std::vector<std::size_t> sizes;
  const auto ids = page_through(db(), q, sizes);
  EXPECT_EQ(sizes, (std::vector<std::size_t>{100, 100}));
  EXPECT_EQ(ids, expected_order(runs));
}

TEST_P(RunRepositoryListTest, RunsCreatedInTheSameMillisecondArePagedByIdWithoutLossOrRepeat) {
  std::vector<core::Run> runs;
  // 37 runs share one timestamp; a few are older and newer; limit 10 puts page
  // boundaries in the middle of the tie.
  for (int i = 0; i < 37; ++i) runs.push_back(make_run("tie" + std::to_string(100 + i), "2024-05-05T05:05:05.555Z"));
  for (int i = 0; i < 4; ++i) runs.push_back(make_run("old" + std::to_string(i), "2024-05-05T05:05:05.554Z"));
  for (int i = 0; i < 4; ++i) runs.push_back(make_run("new" + std::to_string(i), "2024-05-05T05:05:05.556Z"));
  std::shuffle(runs.begin(), runs.end(), std::mt19937{11});
  insert(db(), runs);

  for (std::size_t limit : {1u, 3u, 10u, 37u, 44u}) {
    core::RunQuery q;
    q.limit = limit;
    std::vector<std::size_t> sizes;
    const auto ids = page_through(db(), q, sizes);
    EXPECT_EQ(ids, expected_order(runs)) << "limit " << limit;
    EXPECT_EQ(sizes.size(), (runs.size() + limit - 1) / limit) << "limit " << limit;
  }
}

TEST_P(RunRepositoryListTest, PagingWithinAScopeSkipsArchivedRuns) {
  std::vector<core::Run> runs, expected;
  for (int i = 0; i < 60; ++i) {
    core::Run r = make_run("s" + std::to_string(100 + i), core::format_iso8601(1'700'000'000'000 + (i / 3) * 10));
    r.cwd = i % 2 == 0 ? "/even" : "/odd";
    r.archived = i % 3 == 0;
    if (r.cwd == "/even" && !r.archived) expected.push_back(r);
    runs.push_back(r);
  }
  insert(db(), runs);
  core::RunQuery q;
  q.scope = core::RunQuery::Scope::cwd;
  q.value = "/even";
  q.limit = 7;
  std::vector<std::size_t> sizes;
  EXPECT_EQ(page_through(db(), q, sizes), expected_order(expected));
}

TEST_P(RunRepositoryListTest, RunsCreatedWhilePagingDoNotShiftLaterPages) {
  std::vector<core::Run> runs;
  for (int i = 0; i < 30; ++i)
    runs.push_back(make_run("k" + std::to_string(100 + i), core::format_iso8601(1'700'000'000'000 + i)));
  insert(db(), runs);
  core::RunQuery q;
  q.limit = 10;
  auto first = read(db(), [&](store::Transaction& c) { return c.runs().list(q); });
  ASSERT_TRUE(first.next_cursor.has_value());
  insert(db(), {make_run("newest", core::format_iso8601(1'800'000'000'000))});
  q.after = first.next_cursor;
  auto second = read(db(), [&](store::Transaction& c) { return c.runs().list(q); });
  const auto order = expected_order(runs);
  EXPECT_EQ(ids_of(second), std::vector<std::string>(order.begin() + 10, order.begin() + 20));
}

TEST_P(RunRepositoryListTest, IdsThatDifferOnlyInCaseArePagedInByteOrder) {
  // SQLite compares text as bytes, and PostgreSQL must too (COLLATE "C") whatever the
  // database's locale, or a page boundary between such ids would skip or repeat runs.
  std::vector<core::Run> runs;
  for (const char* id : {"abc", "ABC", "Abc", "aBc", "abC", "ab_c", "ab-c", "\xC3\xA9" "bc", "zbc"})
    runs.push_back(make_run(id, "2024-05-05T05:05:05.555Z"));
  runs.push_back(make_run("older", "2024-05-05T05:05:05.554Z"));
  insert(db(), runs);
  for (std::size_t limit : {1u, 2u, 4u}) {
    core::RunQuery q;
    q.limit = limit;
    std::vector<std::size_t> sizes;
    EXPECT_EQ(page_through(db(), q, sizes), expected_order(runs)) << "limit " << limit;
  }
}

TEST(RunRepositoryList, PageCursorValidation) {
  EXPECT_TRUE(core::is_valid_run_page_cursor("2024-01-01T00:00:00.000Z|abc"));
  EXPECT_TRUE(core::is_valid_run_page_cursor("a|b"));
  EXPECT_FALSE(core::is_valid_run_page_cursor(""));
  EXPECT_FALSE(core::is_valid_run_page_cursor("no-separator"));
  EXPECT_FALSE(core::is_valid_run_page_cursor("|id-only"));
  EXPECT_FALSE(core::is_valid_run_page_cursor("2024-01-01T00:00:00.000Z|"));
  EXPECT_FALSE(core::is_valid_run_page_cursor("|"));
}

TEST_P(RunRepositoryTest, IdsWithStatus) {
  std::vector<core::Run> runs;
  for (int i = 0; i < 5; ++i) {
    core::Run r = make_run("st" + std::to_string(i));
    r.status = i < 3 ? core::RunStatus::running : core::RunStatus::success;
    runs.push_back(r);
  }
  insert(db(), runs);
  auto running = read(db(), [](store::Transaction& c) { return c.runs().ids_with_status(core::RunStatus::running); });
  std::sort(running.begin(), running.end());
  EXPECT_EQ(running, (std::vector<std::string>{"st0", "st1", "st2"}));
  auto success = read(db(), [](store::Transaction& c) { return c.runs().ids_with_status(core::RunStatus::success); });
  std::sort(success.begin(), success.end());
  EXPECT_EQ(success, (std::vector<std::string>{"st3", "st4"}));
  EXPECT_TRUE(read(db(), [](store::Transaction& c) { return c.runs().ids_with_status(core::RunStatus::error); })
                  .empty());
}

TEST_P(RunRepositoryTest, InitialSnapshotIsStoredPerRun) {
  insert(db(), {make_run("snap000001"), make_run("none000001")});
  write(db(), [](store::Transaction& c) { c.runs().set_initial_snapshot("snap000001", R"({"tasks":[]})"); });
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.runs().initial_snapshot("snap000001"); }),
            std::optional<std::string>(R"({"tasks":[]})"));
  EXPECT_FALSE(read(db(), [](store::Transaction& c) { return c.runs().initial_snapshot("none000001"); }).has_value());
  EXPECT_FALSE(read(db(), [](store::Transaction& c) { return c.runs().initial_snapshot("missing"); }).has_value());
  // Updating the run's other columns keeps its snapshot.
  write(db(), [](store::Transaction& c) { c.runs().update(full_run("snap000001")); });
  EXPECT_TRUE(read(db(), [](store::Transaction& c) { return c.runs().initial_snapshot("snap000001"); }).has_value());
}

TEST_P(RunRepositoryTest, AnUnreadableFrozenRowIsShownDamagedAndKeptAsItWas) {
  insert(db(), {full_run("bad0000001"), make_run("good000001")});
  write(db(), [](store::Transaction& c) {
    query_int(c, "UPDATE runs SET frozen_json = '{\"agentName\": oops' WHERE id = 'bad0000001' RETURNING 1");
  });
  auto bad = get(db(), "bad0000001");
  ASSERT_TRUE(bad.has_value() && bad->damaged.has_value());
  EXPECT_EQ(bad->damaged_frozen_json, "{\"agentName\": oops");
  // What the indexed columns know is still shown, and the listing still serves every run.
  EXPECT_EQ(std::tie(bad->frozen.agent_name, bad->frozen.assignment_name, bad->frozen.backend),
            std::make_tuple("coder", "implement-feature", "claude"));
  core::RunQuery q;
  q.include_archived = true;
  EXPECT_EQ(read(db(), [&](store::Transaction& c) { return c.runs().list(q); }).runs.size(), 2u);
  // Writing the run back keeps the text it had rather than storing empty inputs.
  bad->status_reason = "seen";
  write(db(), [&](store::Transaction& c) { c.runs().update(*bad); });
  EXPECT_EQ(get(db(), "bad0000001")->damaged_frozen_json, bad->damaged_frozen_json);
}

TEST_P(RunRepositoryTest, FrozenInputsThatCouldNotBeReadBackAreRefused) {
  core::Run latin1 = make_run("utf8000001");
  latin1.frozen.vars = {{"feature", "caf\xE9"}};
  EXPECT_THROW(insert(db(), {latin1}), std::runtime_error);
  EXPECT_FALSE(get(db(), latin1.id).has_value());
  insert(db(), {make_run("next000001")});
  EXPECT_TRUE(get(db(), "next000001").has_value());
}

TEST_P(RunRepositoryTest, AListingReadsWhatSummariesShowAndIsNeverWrittenBack) {
  core::Run full = full_run("list000001");
  full.frozen.hooks.resize(2);
  full.frozen.hooks[0].id = "lint";
  full.frozen.hooks[1].id = "test";
  full.frozen.hooks_not_imported = {"afterAttempt:notify (a URL)"};
  insert(db(), {full});
  core::RunQuery q;
  q.include_archived = true;
  auto page = read(db(), [&](store::Transaction& c) { return c.runs().list(q); });
  ASSERT_EQ(page.runs.size(), 1u);
  const auto& listed = page.runs.front();
  EXPECT_TRUE(listed.frozen_summary_only);
  EXPECT_FALSE(listed.damaged.has_value());
  const auto& f = listed.frozen;
  EXPECT_EQ(std::tie(f.agent_name, f.assignment_name, f.backend, f.model, f.max_attempts_per_session),
            std::make_tuple("coder", "implement-feature", "claude", "opus", 2));
  EXPECT_EQ(f.locked_fields, full.frozen.locked_fields);
  EXPECT_EQ(f.hooks_not_imported, full.frozen.hooks_not_imported);
  EXPECT_EQ(f.hooks.size(), 2u);
  EXPECT_TRUE(f.vars.empty()) << "a listing does not read the rest";
  // A run read whole is not marked; a listed one cannot overwrite the stored inputs.
  EXPECT_FALSE(get(db(), "list000001")->frozen_summary_only);
  core::Run changed = listed;
  changed.status_reason = "written from a listing";
  EXPECT_THROW(write(db(), [&](store::Transaction& c) { c.runs().update(changed); }), std::runtime_error);
  expect_same_run(*get(db(), "list000001"), full);
}

TEST_P(RunRepositoryTest, AListingReadsTheSummaryKeptBesideTheWholeOrTheWholeOfAnOlderRow) {
  core::Run run = full_run("sum0000001");
  run.frozen.hooks.resize(1);
  insert(db(), {run, full_run("sum0000002")});
  auto listed = [&](const std::string& id) {
    core::RunQuery q;
    q.include_archived = true;
    for (auto& r : read(db(), [&](store::Transaction& c) { return c.runs().list(q); }).runs)
      if (r.id == id) return r;
    ADD_FAILURE() << id << " is not listed";
    return core::Run{};
  };
  // What the listing shows comes from the summary column: edited there, the edit shows.
  write(db(), [](store::Transaction& c) {
    query_int(c, "UPDATE runs SET frozen_summary_json = '{\"model\": \"from the summary\"}' "
                 "WHERE id = 'sum0000002' RETURNING 1");
  });
  EXPECT_EQ(listed("sum0000002").frozen.model, "from the summary");
  // A row written before rows kept a summary is listed from its whole inputs, alike.
  const auto with_summary = listed("sum0000001");
  write(db(), [](store::Transaction& c) {
    query_int(c, "UPDATE runs SET frozen_summary_json = NULL WHERE id = 'sum0000001' RETURNING 1");
  });
  const auto without = listed("sum0000001");
  for (const auto* r : {&with_summary, &without}) {
    const auto& f = r->frozen;
    EXPECT_TRUE(r->frozen_summary_only);
    EXPECT_EQ(std::tie(f.agent_name, f.assignment_name, f.backend, f.model, f.max_attempts_per_session),
              std::tie(run.frozen.agent_name, run.frozen.assignment_name, run.frozen.backend, run.frozen.model,
                       run.frozen.max_attempts_per_session));
    EXPECT_EQ(f.locked_fields, run.frozen.locked_fields);
    EXPECT_EQ(f.hooks.size(), 1u);
  }
  // Writing the run again gives it its summary back.
  write(db(), [&](store::Transaction& c) { c.runs().update(run); });
  EXPECT_EQ(read(db(), [](store::Transaction& c) {
              return query_int(c, "SELECT count(*) FROM runs WHERE frozen_summary_json IS NOT NULL");
            }),
            2);
}

TEST_P(RunRepositoryTest, DiffstatIsSetAndClearedApartFromUpdate) {
  insert(db(), {make_run("diff000001")});
  auto set = [&](std::optional<core::DiffStat> stat, const char* id = "diff000001") {
    bool found = false;
    write(db(), [&](store::Transaction& c) { found = c.runs().set_diffstat(id, stat); });
    return found;
  };
  EXPECT_TRUE(set(core::DiffStat{3, 40, 5, "2024-03-03T03:03:03.003Z"}));
  EXPECT_FALSE(set(core::DiffStat{}, "nothing"));
  auto back = get(db(), "diff000001");
  ASSERT_TRUE(back->diffstat.has_value());
  EXPECT_EQ(std::tie(back->diffstat->files, back->diffstat->additions, back->diffstat->deletions,
                     back->diffstat->updated_at, back->revision),
            std::make_tuple(3, 40, 5, "2024-03-03T03:03:03.003Z", 1));
  write(db(), [&](store::Transaction& c) { c.runs().update(make_run("diff000001")); });
  EXPECT_TRUE(get(db(), "diff000001")->diffstat.has_value());  // update() leaves it alone
  set(std::nullopt);
  EXPECT_FALSE(get(db(), "diff000001")->diffstat.has_value());
  write(db(), [](store::Transaction& c) {
    query_int(c, "UPDATE runs SET diffstat_json = '{nope' WHERE id = 'diff000001' RETURNING 1");
  });
  EXPECT_FALSE(get(db(), "diff000001")->diffstat.has_value());  // unreadable: shown as none
}

TEST_P(RunRepositoryTest, ChildrenAndRecentlyUpdatedRuns) {
  std::vector<core::Run> runs{make_run("p")};
  const std::pair<const char*, core::RunStatus> children[] = {{"c1", core::RunStatus::running},
                                                              {"c2", core::RunStatus::success},
                                                              {"c3", core::RunStatus::ready},
                                                              {"c4", core::RunStatus::initialized}};
  for (auto [id, status] : children) {
    runs.push_back(make_run(id, std::string("2024-01-01T00:00:0") + id[1] + ".000Z"));
    runs.back().status = status;
    runs.back().parent_run_id = "p";
    runs.back().archived = runs.back().id == "c3";
  }
  insert(db(), runs);
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.runs().count_live_children("p"); }), 2);
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.runs().child_statuses("p"); }),
            (std::vector<std::pair<std::string, std::string>>{
                {"c1", "running"}, {"c2", "success"}, {"c3", "ready"}, {"c4", "initialized"}}));
  EXPECT_TRUE(read(db(), [](store::Transaction& c) { return c.runs().child_statuses("c1"); }).empty());
  auto recent = read(db(), [](store::Transaction& c) {
    return c.runs().revisions_updated_since("2024-01-01T00:00:03.000Z");
  });
  std::sort(recent.begin(), recent.end());
  ASSERT_EQ(recent.size(), 2u);
  EXPECT_EQ(recent[0].first, "c3");
  EXPECT_EQ(recent[1].first, "c4");
  EXPECT_EQ(recent[0].second, runs[2].revision);
}

TEST_P(RunRepositoryTest, AnotherConnectionsCommitMovesTheCommitMark) {
  auto mark = [&] {
    return *db().write<std::int64_t>([](store::Transaction& c) -> core::Result<std::int64_t> {
      return c.runs().others_commit_mark();
    });
  };
  const auto before = mark();
  insert(*open_again(db(), engine()), {make_run("foreign001")});
  EXPECT_NE(mark(), before);
  // SQLite's data_version ignores our own commits; PostgreSQL's mark does not, so there
  // the foreign-change poll also scans after our writes (RunRepository::others_commit_mark).
  const auto settled = mark();
  insert(db(), {make_run("own0000001")});
  if (engine() == testing::Engine::sqlite) EXPECT_EQ(mark(), settled);
  else EXPECT_NE(mark(), settled);
}

}  // namespace
}  // namespace agentry::sqlite_store
