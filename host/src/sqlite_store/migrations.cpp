#include "sqlite_store/migrations.hpp"

#include "core/log.hpp"

#include <array>
#include <string_view>

namespace agentry::sqlite_store {
namespace {

// Never edit a migration that has shipped; append a new one.
constexpr std::array<std::string_view, 18> migrations{
    // 1: the initial schema. Later issues fill some of these tables; they exist now so
    // that the data model is whole from the first release.
    R"sql(
CREATE TABLE runs (
  id                    TEXT PRIMARY KEY,
  status                TEXT NOT NULL,
  status_reason         TEXT NOT NULL DEFAULT '',
  created_at            TEXT NOT NULL,
  updated_at            TEXT NOT NULL,
  started_at            TEXT,
  finished_at           TEXT,
  cwd                   TEXT NOT NULL,
  repo_root             TEXT NOT NULL DEFAULT '',
  run_group_id          TEXT NOT NULL,
  parent_run_id         TEXT,
  name                  TEXT,
  note                  TEXT,
  pinned                INTEGER NOT NULL DEFAULT 0,
  archived              INTEGER NOT NULL DEFAULT 0,
  archived_at           TEXT,
  agent_name            TEXT NOT NULL,
  assignment_name       TEXT NOT NULL,
  backend               TEXT NOT NULL,
  backend_session_id    TEXT,
  controller_id         TEXT NOT NULL DEFAULT '',
  session_count         INTEGER NOT NULL DEFAULT 0,
  attempt_count         INTEGER NOT NULL DEFAULT 0,
  revision              INTEGER NOT NULL DEFAULT 0,
  frozen_json           TEXT NOT NULL,
  initial_snapshot_json TEXT,
  next_timeline_cursor  INTEGER NOT NULL DEFAULT 1,
  next_audit_cursor     INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX runs_by_created ON runs(created_at DESC, id DESC);
CREATE INDEX runs_by_cwd ON runs(cwd, created_at DESC, id DESC);
CREATE INDEX runs_by_repo ON runs(repo_root, created_at DESC, id DESC);
CREATE INDEX runs_by_group ON runs(run_group_id, created_at DESC, id DESC);
CREATE INDEX runs_by_status ON runs(status);
CREATE INDEX runs_by_parent ON runs(parent_run_id);

CREATE TABLE sessions (
  run_id             TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  session_index      INTEGER NOT NULL,
  status             TEXT NOT NULL,
  started_at         TEXT NOT NULL,
  ended_at           TEXT,
  backend_session_id TEXT,
  end_reason         TEXT NOT NULL DEFAULT '',
  prompt             TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, session_index)
) WITHOUT ROWID;

CREATE TABLE attempts (
  run_id           TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  attempt_number   INTEGER NOT NULL,
  session_index    INTEGER NOT NULL,
  index_in_session INTEGER NOT NULL,
  started_at       TEXT NOT NULL,
  ended_at         TEXT,
  outcome          TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, attempt_number)
) WITHOUT ROWID;

CREATE TABLE tasks (
  run_id     TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  task_id    TEXT NOT NULL,
  position   INTEGER NOT NULL,
  title      TEXT NOT NULL,
  body       TEXT NOT NULL DEFAULT '',
  status     TEXT NOT NULL,
  notes      TEXT NOT NULL DEFAULT '',
  source     TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (run_id, task_id)
) WITHOUT ROWID;

CREATE TABLE timeline_events (
  run_id         TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  cursor         INTEGER NOT NULL,
  kind           TEXT NOT NULL,
  attempt_number INTEGER,
  at             TEXT NOT NULL,
  payload_json   TEXT NOT NULL,
  PRIMARY KEY (run_id, cursor)
) WITHOUT ROWID;

CREATE TABLE audit_events (
  run_id    TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  cursor    INTEGER NOT NULL,
  type      TEXT NOT NULL,
  actor     TEXT NOT NULL,
  at        TEXT NOT NULL,
  data_json TEXT NOT NULL,
  PRIMARY KEY (run_id, cursor)
) WITHOUT ROWID;

CREATE TABLE queued_messages (
  id          TEXT PRIMARY KEY,
  run_id      TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  text        TEXT NOT NULL,
  source_json TEXT NOT NULL DEFAULT '{}',
  created_at  TEXT NOT NULL
);
CREATE INDEX queued_messages_by_run ON queued_messages(run_id, created_at);

CREATE TABLE dependencies (
  run_id     TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  dep_type   TEXT NOT NULL CHECK (dep_type IN ('run', 'group')),
  target     TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, dep_type, target)
) WITHOUT ROWID;
CREATE INDEX dependencies_by_target ON dependencies(dep_type, target);

CREATE TABLE schedules (
  run_id     TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  kind       TEXT NOT NULL CHECK (kind IN ('once', 'recurring')),
  spec_json  TEXT NOT NULL,
  enabled    INTEGER NOT NULL DEFAULT 1,
  next_at    TEXT,
  last_at    TEXT,
  updated_at TEXT NOT NULL
);
CREATE INDEX schedules_due ON schedules(enabled, next_at);

CREATE TABLE attachments (
  id           TEXT PRIMARY KEY,
  run_id       TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  run_group_id TEXT NOT NULL,
  name         TEXT NOT NULL,
  sha256       TEXT NOT NULL,
  size         INTEGER NOT NULL,
  content_type TEXT NOT NULL DEFAULT 'application/octet-stream',
  created_at   TEXT NOT NULL
);
CREATE INDEX attachments_by_run ON attachments(run_id);
CREATE INDEX attachments_by_group ON attachments(run_group_id);
)sql",
    // 2: queued messages and the retry loop. A session records who ended it (the user,
    // a shutdown, the host), so startup knows which queues to deliver; queued messages
    // are delivered in rowid (insertion) order, which created_at cannot promise when it
    // ties or the wall clock steps back.
    R"sql(
