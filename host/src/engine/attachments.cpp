#include "engine/attachments.hpp"

#include "core/clock.hpp"
#include "core/ids.hpp"
#include "core/log.hpp"
#include "engine/mutation_support.hpp"
#include "store/attachment_repository.hpp"
#include "store/store.hpp"

#include <fstream>
#include <vector>

namespace agentry::engine {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

json::object audit_data(const core::Attachment& a) {
  return {{"attachmentId", a.id}, {"name", a.name}, {"size", a.size}, {"sha256", a.sha256}};
}

core::Failure attachment_not_found(const std::string& run_id, const std::string& id) {
  return core::fail(core::ErrorCode::not_found, "run " + run_id + " has no attachment '" + id + "'",
                    {{"runId", run_id}, {"attachmentId", id}});
}

}  // namespace

Attachments::Attachments(store::Store& db, events::EventBus& bus, const fs::path& blob_dir)
    : db_(db), bus_(bus) {
  auto blobs = workspace::BlobStore::open(blob_dir);
  if (blobs) blobs_ = std::move(*blobs);
  else blobs_error_ = blobs.error().message;
}

core::Failure Attachments::unavailable() const {
  return core::fail(core::ErrorCode::internal, "attachments are unavailable: " + blobs_error_);
}

core::Result<std::string> Attachments::check_name(const std::string& raw) const {
  return core::sanitize_attachment_name(raw);
}

core::Result<core::Attachment> Attachments::add_spooled(const std::string& run_id, const NewAttachment& what,
                                                        const fs::path& spool_file, const Actor& actor) {
  if (!blobs_) {
    std::error_code ignored;
    fs::remove(spool_file, ignored);
    return unavailable();
  }
  auto blob = blobs_->adopt(spool_file);
  if (!blob) return blob.failure();
  return insert(run_id, what, *blob, actor);
}

core::Result<core::Attachment> Attachments::add_written(const std::string& run_id, const NewAttachment& what,
                                                        std::unique_ptr<workspace::BlobWriter> writer,
                                                        const Actor& actor) {
  if (!blobs_) return unavailable();
  auto blob = blobs_->adopt(std::move(writer));
  if (!blob) return blob.failure();
  return insert(run_id, what, *blob, actor);
}

core::Result<std::unique_ptr<workspace::BlobWriter>> Attachments::read_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return core::fail(core::ErrorCode::invalid_request, "'" + path.string() + "' is not a regular file");
  if (fs::file_size(path, ec) > core::max_attachment_bytes)
    return core::fail(core::ErrorCode::payload_too_large,
                      "an attachment may have at most " + std::to_string(core::max_attachment_bytes) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::fail(core::ErrorCode::invalid_request, "cannot read '" + path.string() + "'");
  auto writer = blobs_->begin_write();
  if (!writer) return writer.failure();
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    if (in.gcount() <= 0) break;
    if (auto ok = (*writer)->write(std::string_view(buffer.data(), static_cast<std::size_t>(in.gcount()))); !ok)
      return ok.failure();
    if ((*writer)->size() > core::max_attachment_bytes) break;  // grew while read: the limit check refuses it
  }
  return std::move(*writer);
}

core::Result<core::Attachment> Attachments::add_file(const std::string& run_id, const fs::path& path,
                                                     const std::string& name, const Actor& actor,
                                                     const std::string& content_type) {
  if (!blobs_) return unavailable();
  if (auto ok = check_name(name); !ok) return ok.failure();
  auto writer = read_file(path);
  if (!writer) return writer.failure();
  return add_written(run_id, {name, content_type}, std::move(*writer), actor);
}

core::Result<core::Attachment> Attachments::replace_file(const std::string& run_id, const std::string& attachment_id,
                                                         const fs::path& path, const std::optional<std::string>& name,
                                                         const std::optional<std::string>& content_type,
                                                         const Actor& actor) {
  if (!blobs_) return unavailable();
  std::optional<std::string> new_name;
  if (name) {
    auto checked = core::sanitize_attachment_name(*name);
    if (!checked) return checked.failure();
    new_name = *checked;
  }
  auto writer = read_file(path);
  if (!writer) return writer.failure();
  auto blob = blobs_->adopt(std::move(*writer));
  if (!blob) return blob.failure();
  if (blob->size > core::max_attachment_bytes)
    return core::fail(core::ErrorCode::payload_too_large,
                      "an attachment may have at most " + std::to_string(core::max_attachment_bytes) + " bytes",
                      {{"limit", core::max_attachment_bytes}, {"size", blob->size}});
  auto replaced = db_.write<core::Attachment>([&](store::Transaction& c) -> core::Result<core::Attachment> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    auto old = c.attachments().get(run_id, attachment_id);
    if (!old) return attachment_not_found(run_id, attachment_id);
    const auto totals = c.attachments().totals_for_run(run_id);
    if (totals.bytes - old->size + blob->size > core::max_attachment_bytes_per_run)
      return core::fail(core::ErrorCode::payload_too_large,
                        "run " + run_id + "'s attachments would exceed " +
                            std::to_string(core::max_attachment_bytes_per_run) + " bytes",
                        {{"runId", run_id}, {"limit", core::max_attachment_bytes_per_run}, {"used", totals.bytes}});
    std::error_code ec;
    if (!fs::exists(blobs_->path_of(blob->sha256), ec))
      return core::fail(core::ErrorCode::internal, "the new content was removed meanwhile; try again");
    core::Attachment a = *old;
    a.name = new_name.value_or(old->name);
    if (content_type) a.content_type = core::attachment_content_type(*content_type);
    a.sha256 = blob->sha256;
    a.size = blob->size;
    a.created_at = core::now_iso8601();
    c.attachments().remove(attachment_id);
    c.attachments().insert(a);
    auto data = audit_data(a);
    data["previousSha256"] = old->sha256;
    detail::save_with_audit(c, *run, "attachment.replaced", actor, std::move(data));
    // As remove() does, in the write job: the old content goes once nothing names it.
    if (!db_.shared() && old->sha256 != a.sha256 && c.attachments().references(old->sha256) == 0)
      blobs_->remove(old->sha256);
    return a;
  });
  if (replaced) bus_.run_changed(run_id);
  return replaced;
}

