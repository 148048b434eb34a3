#pragma once
// Ask: answers a question about a run's state through its backend's ask extension,
// without a turn of the run and without touching its timeline; audited as run.asked
// (run_questions.cpp). Owns the count of questions being answered, so that a few
// slow backends never fill the threads that wait for them.

#include "core/result.hpp"
#include "engine/forward.hpp"
#include "engine/requests.hpp"

#include <atomic>
#include <string>

namespace agentry::engine {

class AskService {
 public:
  static constexpr int max_in_flight = 2;

  AskService(store::Store& db, events::EventBus& bus, const BackendCatalog& backends)
      : db_(db), bus_(bus), backends_(backends) {}

  /// Waits for the backend (up to request.timeout): call it on a slow-work thread.
  /// CONFLICT {"reason": "not_supported"} when the backend cannot answer; UNAVAILABLE
  /// {"reason": "timeout"|"backend_error"} when it did not, {"reason": "busy"} when
  /// max_in_flight questions are being answered already.
  core::Result<AskAnswer> ask(const std::string& run_id, const AskRequest& request, const Actor& actor);

 private:
  store::Store& db_;
  events::EventBus& bus_;
  const BackendCatalog& backends_;
  std::atomic<int> in_flight_{0};
};

}  // namespace agentry::engine