ALTER TABLE sessions ADD COLUMN ended_by TEXT NOT NULL DEFAULT '';
DROP INDEX queued_messages_by_run;
CREATE INDEX queued_messages_by_run ON queued_messages(run_id);
)sql",
    // 3: per-run tokens. With auth on, an agent gets a token that reaches only its own
    // run; only its SHA-256 is kept, from the session's launch until it ends.
    R"sql(
CREATE TABLE run_tokens (
  token_sha256 TEXT PRIMARY KEY,
  run_id       TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  created_at   TEXT NOT NULL
);
CREATE INDEX run_tokens_by_run ON run_tokens(run_id);
)sql",
    // 4: schedules remember what their last occurrence did (started a run, was skipped
    // or missed, and why) beside the due times of migration 1's table.
    R"sql(
ALTER TABLE schedules ADD COLUMN state_json TEXT NOT NULL DEFAULT '{}';
)sql",
    // 5: parent-completion notifications. A detached child's session records one for its
    // parent (state pending), delivered once when that session ends (delivered or skipped,
    // with a reason). Sessions keep structured source metadata ({kind: "child_completion",
    // childRunId, childSessionIndex, childSessionStartedAt} for a parent resumed by one),
    // so a delivery can be recognised after a crash.
    R"sql(
CREATE TABLE parent_notifications (
  child_run_id        TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  child_session_index INTEGER NOT NULL,
  parent_run_id       TEXT NOT NULL,
  state               TEXT NOT NULL,
  reason              TEXT NOT NULL DEFAULT '',
  delivery            TEXT NOT NULL DEFAULT '',
  created_at          TEXT NOT NULL,
  updated_at          TEXT NOT NULL,
  delivered_at        TEXT,
  PRIMARY KEY (child_run_id, child_session_index)
) WITHOUT ROWID;
CREATE INDEX parent_notifications_by_state ON parent_notifications(state);
ALTER TABLE sessions ADD COLUMN source_json TEXT NOT NULL DEFAULT '{}';
)sql",
    // 6: the notification outbox. A run's end or its wait for the user writes one row
    // per target in the same transaction as the change itself; the serving daemon
    // delivers them (up to 3 attempts) and records each attempt here, so a restart
    // resumes where the last daemon stopped. (idempotency_key, target_index) is unique:
    // one event is never queued twice for one target.
    R"sql(
CREATE TABLE notification_outbox (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id          TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  event           TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  target_index    INTEGER NOT NULL,
  target_json     TEXT NOT NULL,
  payload_json    TEXT NOT NULL,
  state           TEXT NOT NULL DEFAULT 'pending',
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_ms INTEGER NOT NULL,
  last_error      TEXT NOT NULL DEFAULT '',
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  delivered_at    TEXT,
  UNIQUE (idempotency_key, target_index)
);
CREATE INDEX notification_outbox_due ON notification_outbox(state, next_attempt_ms);
CREATE INDEX notification_outbox_by_run ON notification_outbox(run_id);
)sql",
    // 7: a run's diffstat (files, additions, deletions since its workspace baseline) as
    // of its last attempt's end, JSON; NULL until then or outside a git work tree.
    R"sql(
ALTER TABLE runs ADD COLUMN diffstat_json TEXT;
)sql",
    // 8: lifecycle hook executions, compact (core/hook.hpp HookAudit): RunDetail shows
    // the latest of them (hookAudits) and derives each hook's last outcome (hookState).
    R"sql(
