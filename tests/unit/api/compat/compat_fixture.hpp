#pragma once
// A real engine (SQLite file, the mock backend) whose runs are read the way native
// operations answer them, then translated and checked against agent-runner's schemas.

#include "api/compat/compat_dto.hpp"
#include "live_run_fixture.hpp"
#include "ref_schema_checks.hpp"

#include <boost/json/object.hpp>

#include <string>

namespace agentry::api::compat::testing {

class CompatDtoTest : public engine::testing::LiveRunTest {
 protected:
  void SetUp() override;

  /// The run's RunDetail, as runs.get answers it.
  boost::json::object native_detail(const std::string& run_id);
  /// The run's RunSummary as runs.list answers it (the store's list path).
  boost::json::object native_listed(const std::string& run_id);
  /// Translates the run every way (list summary, detail, detail's summary, results,
  /// audit), asserts each passes its checker and that both summaries agree; returns
  /// ref_detail.
  boost::json::object checked(const std::string& run_id);

  /// An initialized run of the "hooked" assignment (hooks, a task definition).
  engine::InitRequest hooked_request();

  CompatFacts facts_;
};

}  // namespace agentry::api::compat::testing
