#pragma once
// What agent-runner's DTOs need that our native JSON does not carry: facts of the
// answering daemon and the moment of the answer. The compat listener fills one per
// request; tests build their own.

#include <cstdint>
#include <filesystem>
#include <string>

namespace agentry::api::compat {

struct CompatFacts {
  /// `execution.controller.daemonInstanceId` and the audit events' `controllerInstanceId`.
  std::string daemon_instance_id;
  /// Unix milliseconds of the answer: a schedule whose `runAt` is not later is `due`.
  std::int64_t now_ms = 0;
  /// Where RunDetail.workspaceDir points: `<workspace_root>/<runId>` (W14; the directory
  /// is created by whoever first needs it, never by a translation).
  std::filesystem::path workspace_root;
};

}  // namespace agentry::api::compat
