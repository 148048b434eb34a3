#include "engine/creation_support.hpp"

#include "core/log.hpp"
#include "definitions/project_trust.hpp"
#include "engine/lineage.hpp"
#include "engine/mutation_support.hpp"
#include "store/run_repository.hpp"
#include "store/store.hpp"

namespace agentry::engine::detail {
namespace json = boost::json;

core::Failure with_trust_details(core::Failure failure, const definitions::Roots& roots) {
  auto& e = failure.error;
  if (!roots.project_dir || roots.project_trusted || e.code != core::ErrorCode::validation) return failure;
  const auto* path = e.details.if_contains("path");
  if (path == nullptr || !path->is_string() || !definitions::is_project_file(std::string(path->as_string()), roots))
    return failure;
  e.details["projectDir"] = roots.project_dir->string();
  e.details["projectTrusted"] = false;
  return failure;
}

core::Result<std::optional<ParentInfo>> parent_info(store::Store& db, const std::optional<std::string>& parent,
                                                    int max_depth, const ChildResumeLimits* limits) {
  if (!parent) return std::optional<ParentInfo>{};
  return db.read([&](store::Transaction& c) -> core::Result<std::optional<ParentInfo>> {
    auto run = c.runs().get(*parent);
    if (!run)
      return core::fail(core::ErrorCode::validation, "parent run '" + *parent + "' does not exist",
                        {{"field", "parentRunId"}});
    // A new child: bounded in number while the ones before it have not ended.
    if (limits)
      if (auto ok = check_live_children(c, *parent, *limits); !ok) return ok.failure();
    ParentInfo info{run->frozen.vars, run->frozen.var_sources, lineage_depth(c, *run, max_depth + 1),
                    run->run_group_id};
    return std::optional<ParentInfo>(std::move(info));
  });
}

core::Result<void> check_call_depth(const ParentInfo& parent, const std::string& parent_id, int max_depth) {
  const int depth = parent.depth + 1;
  if (depth <= max_depth) return core::ok();
  return core::fail(core::ErrorCode::validation,
                    "refusing to create a run nested " + std::to_string(depth) + " deep under parent run '" +
                        parent_id + "': at most " + std::to_string(max_depth) +
                        " runs may nest (AGENTRY_MAX_CALL_DEPTH); is an agent starting agents in a loop? "
                        "A run without parentRunId starts a new lineage",
                    {{"field", "parentRunId"}, {"depth", depth}, {"maxCallDepth", max_depth}});
}

void log_unknown_template_keys(const std::string& run_id, const std::vector<UnknownTemplateKey>& keys) {
  if (keys.empty()) return;
  core::log_warn("unknown template keys left as written", {{"runId", run_id}, {"keys", describe(keys)}});
}

}  // namespace agentry::engine::detail
