// `list`, `show`, `status`, `brief`, `logs`, `audit`: reading runs and their history.

#include "cli/commands/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/follow.hpp"
#include "cli/interrupt.hpp"
#include "cli/render.hpp"
#include "cli/timeline_render.hpp"

#include <ostream>

namespace agentry::cli {
namespace json = boost::json;

namespace {

core::Result<json::object> list_params(const ListOptions& o, const Environment& env) {
  int scopes = !o.cwd.empty() + !o.repo.empty() + !o.group.empty() + o.global;
  if (scopes > 1)
    return core::fail(core::ErrorCode::invalid_request, "give at most one of --cwd, --repo, --group and --global");
  json::object params;
  auto absolute = [&](const std::string& p) { return (env.cwd / p).lexically_normal().string(); };
  if (o.global) params["global"] = true;
  else if (!o.group.empty()) params["runGroupId"] = o.group;
  else if (!o.repo.empty()) params["repo"] = absolute(o.repo);
  else params["cwd"] = o.cwd.empty() ? env.cwd.string() : absolute(o.cwd);
  if (o.all) params["includeArchived"] = true;
  if (o.limit > 0) params["limit"] = o.limit;
  if (!o.cursor.empty()) params["cursor"] = o.cursor;
  return params;
}

}  // namespace

int list_command(CommandContext& ctx, const ListOptions& o) {
  auto params = list_params(o, ctx.env());
  if (!params) return ctx.report(params.error());
  auto result = ctx.call("runs.list", std::move(*params));
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) { return render_run_list(v.as_object()); });
}

int show_command(CommandContext& ctx, const std::string& run_id) {
  auto result = ctx.call("runs.get", json::object{{"runId", run_id}});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) { return render_run_detail(v.as_object().at("run").as_object()); });
}

int status_command(CommandContext& ctx, const std::string& run_id) {
  auto result = ctx.call("runs.get", json::object{{"runId", run_id}});
  if (!result) return ctx.report(result.error());
  const auto& run = result->as_object().at("run").as_object();
  ctx.print(*result, [&](const json::value&) { return render_run_status(run); });
  return exit_code::for_run_status(text_at(json::value(run), "status"));
}

int brief_command(CommandContext& ctx, const std::string& run_id) {
  auto result = ctx.call("runs.brief", json::object{{"runId", run_id}});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) {
    std::string brief = text_at(v, "brief");
    if (!brief.empty() && brief.back() != '\n') brief += '\n';
    return brief;
  });
}

int ask_command(CommandContext& ctx, const std::string& run_id, const std::string& question, int timeout_sec) {
  auto result =
      ctx.call("runs.ask", json::object{{"runId", run_id}, {"question", question}, {"timeoutSec", timeout_sec}});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) {
    std::string answer = text_at(v, "answer");
    if (answer.empty() || answer.back() != '\n') answer += '\n';
    return answer;
  });
}

namespace {

/// Every page of a history operation after `after` (up to `limit` events when > 0),
/// joined into one result of the operation's shape.
core::Result<json::object> history(CommandContext& ctx, const std::string& method, const std::string& run_id,
                                   std::int64_t after, std::int64_t limit) {
  json::object joined;
  json::array events;
  std::int64_t cursor = after;
  for (;;) {
    std::int64_t page_limit = limit > 0 ? std::min<std::int64_t>(limit - static_cast<std::int64_t>(events.size()), 1000) : 1000;
    auto page = ctx.call(method, json::object{{"runId", run_id}, {"after", cursor}, {"limit", page_limit}});
    if (!page) return page.failure();
    auto& object = page->as_object();
    if (joined.empty()) joined = object;  // runId, attempts (timeline)
    const auto& list = object.at("events").as_array();
    for (const auto& e : list) events.push_back(e);
    cursor = object.at("lastCursor").as_int64();
    if (list.empty() || (limit > 0 && static_cast<std::int64_t>(events.size()) >= limit)) break;
  }
  joined["events"] = std::move(events);
  joined["lastCursor"] = cursor;
  return joined;
}

}  // namespace

int logs_command(CommandContext& ctx, const HistoryOptions& o) {
  if (o.follow) {
    auto client = ctx.client();
    if (!client) return ctx.report(client.error());
    InterruptGuard guard;  // Ctrl-C stops watching; the run goes on
    FollowOptions options;
    options.after = o.after;
    options.json_lines = ctx.json();
    auto outcome = follow_run(**client, o.run_id, options, ctx.out(), ctx.err());
    if (outcome.interrupted) return exit_code::cancelled;
    if (outcome.error) return ctx.report(*outcome.error);
    return exit_code::for_run_status(outcome.status);
  }
  auto result = history(ctx, "runs.timelineHistory", o.run_id, o.after, o.limit);
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) {
    std::string out;
    for (const auto& e : v.as_object().at("events").as_array()) out += render_timeline_event(e.as_object());
    return out.empty() ? std::string("no timeline events\n") : out;
  });
}

int audit_command(CommandContext& ctx, const HistoryOptions& o) {
  auto result = history(ctx, "runs.auditHistory", o.run_id, o.after, o.limit);
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) { return render_audit(v.as_object().at("events").as_array()); });
}

}  // namespace agentry::cli
