#include "pg_store/migrations.hpp"

#include "core/log.hpp"

#include <array>
#include <string>
#include <string_view>

namespace agentry::pg_store {
namespace {

// Never edit a migration that has shipped; append a new one.
//
// Migration 1 is sqlite_store's schema after its migration 9, table for table and index
// for index, in PostgreSQL's dialect. What changed in translation, and why:
// - INTEGER is bigint (SQLite's integers are 64-bit); 0/1 flags are boolean.
// - AUTOINCREMENT ids are identity columns: never reused, as AUTOINCREMENT promises.
// - Timestamps stay ISO-8601 text and JSON stays text, so both read back byte for byte
//   as the engine wrote them (jsonb would reorder keys and drop duplicates) and order
//   as they do in SQLite.
// - Text in a key or an index, or sorted or compared by range (ids, timestamps, paths
//   of keyset pages), is COLLATE "C": SQLite compares bytes, and so must PostgreSQL,
//   whatever locale the database was created with, or pages would skip and repeat rows.
// - queued_messages gains seq: SQLite delivers queued messages in rowid order, and
//   PostgreSQL has no rowid; its index is (run_id, seq) to serve that order.
constexpr std::array<std::string_view, 9> migrations{
    R"sql(
CREATE TABLE runs (
  id                    text COLLATE "C" PRIMARY KEY,
  status                text COLLATE "C" NOT NULL,
  status_reason         text NOT NULL DEFAULT '',
  created_at            text COLLATE "C" NOT NULL,
  updated_at            text COLLATE "C" NOT NULL,
  started_at            text COLLATE "C",
  finished_at           text COLLATE "C",
  cwd                   text COLLATE "C" NOT NULL,
  repo_root             text COLLATE "C" NOT NULL DEFAULT '',
  run_group_id          text COLLATE "C" NOT NULL,
  parent_run_id         text COLLATE "C",
  name                  text,
  note                  text,
  pinned                boolean NOT NULL DEFAULT false,
  archived              boolean NOT NULL DEFAULT false,
  archived_at           text COLLATE "C",
  agent_name            text NOT NULL,
  assignment_name       text NOT NULL,
  backend               text NOT NULL,
  backend_session_id    text,
  controller_id         text NOT NULL DEFAULT '',
  session_count         bigint NOT NULL DEFAULT 0,
  attempt_count         bigint NOT NULL DEFAULT 0,
  revision              bigint NOT NULL DEFAULT 0,
  frozen_json           text NOT NULL,
  initial_snapshot_json text,
  next_timeline_cursor  bigint NOT NULL DEFAULT 1,
  next_audit_cursor     bigint NOT NULL DEFAULT 1,
  diffstat_json         text,
  worktree_json         text
);
CREATE INDEX runs_by_created ON runs(created_at DESC, id DESC);
CREATE INDEX runs_by_cwd ON runs(cwd, created_at DESC, id DESC);
CREATE INDEX runs_by_repo ON runs(repo_root, created_at DESC, id DESC);
CREATE INDEX runs_by_group ON runs(run_group_id, created_at DESC, id DESC);
CREATE INDEX runs_by_status ON runs(status);
CREATE INDEX runs_by_parent ON runs(parent_run_id);

CREATE TABLE sessions (
  run_id             text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  session_index      bigint NOT NULL,
  status             text NOT NULL,
  started_at         text COLLATE "C" NOT NULL,
  ended_at           text COLLATE "C",
  backend_session_id text,
  end_reason         text NOT NULL DEFAULT '',
  prompt             text NOT NULL DEFAULT '',
  ended_by           text NOT NULL DEFAULT '',
  source_json        text NOT NULL DEFAULT '{}',
  PRIMARY KEY (run_id, session_index)
);

CREATE TABLE attempts (
  run_id           text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  attempt_number   bigint NOT NULL,
  session_index    bigint NOT NULL,
  index_in_session bigint NOT NULL,
  started_at       text COLLATE "C" NOT NULL,
  ended_at         text COLLATE "C",
  outcome          text NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, attempt_number)
);

CREATE TABLE tasks (
  run_id     text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  task_id    text COLLATE "C" NOT NULL,
  position   bigint NOT NULL,
  title      text NOT NULL,
  body       text NOT NULL DEFAULT '',
  status     text NOT NULL,
  notes      text NOT NULL DEFAULT '',
  source     text NOT NULL DEFAULT '',
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (run_id, task_id)
);

CREATE TABLE timeline_events (
  run_id         text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  cursor         bigint NOT NULL,
  kind           text NOT NULL,
  attempt_number bigint,
  at             text COLLATE "C" NOT NULL,
  payload_json   text NOT NULL,
  PRIMARY KEY (run_id, cursor)
);

CREATE TABLE audit_events (
  run_id    text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  cursor    bigint NOT NULL,
  type      text NOT NULL,
  actor     text NOT NULL,
  at        text COLLATE "C" NOT NULL,
  data_json text NOT NULL,
  PRIMARY KEY (run_id, cursor)
);

CREATE TABLE queued_messages (
  id          text COLLATE "C" PRIMARY KEY,
  run_id      text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq         bigint GENERATED ALWAYS AS IDENTITY,
  text        text NOT NULL,
  source_json text NOT NULL DEFAULT '{}',
  created_at  text COLLATE "C" NOT NULL
);
CREATE INDEX queued_messages_by_run ON queued_messages(run_id, seq);

CREATE TABLE dependencies (
  run_id     text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  dep_type   text COLLATE "C" NOT NULL CHECK (dep_type IN ('run', 'group')),
  target     text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (run_id, dep_type, target)
);
CREATE INDEX dependencies_by_target ON dependencies(dep_type, target);

CREATE TABLE schedules (
  run_id     text COLLATE "C" PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  kind       text NOT NULL CHECK (kind IN ('once', 'recurring')),
  spec_json  text NOT NULL,
  enabled    boolean NOT NULL DEFAULT true,
  next_at    text COLLATE "C",
  last_at    text COLLATE "C",
  updated_at text COLLATE "C" NOT NULL,
  state_json text NOT NULL DEFAULT '{}'
);
CREATE INDEX schedules_due ON schedules(enabled, next_at);

CREATE TABLE attachments (
  id           text COLLATE "C" PRIMARY KEY,
  run_id       text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  run_group_id text COLLATE "C" NOT NULL,
  name         text NOT NULL,
  sha256       text NOT NULL,
  size         bigint NOT NULL,
  content_type text NOT NULL DEFAULT 'application/octet-stream',
  created_at   text COLLATE "C" NOT NULL
);
CREATE INDEX attachments_by_run ON attachments(run_id);
CREATE INDEX attachments_by_group ON attachments(run_group_id);

CREATE TABLE run_tokens (
  token_sha256 text COLLATE "C" PRIMARY KEY,
  run_id       text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  created_at   text COLLATE "C" NOT NULL
);
CREATE INDEX run_tokens_by_run ON run_tokens(run_id);

CREATE TABLE parent_notifications (
  child_run_id        text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  child_session_index bigint NOT NULL,
  parent_run_id       text COLLATE "C" NOT NULL,
  state               text COLLATE "C" NOT NULL,
  reason              text NOT NULL DEFAULT '',
  delivery            text NOT NULL DEFAULT '',
  created_at          text COLLATE "C" NOT NULL,
  updated_at          text COLLATE "C" NOT NULL,
  delivered_at        text COLLATE "C",
  PRIMARY KEY (child_run_id, child_session_index)
);
CREATE INDEX parent_notifications_by_state ON parent_notifications(state);

CREATE TABLE notification_outbox (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id          text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  event           text NOT NULL,
  idempotency_key text COLLATE "C" NOT NULL,
  target_index    bigint NOT NULL,
  target_json     text NOT NULL,
  payload_json    text NOT NULL,
  state           text COLLATE "C" NOT NULL DEFAULT 'pending',
  attempts        bigint NOT NULL DEFAULT 0,
  next_attempt_ms bigint NOT NULL,
  last_error      text NOT NULL DEFAULT '',
  created_at      text COLLATE "C" NOT NULL,
  updated_at      text COLLATE "C" NOT NULL,
  delivered_at    text COLLATE "C",
  UNIQUE (idempotency_key, target_index)
);
CREATE INDEX notification_outbox_due ON notification_outbox(state, next_attempt_ms);
CREATE INDEX notification_outbox_by_run ON notification_outbox(run_id);

CREATE TABLE hook_audits (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id      text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  hook_id     text NOT NULL,
  phase       text NOT NULL,
  outcome     text NOT NULL,
  message     text NOT NULL DEFAULT '',
  duration_ms bigint NOT NULL,
  exit_code   bigint,
  stderr      text NOT NULL DEFAULT '',
  truncated   boolean NOT NULL DEFAULT false,
  created_at  text COLLATE "C" NOT NULL
);
CREATE INDEX hook_audits_by_run ON hook_audits(run_id, id);

CREATE TABLE project_trust (
  project_dir text COLLATE "C" PRIMARY KEY,
  digest      text NOT NULL,
  trusted_at  text COLLATE "C" NOT NULL,
  trusted_by  text NOT NULL
);
)sql",
    // 2 = sqlite_store's migration 10: the daemons serving the store (engine/membership/).
    R"sql(
CREATE TABLE daemons (
  id            text COLLATE "C" PRIMARY KEY,
  name          text COLLATE "C" NOT NULL,
  host          text NOT NULL,
  pid           bigint NOT NULL,
  advertise_url text NOT NULL DEFAULT '',
  labels        text NOT NULL DEFAULT '',
  capacity      bigint NOT NULL DEFAULT 0,
  live_runs     bigint NOT NULL DEFAULT 0,
  version       text NOT NULL,
  started_at    text COLLATE "C" NOT NULL,
  heartbeat_ms  bigint NOT NULL
);
)sql",
    // 3 = sqlite_store's migration 11: who drives each running run, until when, and what
    // other members ask of it, and the approvals it waits on.
    R"sql(