core::Result<core::Attachment> Attachments::insert(const std::string& run_id, const NewAttachment& what,
                                                   const workspace::BlobInfo& blob, const Actor& actor) {
  auto name = core::sanitize_attachment_name(what.name);
  if (!name) return name.failure();
  if (blob.size > core::max_attachment_bytes)
    return core::fail(core::ErrorCode::payload_too_large,
                      "an attachment may have at most " + std::to_string(core::max_attachment_bytes) + " bytes",
                      {{"limit", core::max_attachment_bytes}, {"size", blob.size}});
  auto added = db_.write<core::Attachment>([&](store::Transaction& c) -> core::Result<core::Attachment> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    const auto totals = c.attachments().totals_for_run(run_id);
    if (totals.count >= core::max_attachments_per_run)
      return core::fail(core::ErrorCode::payload_too_large,
                        "run " + run_id + " has " + std::to_string(totals.count) + " attachments, the most it may have",
                        {{"runId", run_id}, {"limit", core::max_attachments_per_run}});
    if (totals.bytes + blob.size > core::max_attachment_bytes_per_run)
      return core::fail(core::ErrorCode::payload_too_large,
                        "run " + run_id + "'s attachments would exceed " +
                            std::to_string(core::max_attachment_bytes_per_run) + " bytes",
                        {{"runId", run_id}, {"limit", core::max_attachment_bytes_per_run}, {"used", totals.bytes}});
    // Contents are removed only in write jobs (remove()), so one present now stays.
    std::error_code ec;
    if (!fs::exists(blobs_->path_of(blob.sha256), ec))
      return core::fail(core::ErrorCode::internal, "the uploaded content was removed meanwhile; upload it again");
    core::Attachment a;
    a.id = core::new_prefixed_id("att");
    a.run_id = run_id;
    a.run_group_id = run->run_group_id;
    a.name = *name;
    a.sha256 = blob.sha256;
    a.size = blob.size;
    a.content_type = core::attachment_content_type(what.content_type);
    a.created_at = core::now_iso8601();
    c.attachments().insert(a);
    detail::save_with_audit(c, *run, "attachment.added", actor, audit_data(a));
    return a;
  });
  if (added) bus_.run_changed(run_id);
  return added;
}

core::Result<std::vector<core::Attachment>> Attachments::list(const std::string& run_id, bool group) {
  return db_.read([&](store::Transaction& c) -> core::Result<std::vector<core::Attachment>> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    return group ? c.attachments().list_for_group(run->run_group_id)
                 : c.attachments().list_for_run(run_id);
  });
}

core::Result<std::pair<core::Attachment, fs::path>> Attachments::content(const std::string& run_id,
                                                                        const std::string& attachment_id) {
  if (!blobs_) return unavailable();
  auto found = db_.read([&](store::Transaction& c) -> core::Result<core::Attachment> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    auto a = c.attachments().get_in_group(run->run_group_id, attachment_id);
    if (!a) return attachment_not_found(run_id, attachment_id);
    return *a;
  });
  if (!found) return found.failure();
  auto path = blobs_->path_of(found->sha256);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return core::fail(core::ErrorCode::internal, "the content of attachment " + attachment_id + " is missing",
                      {{"attachmentId", attachment_id}});
  return std::pair{std::move(*found), std::move(path)};
}

core::Result<core::Attachment> Attachments::remove(const std::string& run_id, const std::string& attachment_id,
                                                   const Actor& actor) {
  auto removed = db_.write<core::Attachment>([&](store::Transaction& c) -> core::Result<core::Attachment> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    auto a = c.attachments().get(run_id, attachment_id);
    if (!a) return attachment_not_found(run_id, attachment_id);
    c.attachments().remove(attachment_id);
    detail::save_with_audit(c, *run, "attachment.removed", actor, audit_data(*a));
    // Here, in the write job, where inserts check that their content exists (insert()):
    // an insert is either before this (and counted) or after (and sees it gone). Were
    // the transaction rolled back, the row would stay without content; a download then
    // says the content is missing.
    if (blobs_ && !db_.shared() && c.attachments().references(a->sha256) == 0) blobs_->remove(a->sha256);
    return *a;
  });
  if (removed) bus_.run_changed(run_id);
  return removed;
}

void Attachments::sweep() {
  if (!blobs_) {
    core::log_warn("attachments are unavailable", {{"error", blobs_error_}});
    return;
  }
  auto referenced = db_.read([](store::Transaction& c) -> core::Result<std::set<std::string>> {
    return c.attachments().referenced();
  });
  if (!referenced) return;
  // Younger files may be an upload in flight in another process (an embedded CLI).
  blobs_->sweep(*referenced, std::chrono::hours(1));
}

}  // namespace agentry::engine
