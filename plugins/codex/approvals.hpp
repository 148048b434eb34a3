// codex server requests that ask for approval -> APPROVAL_REQUEST payloads, and our
// decision -> the JSON-RPC result codex expects (the v2 and the legacy spellings differ).
// Pure, for unit tests against recorded transcripts.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::codex {

enum class Decision { accept, decline, cancel };

struct ApprovalAsk {
  std::string kind;     // "command" | "file_change"
  std::string summary;  // one line for people
  boost::json::object details;
  bool legacy = false;  // execCommandApproval / applyPatchApproval: ReviewDecision answers
};

// nullopt when `method` is not an approval request. `item` is the item the request
// refers to, when item/started showed it (file changes carry their diff there).
std::optional<ApprovalAsk> approval_ask(std::string_view method, const boost::json::object& params,
                                        const boost::json::object* item);

// {"decision": ...} for codex.
boost::json::object approval_result(bool legacy, Decision decision);

}  // namespace agentry::codex