CREATE TABLE hook_audits (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id      TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  hook_id     TEXT NOT NULL,
  phase       TEXT NOT NULL,
  outcome     TEXT NOT NULL,
  message     TEXT NOT NULL DEFAULT '',
  duration_ms INTEGER NOT NULL,
  exit_code   INTEGER,
  stderr      TEXT NOT NULL DEFAULT '',
  truncated   INTEGER NOT NULL DEFAULT 0,
  created_at  TEXT NOT NULL
);
CREATE INDEX hook_audits_by_run ON hook_audits(run_id, id);
-- The run's own git worktree (the git-worktree hook), JSON {repoRoot, path, branch,
-- baseCommit}; NULL when it has none. Read when the run is deleted, to remove it.
ALTER TABLE runs ADD COLUMN worktree_json TEXT;
)sql",
    // 9: projects whose .agentry/ the user trusts (engine/project_trust.hpp), each with
    // the digest of its definition files when trusted: a change to them needs trust again.
    R"sql(
CREATE TABLE project_trust (
  project_dir TEXT PRIMARY KEY,
  digest      TEXT NOT NULL,
  trusted_at  TEXT NOT NULL,
  trusted_by  TEXT NOT NULL
);
)sql",
    // 10: the daemons serving this store and their heartbeats (engine/membership/);
    // heartbeat_ms is the database's clock in epoch milliseconds.
    R"sql(
CREATE TABLE daemons (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  host          TEXT NOT NULL,
  pid           INTEGER NOT NULL,
  advertise_url TEXT NOT NULL DEFAULT '',
  labels        TEXT NOT NULL DEFAULT '',
  capacity      INTEGER NOT NULL DEFAULT 0,
  live_runs     INTEGER NOT NULL DEFAULT 0,
  version       TEXT NOT NULL,
  started_at    TEXT NOT NULL,
  heartbeat_ms  INTEGER NOT NULL
);
)sql",
    // 11: who drives each running run, until when (store/lease_repository.hpp), and what
    // other members ask of it (store/run_request_repository.hpp) and the approvals it
    // waits on (store/approval_repository.hpp).
    R"sql(
CREATE TABLE run_leases (
  run_id      TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  owner       TEXT NOT NULL,
  held        INTEGER NOT NULL DEFAULT 1,
  epoch       INTEGER NOT NULL,
  expires_ms  INTEGER NOT NULL
);
CREATE INDEX run_leases_by_owner ON run_leases(owner);
CREATE TABLE run_requests (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id        TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  kind          TEXT NOT NULL,
  payload_json  TEXT NOT NULL,
  created_at    TEXT NOT NULL
);
CREATE INDEX run_requests_by_run ON run_requests(run_id, id);
CREATE TABLE run_approvals (
  run_id        TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  approval_id   TEXT NOT NULL,
  kind          TEXT NOT NULL,
  summary       TEXT NOT NULL,
  details_json  TEXT NOT NULL,
  requested_at  TEXT NOT NULL,
  PRIMARY KEY (run_id, approval_id)
);
)sql",
    // 12: where members have working directories, and the starts that wait for a member
    // able to take them (core/placement.hpp, store/run_start_repository.hpp).
    R"sql(
ALTER TABLE daemons ADD COLUMN workspace_roots TEXT NOT NULL DEFAULT '';
CREATE TABLE run_starts (
  run_id     TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  message    TEXT,
  trigger    TEXT NOT NULL,
  actor      TEXT NOT NULL,
  automatic  INTEGER NOT NULL DEFAULT 0,
  since      TEXT NOT NULL
);
CREATE INDEX run_starts_by_age ON run_starts(since, run_id);
)sql",
    // 13: the state a run's module hooks keep (their `mutate.state`), a JSON object;
    // NULL until a hook sets some (engine/hooks/module_hook.hpp).
    R"sql(
ALTER TABLE runs ADD COLUMN hook_data_json TEXT;
)sql",
    // 14: the dedup keys of inbound trigger deliveries (store/trigger_delivery_repository.hpp):
    // the primary key makes a claim atomic. No foreign key: the key is claimed before
    // the run is written, and it outlives the run (a redelivery still starts nothing).
    R"sql(
CREATE TABLE trigger_deliveries (
  trigger_name TEXT NOT NULL,
  dedup_key    TEXT NOT NULL,
  run_id       TEXT NOT NULL,
  received_at  TEXT NOT NULL,
  PRIMARY KEY (trigger_name, dedup_key)
);
)sql",
    // 15: the tokens runs used (store/usage_repository.hpp): increments summed per run,
    // session, attempt, model ('' when unknown) and day, and the run's totals by model.
    R"sql(