CREATE TABLE run_leases (
  run_id      text COLLATE "C" PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  owner       text COLLATE "C" NOT NULL,
  held        boolean NOT NULL DEFAULT true,
  epoch       bigint NOT NULL,
  expires_ms  bigint NOT NULL
);
CREATE INDEX run_leases_by_owner ON run_leases(owner);
CREATE TABLE run_requests (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id        text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  kind          text NOT NULL,
  payload_json  text NOT NULL,
  created_at    text COLLATE "C" NOT NULL
);
CREATE INDEX run_requests_by_run ON run_requests(run_id, id);
CREATE TABLE run_approvals (
  run_id        text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  approval_id   text COLLATE "C" NOT NULL,
  kind          text NOT NULL,
  summary       text NOT NULL,
  details_json  text NOT NULL,
  requested_at  text COLLATE "C" NOT NULL,
  PRIMARY KEY (run_id, approval_id)
);
)sql",
    // 4 = sqlite_store's migration 12: members' workspace roots, and the starts waiting
    // for a member able to take them.
    R"sql(
ALTER TABLE daemons ADD COLUMN workspace_roots text NOT NULL DEFAULT '';
CREATE TABLE run_starts (
  run_id     text COLLATE "C" PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  message    text,
  trigger    text NOT NULL,
  actor      text NOT NULL,
  automatic  boolean NOT NULL DEFAULT false,
  since      text COLLATE "C" NOT NULL
);
CREATE INDEX run_starts_by_age ON run_starts(since, run_id);
)sql",
    // 5 = sqlite_store's migration 13: the state a run's module hooks keep.
    R"sql(
