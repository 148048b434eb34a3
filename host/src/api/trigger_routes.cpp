// Inbound triggers: POST /api/triggers/:name takes a signed webhook delivery and starts
// the trigger's assignment with vars from its JSON payload, once per dedup key; the
// triggers.list operation (GET /api/triggers) shows what is configured. The order of
// the checks is the contract: nothing about the payload is looked at before the
// signature has been verified, and nothing is written before every check has passed.

#include "api/api_context.hpp"
#include "api/operations.hpp"
#include "api/router.hpp"
#include "api/trigger_signature.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "definitions/env.hpp"
#include "definitions/loader.hpp"
#include "engine/pending_init.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <cctype>

namespace agentry::api {
namespace json = boost::json;
namespace defs = definitions;
using core::Result;

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

/// The trigger's secret, from the daemon's environment now (so a restart is not needed
/// after setting it); empty when unset.
std::string secret_of(const defs::TriggerDefinition& trigger) {
  return defs::process_env()(trigger.secret_env).value_or("");
}

json::object delivery_answer(const std::string& trigger, const std::string& run_id, bool duplicate) {
  return json::object{{"trigger", trigger}, {"runId", run_id}, {"duplicate", duplicate}};
}

/// A failed start gives its key back, so that the sender's retry may start the run.
HttpResponse started_or_released(ApiContext& ctx, const std::string& trigger, const std::string& key,
                                 Result<core::Run> run, const std::string& planned_id) {
  if (!run) {
    if (auto released = ctx.engine.trigger_deliveries().release(trigger, key, planned_id); !released)
      core::log_warn("releasing a trigger's dedup key failed",
                     {{"trigger", trigger}, {"error", released.error().message}});
    return error_response(run.error());
  }
  core::log_info("trigger started a run", {{"trigger", trigger}, {"runId", run->id}});
  return json_response(201, delivery_answer(trigger, run->id, false));
}

HttpResponse deliver(ApiContext& ctx, const HttpRequest& request) {
  const std::string& name = request.params.at("name");
  auto trigger = defs::load_trigger(ctx.engine.projects().roots_for(std::nullopt), name);
  if (!trigger) {
    if (trigger.error().code == core::ErrorCode::not_found || trigger.error().code == core::ErrorCode::invalid_request)
      return error_response(core::ErrorCode::not_found, "no trigger named '" + name + "'", {{"trigger", name}});
    // The file's problems are for its owner (`agentry triggers list`), not for whoever posts.
    core::log_warn("a trigger's definition is broken", {{"trigger", name}, {"error", trigger.error().message}});
    return error_response(core::ErrorCode::unavailable,
                          "trigger '" + name + "' cannot be used: its definition is broken (see `agentry triggers list`)",
                          {{"trigger", name}});
  }
  const std::string secret = secret_of(*trigger);
  if (secret.empty())
    return error_response(core::ErrorCode::unavailable,
                          "trigger '" + name + "' has no secret: set " + trigger->secret_env +
                              " in the daemon's environment (deliveries are never accepted unsigned)",
                          {{"trigger", name}, {"secretEnv", trigger->secret_env}});

  const defs::HeaderLookup header = [&request](std::string_view header_name) -> std::optional<std::string> {
    const std::string* value = request.header(lower(header_name));
    if (value == nullptr) return std::nullopt;
    return *value;
  };
  const auto now_s = core::now_ms() / 1000;
  if (auto verified = verify_trigger_signature(trigger->scheme, secret, trigger->replay_window_seconds, header,
                                               request.body, now_s);
      !verified) {
    core::log_warn("refused a trigger delivery", {{"trigger", name}, {"reason", verified.error().message}});
    return error_response(verified.error());
  }

  boost::system::error_code ec;
  json::value payload = json::parse(request.body, ec);
  if (ec)
    return error_response(core::ErrorCode::invalid_request, "the delivery's body is not JSON: " + ec.message(),
                          {{"trigger", name}});

  if (auto mismatch = defs::filter_mismatch(*trigger, payload))
    return json_response(202, json::object{{"trigger", name}, {"ignored", true}, {"reason", *mismatch}});

  auto key = defs::render_dedup_key(defs::effective_dedup_key(*trigger), payload, header);
  if (!key) return error_response(key.error());
  auto earlier = ctx.engine.trigger_deliveries().run_of(name, *key);
  if (!earlier) return error_response(earlier.error());
  if (*earlier) return json_response(200, delivery_answer(name, **earlier, true));

  auto vars = defs::map_trigger_vars(*trigger, payload);
  if (!vars) return error_response(vars.error());
  engine::InitRequest init;
  init.agent = trigger->agent;
  init.assignment = trigger->assignment;
  if (trigger->cwd) {
    init.definition_cwd = trigger->cwd;
    init.overrides.cwd = trigger->cwd;
  }
  init.cli_vars = std::move(*vars);
  init.var_origin = engine::VarOrigin::web;
  auto pending = ctx.engine.plan_init(init, engine::Actor{"trigger:" + name});
  if (!pending) return error_response(pending.error());

  // The claim names the planned run: of two concurrent deliveries one claims, the
  // other answers with the first one's run and writes nothing.
  const std::string planned_id = (*pending)->run.id;
  auto claimed = ctx.engine.trigger_deliveries().claim(name, *key, planned_id);
  if (!claimed) return error_response(claimed.error());
  if (*claimed) return json_response(200, delivery_answer(name, **claimed, true));

  if (!(*pending)->runs_prepare_hooks())
    return started_or_released(ctx, name, *key, ctx.engine.finish_start(**pending), planned_id);
  // Module prepare hooks run node processes: on the blocking pool, never a request worker.
  HttpResponse later;
  later.blocking = [&ctx, name, key = *key, pending = std::move(*pending), planned_id] {
    return started_or_released(ctx, name, key, ctx.engine.finish_start(*pending), planned_id);
  };
  return later;
}

json::object trigger_json(const defs::TriggerDefinition& trigger) {
  json::object vars;
  for (const auto& var : trigger.vars) vars[var.name] = var.pointer;
  json::object filter;
  for (const auto& condition : trigger.filter)
    filter[condition.pointer] = json::array(condition.allowed.begin(), condition.allowed.end());
  json::object out{{"name", trigger.name},
                   {"description", trigger.description},
                   {"path", trigger.source_path.string()},
                   {"assignment", trigger.assignment},
                   {"agent", trigger.agent},
                   {"scheme", defs::to_string(trigger.scheme)},
                   {"secretEnv", trigger.secret_env},
                   {"secretSet", !secret_of(trigger).empty()},
                   {"dedupKey", defs::effective_dedup_key(trigger)},
                   {"vars", std::move(vars)},
                   {"filter", std::move(filter)},
                   {"warnings", defs::to_json(trigger.warnings)}};
  if (trigger.scheme == defs::TriggerScheme::agentry) out["replayWindowSeconds"] = trigger.replay_window_seconds;
  if (trigger.cwd) out["cwd"] = *trigger.cwd;
  return out;
}

}  // namespace

void add_trigger_operations(Operations& ops, ApiContext& ctx) {
  ops.add("triggers.list", [&ctx](const OperationRequest& request) -> Result<OperationResult> {
    auto params = params_of(request, {});
    if (!params) return params.failure();
    auto listing = defs::list_triggers(ctx.engine.projects().roots_for(std::nullopt));
    json::array triggers;
    for (const auto& trigger : listing.entries) triggers.push_back(trigger_json(trigger));
    return OperationResult{json::object{{"triggers", std::move(triggers)}, {"warnings", defs::to_json(listing.warnings)}}};
  });
}

void add_trigger_routes(Router& router, ApiContext& ctx) {
  router.add("POST", "/api/triggers/:name", [&ctx](const HttpRequest& request) { return deliver(ctx, request); });
}

}  // namespace agentry::api
