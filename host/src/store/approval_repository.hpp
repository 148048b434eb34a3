#pragma once
// The approvals a run's live attempt waits on (core::PendingApproval), kept beside the
// run so that every member shows them and can take the answer (engine/run_requests.cpp),
// while only the member holding the run's lease hands it to the agent. Written with the
// approval.request that asked, removed with the answer or the end of the attempt.

#include "core/run.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace agentry::store {

class ApprovalRepository {
 public:
  virtual ~ApprovalRepository() = default;

  /// Records a question; one the run already waits on (the same id) is left as it is.
  virtual void insert(std::string_view run_id, const core::PendingApproval& approval) = 0;
  /// Oldest first.
  virtual std::vector<core::PendingApproval> list(std::string_view run_id) = 0;
  /// False when the run was not waiting on it.
  virtual bool remove(std::string_view run_id, std::string_view approval_id) = 0;
  virtual void remove_all(std::string_view run_id) = 0;
};

}  // namespace agentry::store