ALTER TABLE runs ADD COLUMN hook_data_json text;
)sql",
    // 6 = sqlite_store's migration 14: the dedup keys of inbound trigger deliveries.
    R"sql(
CREATE TABLE trigger_deliveries (
  trigger_name text COLLATE "C" NOT NULL,
  dedup_key    text COLLATE "C" NOT NULL,
  run_id       text COLLATE "C" NOT NULL,
  received_at  text COLLATE "C" NOT NULL,
  PRIMARY KEY (trigger_name, dedup_key)
);
)sql",
    // 7 = sqlite_store's migration 15: the tokens runs used.
    R"sql(
CREATE TABLE run_usage (
  run_id          text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  session_index   integer NOT NULL,
  attempt_number  integer NOT NULL,
  model           text COLLATE "C" NOT NULL,
  day             text COLLATE "C" NOT NULL,
  input_tokens    bigint NOT NULL DEFAULT 0,
  cached_tokens   bigint NOT NULL DEFAULT 0,
  output_tokens   bigint NOT NULL DEFAULT 0,
  reasoning_tokens bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, session_index, attempt_number, model, day)
);
CREATE INDEX run_usage_by_day ON run_usage(day);
ALTER TABLE runs ADD COLUMN usage_json text;
)sql",
    // 8 = sqlite_store's migration 16: the timeline as one row per committed batch.
    R"sql(
