#include "store_import/agent_runner/import_writer.hpp"

#include "store/attachment_repository.hpp"
#include "store/dependency_repository.hpp"
#include "store/event_repository.hpp"
#include "store/hook_audit_repository.hpp"
#include "store/parent_notification_repository.hpp"
#include "store/queued_message_repository.hpp"
#include "store/run_repository.hpp"
#include "store/schedule_repository.hpp"
#include "store/session_repository.hpp"
#include "store/task_repository.hpp"
#include "workspace/blob_store.hpp"

#include <boost/json/serialize.hpp>

#include <array>
#include <fstream>

namespace agentry::store_import::agent_runner {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

std::optional<json::object> find_provenance(store::Transaction& t, const std::string& run_id) {
  core::EventPageQuery page;
  page.limit = 500;
  for (;;) {
    auto events = t.audit().list(run_id, page);
    for (const auto& e : events) {
      if (e.type != "run.imported") continue;
      if (const auto* from = e.data.if_contains("importedFrom"); from && from->is_object()) return from->as_object();
    }
    if (events.size() < page.limit) return std::nullopt;
    page.after = events.back().cursor;
  }
}

std::string text_of(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// Whether the existing run may be left as it is (the same import), or must be refused.
core::Result<WriteOutcome> judge_existing(const ImportedRun& run, const std::optional<json::object>& from) {
  const auto& id = run.run.id;
  const auto manifest = text_of(run.imported_from, "manifest");
  if (!from || text_of(*from, "system") != "agent-runner" || text_of(*from, "manifest") != manifest)
    return core::fail(core::ErrorCode::conflict,
                      "a run " + id + " exists in this store and was not imported from " + manifest + ": it is left as it is",
                      {{"runId", id}, {"field", "runId"}});
  if (text_of(*from, "updatedAt") != text_of(run.imported_from, "updatedAt"))
    return core::fail(core::ErrorCode::conflict,
                      "run " + id + " was imported from " + manifest + " as it was at " + text_of(*from, "updatedAt") +
                          "; the manifest changed since (updatedAt " + text_of(run.imported_from, "updatedAt") +
                          "), and an imported run is never overwritten: delete it first to import it again",
                      {{"runId", id}, {"field", "updatedAt"}});
  return WriteOutcome::already_imported;
}

core::Result<void> store_blob(const workspace::BlobStore& blobs, const ImportedAttachment& a) {
  auto writer = blobs.begin_write();
  if (!writer) return writer.failure();
  std::ifstream in(a.file, std::ios::binary);
  if (!in) return core::fail(core::ErrorCode::not_found, a.file.string() + ": cannot be read");
  std::array<char, 64 * 1024> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    if (in.gcount() <= 0) break;
    if (auto wrote = (*writer)->write(std::string_view(buffer.data(), static_cast<std::size_t>(in.gcount()))); !wrote)
      return wrote.failure();
  }
  auto info = blobs.adopt(std::move(*writer));
  if (!info) return info.failure();
  if (info->sha256 != a.row.sha256)
    return core::fail(core::ErrorCode::validation,
                      a.file.string() + ": its bytes changed while importing (sha256 " + info->sha256 + ")",
                      {{"runId", a.row.run_id}, {"field", "attachments.sha256"}});
  return core::ok();
}

void write_rows(store::Transaction& t, ImportedRun& run) {
  const auto& id = run.run.id;
  t.runs().insert(run.run);
  t.runs().set_initial_snapshot(id, run.initial_snapshot_json);
  for (const auto& task : run.tasks) t.tasks().insert(task);
  for (const auto& session : run.sessions) t.sessions().insert(session);
  for (const auto& attempt : run.attempts) t.sessions().insert_attempt(attempt);
  if (!run.timeline.empty()) t.timeline().append_batch(id, run.timeline);
  for (auto& event : run.audit) t.audit().append(event);
  if (run.schedule) t.schedules().put(*run.schedule);
  for (const auto& d : run.dependencies) t.dependencies().insert(id, d);
  for (const auto& m : run.queued_messages) t.queued_messages().insert(m);
  for (const auto& n : run.parent_notifications) t.parent_notifications().upsert(n);
  for (const auto& a : run.attachments) t.attachments().insert(a.row);
  if (!run.hook_data.empty()) t.hook_data().set(id, boost::json::serialize(run.hook_data));
  if (!run.hook_audits.empty()) t.hook_audits().append(id, run.hook_audits);
}

}  // namespace

core::Result<WriteOutcome> write_imported_run(store::Store& store, const fs::path& blob_dir, ImportedRun& run,
                                              bool dry_run) {
  const auto& id = run.run.id;
  auto existing = store.read([&](store::Transaction& t) -> core::Result<std::optional<std::optional<json::object>>> {
    if (!t.runs().exists(id)) return std::optional<std::optional<json::object>>();
    return std::optional<std::optional<json::object>>(find_provenance(t, id));
  });
  if (!existing) return existing.failure();
  if (*existing) return judge_existing(run, **existing);
  if (dry_run) return WriteOutcome::imported;

  if (!run.attachments.empty()) {
    auto blobs = workspace::BlobStore::open(blob_dir);
    if (!blobs) return blobs.failure();
    for (const auto& a : run.attachments)
      if (auto stored = store_blob(**blobs, a); !stored) return stored.failure();
  }
  return store.write<WriteOutcome>([&](store::Transaction& t) -> core::Result<WriteOutcome> {
    // Checked again inside the write: another import may have taken the id meanwhile.
    if (t.runs().exists(id)) return judge_existing(run, find_provenance(t, id));
    write_rows(t, run);
    return WriteOutcome::imported;
  });
}

}  // namespace agentry::store_import::agent_runner
