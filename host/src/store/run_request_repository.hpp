#pragma once
// Requests for the controller that drives a run, made by another member of a shared
// store: an abort, an answer to an approval. Whoever holds the run's lease (store/
// lease_repository.hpp) carries them out and removes them; a member that takes the run
// over finds the ones its predecessor left. The request is written in the same
// transaction as its audit record, so an acknowledged request is never lost.

#include <cstdint>
#include <string>
#include <vector>

namespace agentry::store {

struct RunRequest {
  std::int64_t id = 0;
  std::string run_id;
  std::string kind;          ///< "abort" | "approval"
  std::string payload_json;  ///< what it needs: { reason } | { approvalId, decision }
  std::string created_at;
};

class RunRequestRepository {
 public:
  virtual ~RunRequestRepository() = default;

  virtual void insert(RunRequest& request) = 0;
  /// The requests of the runs whose lease `owner` holds, oldest first.
  virtual std::vector<RunRequest> for_owner(const std::string& owner, int limit) = 0;
  virtual void remove(std::int64_t id) = 0;
};

}  // namespace agentry::store
