// Operations on runs: list, read, create, lifecycle transitions, metadata, queued
// resume messages.

#include "api/operations.hpp"
#include "api/run_request_parsing.hpp"
#include "core/ids.hpp"
#include "engine/pending_init.hpp"
#include "core/schedule.hpp"
#include "events/projections.hpp"

namespace agentry::api {
namespace json = boost::json;
using core::Result;

namespace {

/// The params with runId taken out, for parsers that validate the rest of a body.
JsonBody rest_of(const JsonBody& params) {
  json::object rest = params.object();
  rest.erase("runId");
  return JsonBody(std::move(rest));
}

using RunCommand = std::function<Result<core::Run>(const std::string& run_id, const JsonBody& rest,
                                                   const OperationRequest& request)>;

/// An operation on one run whose answer is the run's detail after the change.
Operation run_command(ApiContext& ctx, std::initializer_list<std::string_view> keys, RunCommand command) {
  std::vector<std::string_view> allowed(keys);
  allowed.push_back("runId");
  return [&ctx, allowed, command = std::move(command)](const OperationRequest& request) -> Result<OperationResult> {
    JsonBody params(request.params);
    if (auto ok = params.allow_only(allowed); !ok) return ok.failure();
    auto id = run_id_of(params);
    if (!id) return id.failure();
    auto run = command(*id, rest_of(params), request);
    if (!run) return run.failure();
    return run_detail_result(ctx.engine, run->id);
  };
}

Result<OperationResult> list_runs(ApiContext& ctx, const OperationRequest& request) {
  auto params = params_of(request, {"cwd", "repo", "global", "runGroupId", "includeArchived", "limit", "cursor"});
  if (!params) return params.failure();
  std::map<std::string, std::string> query;
  for (const auto& [key, value] : params->object()) {
    auto text = text_param(*params, key);
    if (!text) return text.failure();
    query[std::string(key)] = **text;
  }
  auto parsed = parse_run_query(query);
  if (!parsed) return parsed.failure();
  auto page = ctx.engine.list(*parsed);
  if (!page) return page.failure();
  // In the summaries' own storage, so that they move into the answer instead of being copied.
  const json::storage_ptr storage = page->summaries.empty() ? json::storage_ptr() : page->summaries.front().storage();
  json::array runs(storage);
  runs.reserve(page->summaries.size());
  for (auto& summary : page->summaries) runs.emplace_back(std::move(summary));
  json::object out(storage);
  out["runs"] = std::move(runs);
  out["nextCursor"] = page->next_cursor ? json::value(*page->next_cursor) : json::value(nullptr);
  return OperationResult{std::move(out)};
}

/// A planned init, start or re-initialization finished: in place, or, when it runs
/// module prepare hooks (node processes), on the transport's blocking workers so that
/// no request worker waits on them.
Result<OperationResult> finish_pending(std::shared_ptr<engine::PendingInit> pending,
                                       std::function<Result<OperationResult>(engine::PendingInit&)> then) {
  if (!pending->runs_prepare_hooks()) return then(*pending);
  OperationResult later;
  later.blocking = [pending = std::move(pending), then = std::move(then)] { return then(*pending); };
  return later;
}

/// A planned init whose answer waits on its commit without holding the request worker:
/// the run's detail is made on the transport's thread from what the write committed.
OperationResult init_after_write(ApiContext& ctx, std::shared_ptr<engine::PendingInit> pending) {
  OperationResult later;
  later.after_write = [&ctx, pending = std::move(pending)](AnswerReply reply) {
    ctx.engine.finish_init_later(pending, [reply = std::move(reply)](engine::Engine::FinishInit finish_init) {
      reply([finish_init = std::move(finish_init)]() -> Result<OperationResult> {
        auto created = finish_init();
        if (!created) return created.failure();
        return run_detail_result(*created, 201);
      });
    });
  };
  return later;
}

/// runs.init with runId: the initialized run re-resolved from its definitions.
Result<OperationResult> reinit_run(ApiContext& ctx, const OperationRequest& request) {
  JsonBody params(request.params);
  auto id = run_id_of(params);
  if (!id) return id.failure();
  auto init = parse_init_request(rest_of(params), request.var_origin, /*agent_required=*/false);
  if (!init) return init.failure();
  auto pending = ctx.engine.plan_reinit(*id, std::move(*init), request.actor);
  if (!pending) return pending.failure();
  return finish_pending(std::move(*pending), [&ctx](engine::PendingInit& p) -> Result<OperationResult> {
    auto run = ctx.engine.finish_reinit(p);
    if (!run) return run.failure();
    return run_detail_result(ctx.engine, run->id);
  });
}

Operation create_run(ApiContext& ctx, bool start) {
  return [&ctx, start](const OperationRequest& request) -> Result<OperationResult> {
    if (request.params.contains("runId")) {
      if (start)
        return core::fail(core::ErrorCode::invalid_request,
                          "field 'runId': runs.start creates a new run; re-initialize one with runs.init {runId}, "
                          "then start it with runs.resume",
                          {{"field", "runId"}});
      return reinit_run(ctx, request);
    }
    auto init = parse_init_request(JsonBody(request.params), request.var_origin);
    if (!init) return init.failure();
    auto pending = ctx.engine.plan_init(*init, request.actor);
    if (!pending) return pending.failure();
    if (!start && request.answer_after_write && !(*pending)->runs_prepare_hooks())
      return init_after_write(ctx, std::move(*pending));
    return finish_pending(std::move(*pending), [&ctx, start](engine::PendingInit& p) -> Result<OperationResult> {
      if (!start) {
        // The answer is what init committed; reading it back would cost a read transaction.
        auto created = ctx.engine.finish_init(p);
        if (!created) return created.failure();
        return run_detail_result(*created, 201);
      }
      auto run = ctx.engine.finish_start(p);
      if (!run) return run.failure();
      return run_detail_result(ctx.engine, run->id, 201);
    });
  };
}

core::Failure required_nullable(const char* field) {
  return core::fail(core::ErrorCode::invalid_request,
                    std::string("field '") + field + "' is required (null clears it)", {{"field", field}});
}

core::Failure too_long(const char* field, const char* limit) {
  return core::fail(core::ErrorCode::invalid_request, std::string("field '") + field + "' is longer than " + limit,
                    {{"field", field}});
}

/// The messageId parameter, checked for shape.
Result<std::string> message_id_of(const JsonBody& params) {
  auto id = params.required_string("messageId");
  if (!id) return id.failure();
  if (!core::is_valid_key(*id))
    return core::fail(core::ErrorCode::invalid_request, "'" + *id + "' is not a valid queued message id",
                      {{"field", "messageId"}});
  return id;
}

void add_queued_message_operations(Operations& ops, ApiContext& ctx) {
  auto& engine = ctx.engine;
  ops.add("runs.queueResumeMessage", [&engine](const OperationRequest& request) -> Result<OperationResult> {
    auto params = params_of(request, {"runId", "text", "message"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    // `message` is the reference's name for the text.
    if (params->has("text") && params->has("message"))
      return core::fail(core::ErrorCode::invalid_request, "give text or message, not both", {{"field", "message"}});
    auto text = params->required_string(params->has("message") ? "message" : "text");
    if (!text) return text.failure();
    auto message = engine.queue_message(*id, *text, request.actor);
    if (!message) return message.failure();
    auto detail = run_detail_result(engine, *id);
    if (!detail) return detail.failure();
    json::object body{{"message", events::queued_message_json(*message)},
                      {"run", std::move(detail->body.as_object().at("run"))}};
    return OperationResult{std::move(body), 201};
  });
  ops.add("runs.listQueuedResumeMessages", [&engine](const OperationRequest& request) -> Result<OperationResult> {
    auto params = params_of(request, {"runId"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    auto messages = engine.list_queued_messages(*id);
    if (!messages) return messages.failure();
    json::array out;
    for (const auto& m : *messages) out.push_back(events::queued_message_json(m));
    return OperationResult{json::object{{"runId", *id}, {"messages", std::move(out)}}};
  });
  ops.add("runs.removeQueuedResumeMessage", [&engine](const OperationRequest& request) -> Result<OperationResult> {
    auto params = params_of(request, {"runId", "messageId"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    auto message_id = message_id_of(*params);
    if (!message_id) return message_id.failure();
    auto removed = engine.remove_queued_message(*id, *message_id, request.actor);
    if (!removed) return removed.failure();
    return OperationResult{
        json::object{{"result", {{"runId", removed->run_id}, {"messageId", removed->message_id}, {"deleted", true}}}}};
  });
}

void add_approval_operations(Operations& ops, ApiContext& ctx) {
  auto& engine = ctx.engine;
  ops.add("runs.answerApproval", [&engine](const OperationRequest& request) -> Result<OperationResult> {
    auto params = params_of(request, {"runId", "approvalId", "decision"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    auto approval_id = params->required_string("approvalId");
    if (!approval_id) return approval_id.failure();
    if (approval_id->empty() || approval_id->size() > 256)
      return core::fail(core::ErrorCode::invalid_request, "approvalId must be 1 to 256 characters",
                        {{"field", "approvalId"}});
    auto decision = params->required_string("decision");
    if (!decision) return decision.failure();
    auto answered = engine.answer_approval(*id, *approval_id, *decision, request.actor);
    if (!answered) return answered.failure();
    // Accepted: the answer is on its way to the backend; a backend that refuses it
    // leaves the approval pending again (audit run.approval_answer_failed).
    return OperationResult{json::object{
        {"result",
         {{"runId", answered->run_id}, {"approvalId", answered->approval_id}, {"decision", answered->decision}}},
        {"accepted", true}}};
  });
}

/// Reading runs, and asking a run's agent about its state (an ask starts no turn).
void add_run_query_operations(Operations& ops, ApiContext& ctx) {
  auto& engine = ctx.engine;
  ops.add("runs.list", [&ctx](const OperationRequest& r) { return list_runs(ctx, r); });
  ops.add("runs.get", [&engine](const OperationRequest& request) -> Result<OperationResult> {
    auto params = params_of(request, {"runId"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    return run_detail_result(engine, *id);
  });
  ops.add("runs.brief", [&engine](const OperationRequest& request) -> Result<OperationResult> {
    auto params = params_of(request, {"runId"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    auto view = engine.view(*id);
    if (!view) return view.failure();
    // As in the run's detail, values read from the environment do not leave the daemon.
    return OperationResult{
        json::object{{"runId", *id}, {"brief", events::redact_text(view->run.frozen, view->run.frozen.brief)}}};
  });
  // Waits on the backend: the server runs it on the slow-work pool (api/slow_work.hpp).
  ops.add("runs.ask", [&engine](const OperationRequest& request) -> Result<OperationResult> {
    auto params = params_of(request, {"runId", "question", "timeoutSec"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    auto question = params->required_string("question");
    if (!question) return question.failure();
    if (question->find_first_not_of(" \t\r\n") == std::string::npos)
      return core::fail(core::ErrorCode::invalid_request, "question must not be empty", {{"field", "question"}});
    if (question->size() > max_question_bytes) return too_long("question", "16 KiB");
    auto timeout = params->optional_int("timeoutSec", 1, 300);
    if (!timeout) return timeout.failure();
    engine::AskRequest ask{*question, std::chrono::seconds(timeout->value_or(60))};
    auto answer = engine.questions().ask(*id, ask, request.actor);
    if (!answer) return answer.failure();
    json::object body{{"askId", answer->ask_id},       {"runId", answer->run_id},
                      {"backend", answer->backend},    {"question", *question},
                      {"answer", answer->answer},      {"durationMs", answer->duration_ms}};
    if (!answer->usage.empty()) body["usage"] = answer->usage;
    return OperationResult{std::move(body)};
  });
}

/// Creating runs and moving them through their lifecycle: start, ready, resume, abort,
/// archive, reset, reconfigure, delete.
void add_run_lifecycle_operations(Operations& ops, ApiContext& ctx) {
  auto& engine = ctx.engine;
  ops.add("runs.start", create_run(ctx, true));
  ops.add("runs.init", create_run(ctx, false));
  ops.add("runs.delete", [&engine](const OperationRequest& request) -> Result<OperationResult> {
    auto params = params_of(request, {"runId"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    if (auto ok = engine.remove(*id, request.actor); !ok) return ok.failure();
    return OperationResult{json::object{{"result", {{"runId", *id}, {"deleted", true}}}}};
  });

  // Over JSON-RPC, runs.ready may carry runs.setSchedule's flat params: promoted and
  // scheduled in one write. The HTTP route only promotes; browsers use the schedule routes.
  ops.add("runs.ready", run_command(ctx, {"at", "delay", "cron", "timezone", "mode", "continueOnFailure"},
                                    [&engine](auto& id, const JsonBody& rest, auto& r) -> Result<core::Run> {
                                      if (rest.object().empty()) return engine.ready(id, r.actor);
                                      const std::string key(rest.object().begin()->key());
                                      if (r.over_http)
                                        return core::fail(core::ErrorCode::invalid_request,
                                                          "unknown field '" + key +
                                                              "': POST /ready only promotes the run; set its "
                                                              "schedule with PUT /api/runs/:runId/schedule",
                                                          {{"field", key}});
                                      auto spec = core::parse_schedule_request(rest.object(), engine.schedules().now_ms());
                                      if (!spec) return spec.failure();
                                      return engine.ready(id, r.actor, *spec);
                                    }));
  ops.add("runs.resume", run_command(ctx, {"message", "overrides"}, [&engine](auto& id, auto& rest, auto& r) {
            auto request = parse_resume_request(rest);
            if (!request) return Result<core::Run>(request.failure());
            return engine.resume(id, *request, r.actor);
          }));
  // The abort is accepted at once; a live run's status follows through the streams
  // once its backend stops (or its grace period ends).
  ops.add("runs.abort", [&ctx](const OperationRequest& request) -> Result<OperationResult> {
    auto answered = run_command(ctx, {"reason"}, [&ctx](auto& id, auto& rest, auto& r) {
      auto reason = rest.optional_string("reason");
      if (!reason) return Result<core::Run>(reason.failure());
      return ctx.engine.abort(id, reason->value_or(""), r.actor);
    })(request);
    if (!answered) return answered;
    answered->body.as_object()["accepted"] = true;  // runId is there already, beside run
    return answered;
  });
  ops.add("runs.archive", run_command(ctx, {}, [&engine](auto& id, auto&, auto& r) { return engine.archive(id, r.actor); }));
  ops.add("runs.unarchive",
          run_command(ctx, {}, [&engine](auto& id, auto&, auto& r) { return engine.unarchive(id, r.actor); }));
  ops.add("runs.reset", run_command(ctx, {}, [&engine](auto& id, auto&, auto& r) { return engine.reset(id, r.actor); }));
  ops.add("runs.reconfigure", run_command(ctx, {"vars", "message"}, [&engine](auto& id, auto& rest, auto& r) {
            auto request = parse_reconfigure_request(rest);
            if (!request) return Result<core::Run>(request.failure());
            request->var_origin = r.var_origin;
            return engine.reconfigure(id, *request, r.actor);
          }));
}

/// What is recorded about a run besides its lifecycle: name, note, pin, backend session,
/// group.
void add_run_metadata_operations(Operations& ops, ApiContext& ctx) {
  auto& engine = ctx.engine;
  ops.add("runs.setName", run_command(ctx, {"name"}, [&engine](auto& id, auto& rest, auto& r) {
            auto name = rest.nullable_string("name");
            if (!name) return Result<core::Run>(name.failure());
            if (!name->present) return Result<core::Run>(required_nullable("name"));
            if (name->value && name->value->size() > max_name_bytes) return Result<core::Run>(too_long("name", "200 bytes"));
            return engine.set_name(id, name->value, r.actor);
          }));
  ops.add("runs.setNote", run_command(ctx, {"note"}, [&engine](auto& id, auto& rest, auto& r) {
            auto note = rest.nullable_string("note");
            if (!note) return Result<core::Run>(note.failure());
            if (!note->present) return Result<core::Run>(required_nullable("note"));
            if (note->value && note->value->size() > max_note_bytes) return Result<core::Run>(too_long("note", "64 KiB"));
            return engine.set_note(id, note->value, r.actor);
          }));
  ops.add("runs.setPinned", run_command(ctx, {"pinned"}, [&engine](auto& id, auto& rest, auto& r) {
            auto pinned = rest.required_bool("pinned");
            if (!pinned) return Result<core::Run>(pinned.failure());
            return engine.set_pinned(id, *pinned, r.actor);
          }));
  ops.add("runs.setBackendSession", run_command(ctx, {"backendSessionId"}, [&engine](auto& id, auto& rest, auto& r) {
            auto session = rest.required_string("backendSessionId");
            if (!session) return Result<core::Run>(session.failure());
            if (session->empty())
              return Result<core::Run>(core::fail(core::ErrorCode::invalid_request,
                                                  "field 'backendSessionId' must not be empty; clear it instead",
                                                  {{"field", "backendSessionId"}}));
            return engine.set_backend_session(id, *session, r.actor);
          }));
  ops.add("runs.clearBackendSession", run_command(ctx, {}, [&engine](auto& id, auto&, auto& r) {
            return engine.set_backend_session(id, std::nullopt, r.actor);
          }));
  ops.add("runs.setGroup", run_command(ctx, {"runGroupId"}, [&engine](auto& id, auto& rest, auto& r) {
            auto group = rest.required_string("runGroupId");
            if (!group) return Result<core::Run>(group.failure());
            return engine.set_group(id, *group, r.actor);
          }));
  ops.add("runs.clearGroup",
          run_command(ctx, {}, [&engine](auto& id, auto&, auto& r) { return engine.set_group(id, std::nullopt, r.actor); }));
}

}  // namespace

void add_run_operations(Operations& ops, ApiContext& ctx) {
  add_run_query_operations(ops, ctx);
  add_run_lifecycle_operations(ops, ctx);
  add_run_metadata_operations(ops, ctx);
  add_queued_message_operations(ops, ctx);
  add_approval_operations(ops, ctx);
}

}  // namespace agentry::api