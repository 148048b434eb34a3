#include "engine/hooks/hook_attachments.hpp"
#include "engine/hooks/hook_process.hpp"

#include "core/attachment.hpp"
#include "core/utf8.hpp"
#include "engine/attachments.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <filesystem>

namespace agentry::engine {
namespace json = boost::json;
namespace {

/// As many as a run may have: a hook cannot ask for more than could ever be kept.
constexpr std::size_t max_changes = core::max_attachments_per_run;

std::optional<std::string> text(const json::object& o, const char* key, const std::string& where, bool required,
                                std::optional<std::string>& failure) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) {
    if (required) failure = where + "." + key + " is required";
    return std::nullopt;
  }
  if (!v->is_string() || (required && v->as_string().empty())) {
    failure = where + "." + key + (required ? " must be a non-empty string" : " must be a string");
    return std::nullopt;
  }
  return core::sanitize_utf8(v->as_string());
}

bool only_members(const json::object& o, std::initializer_list<std::string_view> allowed, const std::string& where,
                  std::optional<std::string>& failure) {
  for (const auto& [key, _] : o)
    if (std::find(allowed.begin(), allowed.end(), std::string_view(key)) == allowed.end()) {
      failure = where + "." + std::string(key) + " is not a member";
      return false;
    }
  return true;
}

const json::array* list(const json::object& m, const char* key, std::optional<std::string>& failure) {
  const auto* v = m.if_contains(key);
  if (v == nullptr || v->is_null()) return nullptr;
  if (!v->is_array()) {
    failure = std::string("mutate.attachments.") + key + " must be a list";
    return nullptr;
  }
  return &v->as_array();
}

std::filesystem::path source_of(const core::Run& run, const std::string& raw) {
  std::filesystem::path path(raw);
  if (path.is_relative()) path = std::filesystem::path(run.cwd) / path;
  return path;
}

/// "removed 1 of 2 (att-x: ...)".
void summarize(std::string& out, const char* verb, int done, std::size_t asked, const std::vector<std::string>& problems) {
  if (asked == 0) return;
  std::string part = std::string(verb) + " " + std::to_string(done) + " of " + std::to_string(asked);
  if (!problems.empty()) {
    std::string list;
    for (const auto& p : problems) list += (list.empty() ? "" : "; ") + p;
    part += " (" + list + ")";
  }
  out += (out.empty() ? "attachments: " : ", ") + part;
}

}  // namespace

void read_attachment_changes(const json::value& field, HookAttachmentChanges& out, std::optional<std::string>& failure) {
  if (field.is_null()) return;
  const auto* m = field.if_object();
  if (m == nullptr) {
    failure = "mutate.attachments must be an object {add?, remove?, replace?}";
    return;
  }
  if (!only_members(*m, {"add", "remove", "replace"}, "mutate.attachments", failure)) return;
  const auto* add = list(*m, "add", failure);
  const auto* remove = list(*m, "remove", failure);
  const auto* replace = list(*m, "replace", failure);
  if (failure) return;
  const std::size_t total = (add ? add->size() : 0) + (remove ? remove->size() : 0) + (replace ? replace->size() : 0);
  if (total > max_changes) {
    failure = "mutate.attachments asks for " + std::to_string(total) + " changes; at most " +
              std::to_string(max_changes);
    return;
  }
  for (std::size_t i = 0; remove && i < remove->size(); ++i) {
    const auto& id = (*remove)[i];
    if (!id.is_string() || id.as_string().empty()) {
      failure = "mutate.attachments.remove[" + std::to_string(i) + "] must be an attachment id";
      return;
    }
    out.remove.emplace_back(id.as_string());
  }
  for (std::size_t i = 0; replace && i < replace->size(); ++i) {
    const std::string where = "mutate.attachments.replace[" + std::to_string(i) + "]";
    const auto* o = (*replace)[i].if_object();
    if (o == nullptr) {
      failure = where + " must be an object {attachmentId, sourcePath, name?, mimeType?}";
      return;
    }
    if (!only_members(*o, {"attachmentId", "sourcePath", "name", "mimeType"}, where, failure)) return;
    HookAttachmentReplace r;
    r.attachment_id = text(*o, "attachmentId", where, true, failure).value_or("");
    r.source_path = text(*o, "sourcePath", where, true, failure).value_or("");
    r.name = text(*o, "name", where, false, failure);
    r.mime_type = text(*o, "mimeType", where, false, failure);
    if (failure) return;
    out.replace.push_back(std::move(r));
  }
  for (std::size_t i = 0; add && i < add->size(); ++i) {
    const std::string where = "mutate.attachments.add[" + std::to_string(i) + "]";
    const auto* o = (*add)[i].if_object();
    if (o == nullptr) {
      failure = where + " must be an object {sourcePath, name?, mimeType?}";
      return;
    }
    if (!only_members(*o, {"sourcePath", "name", "mimeType"}, where, failure)) return;
    HookAttachmentAdd a;
    a.source_path = text(*o, "sourcePath", where, true, failure).value_or("");
    a.name = text(*o, "name", where, false, failure).value_or("");
    a.mime_type = text(*o, "mimeType", where, false, failure).value_or("");
    if (failure) return;
    out.add.push_back(std::move(a));
  }
}

std::string apply_attachment_changes(const core::Run& run, const HookAttachmentChanges& changes,
                                     Attachments* attachments) {
  if (changes.empty()) return {};
  if (attachments == nullptr) return "attachments: not changed (attachments are off here)";
  std::string said;
  std::vector<std::string> problems;
  int done = 0;
  for (const auto& id : changes.remove) {
    if (auto removed = attachments->remove(run.id, id, hook_actor); removed) ++done;
    else problems.push_back(id + ": " + removed.error().message);
  }
  summarize(said, "removed", done, changes.remove.size(), problems);
  problems.clear();
  done = 0;
  for (const auto& r : changes.replace) {
    auto replaced = attachments->replace_file(run.id, r.attachment_id, source_of(run, r.source_path), r.name,
                                              r.mime_type, hook_actor);
    if (replaced) ++done;
    else problems.push_back(r.attachment_id + ": " + replaced.error().message);
  }
  summarize(said, "replaced", done, changes.replace.size(), problems);
  problems.clear();
  done = 0;
  for (const auto& a : changes.add) {
    const auto path = source_of(run, a.source_path);
    auto added = attachments->add_file(run.id, path, a.name.empty() ? path.filename().string() : a.name, hook_actor,
                                       a.mime_type);
    if (added) ++done;
    else problems.push_back(a.source_path + ": " + added.error().message);
  }
  summarize(said, "added", done, changes.add.size(), problems);
  return said;
}

}  // namespace agentry::engine
