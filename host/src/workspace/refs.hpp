#pragma once
// The refs of a run's git work tree that a reviewer can compare: HEAD, local and
// remote-tracking branches, and tags, each with the commit it names (docs/api.md,
// "Refs"). agentry's private refs (refs/agentry/...) are not listed. Bounded: at most
// `max_refs` of each kind, in name order.

#include "core/result.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace agentry::workspace {

struct NamedRef {
  std::string name;    // short: "main", "origin/main", "v1.0"
  std::string commit;  // hex id of the commit it names (a tag peeled), "" if it names no commit
};

struct RefList {
  std::string repo_root;
  std::optional<std::string> head_branch;  // nullopt: detached or no HEAD
  std::string head_commit;                 // "" on an unborn branch
  std::vector<NamedRef> branches, remotes, tags;
  bool truncated = false;
};

inline constexpr std::size_t max_refs = 1000;

core::Result<RefList> list_refs(const std::filesystem::path& cwd, std::size_t limit = max_refs);

boost::json::object to_json(const RefList& refs);

}  // namespace agentry::workspace