CREATE TABLE run_usage (
  run_id          TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  session_index   INTEGER NOT NULL,
  attempt_number  INTEGER NOT NULL,
  model           TEXT NOT NULL,
  day             TEXT NOT NULL,
  input_tokens    INTEGER NOT NULL DEFAULT 0,
  cached_tokens   INTEGER NOT NULL DEFAULT 0,
  output_tokens   INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, session_index, attempt_number, model, day)
);
CREATE INDEX run_usage_by_day ON run_usage(day);
ALTER TABLE runs ADD COLUMN usage_json TEXT;
)sql",
    // 16: the timeline as one row per committed batch of a run's events
    // (store/timeline_batches.hpp); each older row becomes a batch of one, packed alike.
    R"sql(
CREATE TABLE timeline_batches (
  run_id        TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  last_cursor   INTEGER NOT NULL,
  first_cursor  INTEGER NOT NULL,
  first_attempt INTEGER,
  last_attempt  INTEGER,
  events        TEXT NOT NULL,
  PRIMARY KEY (run_id, last_cursor)
) WITHOUT ROWID;
INSERT INTO timeline_batches (run_id, last_cursor, first_cursor, first_attempt, last_attempt, events)
  SELECT run_id, cursor, cursor, attempt_number, attempt_number,
         length(CAST(kind AS BLOB)) || ':' || kind || length(CAST(at AS BLOB)) || ':' || at ||
         COALESCE(attempt_number, '') || ';' || length(CAST(payload_json AS BLOB)) || ':' || payload_json
  FROM timeline_events;
DROP TABLE timeline_events;
)sql",
    // 17: timeline_batches with a rowid. A row holds up to 256 KiB of events, and a table
    // WITHOUT ROWID keeps whole rows in its key's b-tree: each insert compared its key with
    // neighbouring rows read whole from their overflow pages. Now the key is a small
    // index and the events are read only when asked for.
    R"sql(
CREATE TABLE timeline_batches_by_rowid (
  run_id        TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  last_cursor   INTEGER NOT NULL,
  first_cursor  INTEGER NOT NULL,
  first_attempt INTEGER,
  last_attempt  INTEGER,
  events        TEXT NOT NULL,
  UNIQUE (run_id, last_cursor, first_cursor)  -- a page's rows are found in the index alone
);
INSERT INTO timeline_batches_by_rowid (run_id, last_cursor, first_cursor, first_attempt, last_attempt, events)
  SELECT run_id, last_cursor, first_cursor, first_attempt, last_attempt, events FROM timeline_batches;
DROP TABLE timeline_batches;
ALTER TABLE timeline_batches_by_rowid RENAME TO timeline_batches;
)sql",
    // 18: the few frozen inputs a run summary shows, beside the whole (store/frozen_summary.hpp):
    // a listing reads these instead of every run's whole inputs. Rows written before keep
    // NULL until they are next written, and are listed from the whole as before.
    R"sql(
ALTER TABLE runs ADD COLUMN frozen_summary_json TEXT;
)sql",
};

int read_version(Connection& c) {
  auto stmt = c.prepare("PRAGMA user_version");
  return stmt.step() ? stmt.column_int(0) : 0;
}

}  // namespace

int latest_schema_version() { return static_cast<int>(migrations.size()); }

int schema_version(Connection& c) { return read_version(c); }

core::Result<void> migrate(Connection& c, const std::filesystem::path& path, int target) {
  if (target <= 0 || target > latest_schema_version()) target = latest_schema_version();
  return guard([&]() -> core::Result<void> {
    int version = read_version(c);
    if (version > latest_schema_version()) {
      return core::fail(core::ErrorCode::internal,
                        "database " + path.string() + " has schema version " + std::to_string(version) +
                            ", newer than this agentry understands (" + std::to_string(latest_schema_version()) +
                            "); upgrade agentry, or set AGENTRY_HOME to another directory");
    }
    if (version >= target) return core::ok();
    // Every step in one transaction: an upgrade applies whole or not at all, and a new
    // store is one commit (one sync) rather than one per step.
    c.exec("BEGIN IMMEDIATE");
    int from = version;
    try {
      // Another process (a CLI beside the daemon) may have applied some while this one
      // waited for the write lock.
      from = read_version(c);
      for (int next = from + 1; next <= target; ++next) c.exec(migrations[static_cast<std::size_t>(next - 1)]);
      if (from < target) c.exec("PRAGMA user_version = " + std::to_string(target));
      c.exec("COMMIT");
    } catch (...) {
      c.exec("ROLLBACK");
      throw;
    }
    for (int next = from + 1; next <= target; ++next)
      core::log_info("applied database migration", {{"version", std::to_string(next)}, {"path", path.string()}});
    return core::ok();
  });
}

}  // namespace agentry::sqlite_store
