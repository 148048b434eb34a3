#include "api/compat/compat_workspace.hpp"

#include "api/compat/compat_json.hpp"
#include "core/clock.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <cctype>

namespace agentry::api::compat {
namespace json = boost::json;
using namespace detail;

namespace {

/// Their markdown extensions: .md, .mdx, .markdown (case-insensitive).
bool is_markdown(std::string path) {
  for (auto& c : path) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view ext : {".md", ".mdx", ".markdown"})
    if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) return true;
  return false;
}

std::string root_relative(std::string path) { return path == "." ? std::string() : path; }

json::value parent_path(const std::string& path) {
  if (path.empty()) return nullptr;
  const auto slash = path.rfind('/');
  return json::value(slash == std::string::npos ? std::string() : path.substr(0, slash));
}

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

json::value mtime_ms(const json::object& o) {
  const auto at = core::parse_iso8601(string_at(o, "modifiedAt"));
  return at ? json::value(*at) : json::value(nullptr);
}

std::string diff_status(const std::string& status, bool binary) {
  if (binary || status == "unreadable") return "binary";
  if (status == "typechange" || status == "conflicted") return "modified";
  for (const char* known : {"added", "modified", "deleted", "renamed", "copied", "untracked"})
    if (status == known) return status;
  return "modified";
}

}  // namespace

json::object ref_workspace_entry(const json::object& e, const WorkspaceFacts& facts) {
  const auto type = string_at(e, "type");
  const bool directory = type == "directory";
  const auto path = string_at(e, "path");
  json::value size = nullptr;
  if (!directory && !is_null_or_absent(e, "size")) size = int_at(e, "size");
  return {{"path", path},
          {"name", string_at(e, "name")},
          {"kind", directory ? "directory" : "file"},
          {"size", size},
          {"mtimeMs", mtime_ms(e)},
          {"supportedText", type == "file" && size.is_int64() && size.as_int64() <= facts.max_file_bytes},
          {"markdown", !directory && is_markdown(path)}};
}

json::object ref_workspace_directory(const json::object& n, const WorkspaceFacts& facts) {
  const auto path = root_relative(string_at(n, "path"));
  json::array entries;
  for (const auto& e : array_at(n, "entries"))
    if (e.is_object()) entries.push_back(ref_workspace_entry(e.as_object(), facts));
  return {{"runId", string_at(n, "runId")},
          {"cwd", facts.cwd},
          {"path", path},
          {"parentPath", parent_path(path)},
          {"entries", std::move(entries)},
          {"truncated", bool_at(n, "truncated")},
          {"maxEntries", facts.max_entries}};
}

json::object ref_workspace_search(const json::object& n, const WorkspaceFacts& facts) {
  json::array matches;
  for (const auto& e : array_at(n, "results"))
    if (e.is_object()) matches.push_back(ref_workspace_entry(e.as_object(), facts));
  return {{"runId", string_at(n, "runId")},
          {"cwd", facts.cwd},
          {"query", string_at(n, "query")},
          {"matches", std::move(matches)},
          {"truncated", bool_at(n, "truncated")},
          {"maxResults", facts.max_results}};
}

json::object ref_workspace_file(const json::object& n, const WorkspaceFacts& facts) {
  const auto path = string_at(n, "path");
  const bool markdown = is_markdown(path);
  return {{"runId", string_at(n, "runId")},
          {"cwd", facts.cwd},
          {"path", path},
          {"name", base_name(path)},
          {"size", int_at(n, "size")},
          {"mtimeMs", mtime_ms(n)},
          {"mediaType", markdown ? "text/markdown" : "text/plain"},
          {"markdown", markdown},
          {"text", string_at(n, "content")},
          {"maxBytes", facts.max_file_bytes}};
}

json::object ref_workspace_diff(const json::object& n, const WorkspaceFacts& facts) {
  const bool branch = string_at(n, "mode") == "branch";
  json::array files;
  std::int64_t additions = 0, deletions = 0;
  for (const auto& f : array_at(n, "files")) {
    if (!f.is_object()) continue;
    const auto& o = f.as_object();
    const bool binary = bool_at(o, "binary");
    json::object file{{"path", string_at(o, "path")}};
    if (const auto old = string_at(o, "oldPath"); !old.empty()) file["oldPath"] = old;
    file["status"] = diff_status(string_at(o, "status"), binary);
    for (const char* key : {"additions", "deletions"})
      file[key] = is_null_or_absent(o, key) ? json::value(nullptr) : json::value(int_at(o, key));
    file["binary"] = binary;
    additions += int_at(o, "additions");
    deletions += int_at(o, "deletions");
    files.push_back(std::move(file));
  }
  json::object out{{"runId", string_at(n, "runId")}, {"cwd", facts.cwd}, {"repoRoot", string_at(n, "repoRoot")}};
  if (branch) {
    const auto base = string_at(object_at(n, "base"), "ref");
    const auto head = string_at(object_at(n, "head"), "ref");
    const bool merge_base = !is_null_or_absent(n, "mergeBase");
    out["mode"] = "branch";
    out["baseRef"] = base;
    out["headRef"] = head;
    out["comparison"] = merge_base ? "merge-base" : "direct";
    out["displayRange"] = base + (merge_base ? "..." : "..") + head;
  } else {
    out["mode"] = "working-tree";
    out["baseRef"] = nullptr;
    out["headRef"] = nullptr;
    out["comparison"] = nullptr;
    out["displayRange"] = "Working tree";
  }
  out["files"] = std::move(files);
  out["stats"] = json::object{{"files", static_cast<std::int64_t>(out["files"].as_array().size())},
                              {"additions", additions},
                              {"deletions", deletions}};
  out["patch"] = string_at(n, "patch");
  out["truncated"] = bool_at(n, "truncated");
  out["maxBytes"] = facts.max_diff_bytes;
  return out;
}

}  // namespace agentry::api::compat
