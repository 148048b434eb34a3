// What send_input() carries, read once for every backend: a follow-up message
// ({"text"}) or an approval answer ({"approvalId", "decision": "approve"|"deny"}).
#pragma once

#include <string>

#include "agentry/plugin/cpp/params.hpp"
#include "agentry/plugin/plugin.h"

namespace agentry::plugin_common {

struct InputFields {
  agentry_status_t status = AGENTRY_OK;  // INVALID_ARGUMENT for a malformed payload, UNSUPPORTED for another kind
  std::string text;                      // a message
  std::string approval_id;               // an approval
  bool approve = false;
};

// `accept_approvals`: a backend that never asks answers approvals UNSUPPORTED.
InputFields read_input(const agentry::plugin::Input& input, bool accept_approvals);

}  // namespace agentry::plugin_common