CREATE TABLE timeline_batches (
  run_id        text COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  last_cursor   bigint NOT NULL,
  first_cursor  bigint NOT NULL,
  first_attempt bigint,
  last_attempt  bigint,
  events        text NOT NULL,
  PRIMARY KEY (run_id, last_cursor)
);
INSERT INTO timeline_batches (run_id, last_cursor, first_cursor, first_attempt, last_attempt, events)
  SELECT run_id, cursor, cursor, attempt_number, attempt_number,
         octet_length(kind) || ':' || kind || octet_length(at) || ':' || at ||
         COALESCE(attempt_number::text, '') || ';' || octet_length(payload_json) || ':' || payload_json
  FROM timeline_events;
DROP TABLE timeline_events;
)sql",
    // 9 = sqlite_store's migration 18: the frozen inputs a run summary shows.
    R"sql(
ALTER TABLE runs ADD COLUMN frozen_summary_json text COLLATE "C";
)sql",
};

// One key for every agentry database on a server: two daemons migrating different
// databases of one server wait for each other, which is rare and harmless. The number
// is "agentry" in ASCII.
constexpr std::string_view lock_sql = "SELECT pg_advisory_xact_lock(27416758083416697)";

constexpr std::string_view ensure_table_sql = R"sql(
CREATE TABLE IF NOT EXISTS schema_migrations (
  version    integer PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
))sql";

int recorded_version(Connection& c) {
  return static_cast<int>(c.query("SELECT coalesce(max(version), 0) FROM schema_migrations").row(0)[0].int64());
}

// One locked transaction: applies the migration after the recorded version, if it is
// below `target`. Returns the version the database is at when it commits.
int step(Connection& c, int target) {
  c.exec("BEGIN");
  try {
    // Whoever waited here finds the migration a peer applied meanwhile already recorded.
    c.exec(lock_sql);
    c.exec(ensure_table_sql);
    int version = recorded_version(c);
    if (version < target && version < latest_schema_version()) {
      c.exec(migrations[static_cast<std::size_t>(version)]);
      c.query("INSERT INTO schema_migrations (version) VALUES ($1::integer)", {version + 1});
      ++version;
      core::log_info("applied database migration", {{"version", std::to_string(version)}, {"database", c.target()}});
    }
    c.exec("COMMIT");
    return version;
  } catch (...) {
    try {
      c.exec("ROLLBACK");
    } catch (...) {
      // The connection is gone; the server rolled back with it. The first error says why.
    }
    throw;
  }
}

}  // namespace

int latest_schema_version() { return static_cast<int>(migrations.size()); }

int schema_version(Connection& c) {
  if (!c.query("SELECT to_regclass('schema_migrations') IS NOT NULL").row(0)[0].boolean()) return 0;
  return recorded_version(c);
}

core::Result<void> migrate(Connection& c, int target) {
  if (target <= 0 || target > latest_schema_version()) target = latest_schema_version();
  return store::guard([&]() -> core::Result<void> {
    // Each step applies one migration, or finds the database at the target already.
    for (;;) {
      const int reached = step(c, target);
      if (reached > latest_schema_version()) {
        return core::fail(core::ErrorCode::internal,
                          "database " + c.target() + " has schema version " + std::to_string(reached) +
                              ", newer than this agentry understands (" + std::to_string(latest_schema_version()) +
                              "); upgrade agentry, or point it at another database");
      }
      if (reached >= target) return core::ok();
    }
  });
}

}  // namespace agentry::pg_store
