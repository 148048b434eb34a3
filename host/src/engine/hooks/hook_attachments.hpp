#pragma once
// A module hook's `mutate.attachments` (agent-runner's {add, remove, replace}), read from
// its result and applied to the run through engine/attachments.hpp with actor `hook`, in
// agent-runner's order: remove, then replace, then add. Each change is audited as a
// user's would be (attachment.added / .removed / .replaced); one that cannot be made
// (an unknown id, a missing file, a limit) does not fail the hook: its audit's message
// says which and why, as for an executable hook's `attachments`.

#include "core/result.hpp"
#include "core/run.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace agentry::engine {

class Attachments;

struct HookAttachmentAdd {
  std::string source_path;  // relative to the run's cwd, or absolute
  std::string name;         // "": the file's name
  std::string mime_type;    // "": application/octet-stream
};

struct HookAttachmentReplace {
  std::string attachment_id;
  std::string source_path;
  std::optional<std::string> name;       // absent: the attachment keeps its name
  std::optional<std::string> mime_type;  // absent: and its type
};

struct HookAttachmentChanges {
  std::vector<std::string> remove;
  std::vector<HookAttachmentReplace> replace;
  std::vector<HookAttachmentAdd> add;
  bool empty() const { return remove.empty() && replace.empty() && add.empty(); }
};

/// Reads `mutate.attachments`; `failure` names the member that is malformed.
void read_attachment_changes(const boost::json::value& field, HookAttachmentChanges& out,
                             std::optional<std::string>& failure);

/// Applies them; returns what the hook's audit message says ("attachments: removed 1 of
/// 1, replaced 0 of 1 (att-x: ...), added 2 of 2").
std::string apply_attachment_changes(const core::Run& run, const HookAttachmentChanges& changes,
                                     Attachments* attachments);

}  // namespace agentry::engine
