// agent-runner's `run` (a fresh run, or --resume-run), `init`, `run status` and `run
// brief`: starting and resuming go through agentry's own commands, which follow the run
// and exit by its status; the JSON at the end is agent-runner's RunDetail.

#include "api/compat/compat_dto.hpp"
#include "cli/commands/commands.hpp"
#include "cli/compat/agent_runner_invocation.hpp"
#include "definitions/dialect.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <sstream>

namespace agentry::cli::compat {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

/// Another context's client, lent to agentry's own command run inside this one: the same
/// connection (or embedded stack), which the borrower must not close.
class BorrowedClient : public Client {
 public:
  explicit BorrowedClient(Client* owner) : owner_(owner) {}
  core::Result<json::value> call(const std::string& method, json::object params) override {
    return owner_->call(method, std::move(params));
  }
  core::Result<std::string> subscribe(const SubscribeRequest& request, StreamHandlers handlers) override {
    return owner_->subscribe(request, std::move(handlers));
  }
  void unsubscribe(const std::string& id) override { owner_->unsubscribe(id); }
  core::Result<json::value> upload_attachment(const std::string& run, const fs::path& file, const std::string& name,
                                              const TransferProgress& progress) override {
    return owner_->upload_attachment(run, file, name, progress);
  }
  core::Result<json::value> download_attachment(const std::string& run, const std::string& id, const fs::path& to,
                                                const TransferProgress& progress) override {
    return owner_->download_attachment(run, id, to, progress);
  }
  bool drives_runs() const override { return owner_->drives_runs(); }
  std::string describe() const override { return owner_->describe(); }

 private:
  Client* owner_;
};

/// `text` as a non-negative int; nullopt when it is not one.
std::optional<int> whole_number(const std::string& text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

}  // namespace

int Invocation::run_status() {
  if (auto refused = refuse_others("run status", {"--output-format", "--field"})) return *refused;
  if (auto refused = want_words("run status", 2, {"run"})) return *refused;
  const auto& fields = args_.values("--field");
  if (!fields.empty() && !json_output()) return usage("--field needs --output-format json");
  auto native = ctx_.call("runs.get", json::object{{"runId", word(2)}});
  if (!native) return failed(native.error());
  const auto detail = api::compat::ref_detail(native->at("run").as_object(), facts());
  if (!json_output()) {
    ctx_.out() << status_lines(detail);
    return exit_code::success;
  }
  if (fields.empty()) return print_json(detail);
  auto projected = project_fields(detail, fields);
  if (!projected) return failed(projected.error());
  return print_json(*projected);
}

int Invocation::run_brief() {
  if (auto refused = refuse_others("run brief", {})) return *refused;
  if (auto refused = want_words("run brief", 2, {"run"})) return *refused;
  auto brief = ctx_.call("runs.brief", json::object{{"runId", word(2)}});
  if (!brief) return failed(brief.error());
  auto* text = brief->as_object().if_contains("brief");
  ctx_.out() << (text && text->is_string() ? std::string(text->as_string()) : std::string()) << "\n";
  return exit_code::success;
}

int Invocation::through_own_command(const std::function<int(CommandContext&)>& command,
                                    const std::function<json::value(const json::object& native_run)>& shape) {
  // Reached first, so that an unreachable daemon is agent-runner's 3 here too.
  auto client = ctx_.client();
  if (!client) return failed(client.error());
  if (!json_output()) return command(ctx_);
  // Our command prints its answers as one line of JSON each; the last one holds the run.
  std::ostringstream kept;
  GlobalOptions global = ctx_.global();
  global.json = true;
  int code = 0;
  {
    Client* shared = *client;
    CommandContext own(global, ctx_.env(), kept, ctx_.err(), [shared](const GlobalOptions&, const Environment&) {
      return core::Result<std::unique_ptr<Client>>(std::make_unique<BorrowedClient>(shared));
    });
    code = command(own);
  }
  std::istringstream lines(kept.str());
  std::string line, last;
  while (std::getline(lines, line))
    if (!line.empty()) last = line;
  if (last.empty()) return code;
  boost::system::error_code ec;
  auto answer = json::parse(last, ec);
  if (ec || !answer.is_object()) return code;
  auto* run = answer.as_object().if_contains("run");
  if (run && run->is_object()) print_json(shape(run->as_object()));
  return code;
}

int Invocation::start(bool is_init) {
  const std::string command = is_init ? "init" : "run";
  std::vector<std::string> allowed{"--output-format", "--agent",      "--assignment", "--var",
                                   "--name",          "--cwd",        "--message-file", "--parent-run",
                                   "--no-inherit-run-group", "--group-id", "--add-task", "--launcher",
                                   "--environment", "--model", "--effort", "--timeout-sec", "--max-retries",
                                   "--backend", "--unrestricted"};
  if (!is_init) {
    allowed.push_back("--detach");
    allowed.push_back("--no-notify-parent-on-complete");
  } else {
    allowed.push_back("--run-id");  // re-initialize that run from its definitions as they are now
  }
  if (auto refused = refuse_others(command, allowed)) return *refused;
  const auto run_id = args_.value("--run-id");
  auto agent = args_.value("--agent");
  const auto backend = args_.value("--backend");
  if (backend && backend->empty()) return usage("--backend cannot be empty");
  // Without --agent, --backend runs an ad-hoc agent (engine/ad_hoc_agent.hpp), as there.
  if (!run_id && (!agent || agent->empty()) && !backend)
    return usage(command + " needs --agent <name>, or --backend <name> to run an ad-hoc agent (or --resume-run " +
                 "<run> to resume" + (is_init ? ", --run-id <run> to re-initialize)" : ")"));
  if (args_.has("--no-notify-parent-on-complete") && !args_.has("--detach"))
    return usage("--no-notify-parent-on-complete goes with --detach");
  StartOptions o;
  o.run_id = run_id.value_or("");
  o.agent = agent.value_or("");
  o.assignment = args_.value("--assignment").value_or("");
  o.vars = args_.values("--var");
  o.name = args_.value("--name").value_or("");
  o.cwd = args_.value("--cwd").value_or("");
  if (auto parent = args_.value("--parent-run")) {
    o.parent = *parent;
    o.parent_given = true;
  }
  if (auto group = args_.value("--group-id")) {
    o.group = *group;
    o.group_given = true;
  }
  o.no_inherit_group = args_.has("--no-inherit-run-group");
  o.add_tasks = args_.values("--add-task");
  o.launcher = args_.value("--launcher").value_or("");
  o.environment = args_.value("--environment").value_or("");
  o.model = args_.value("--model").value_or("");
  o.effort = args_.value("--effort").value_or("");
  const auto& levels = definitions::agent_runner_effort_levels;
  if (!o.effort.empty() && std::find(levels.begin(), levels.end(), o.effort) == levels.end())
    return usage("--effort must be one of off, minimal, low, medium, high, xhigh or max (got '" + o.effort + "')");
  o.backend = backend.value_or("");
  if (args_.has("--unrestricted")) o.unrestricted = true;
  for (auto [option, field] : {std::pair{"--timeout-sec", &o.timeout_sec}, std::pair{"--max-retries", &o.max_retries}}) {
    auto text = args_.value(option);
    if (!text) continue;
    auto number = whole_number(*text);
    if (!number) return usage(std::string(option) + " takes a whole number (got '" + *text + "')");
    *field = *number;
  }
  o.detach = args_.has("--detach");
  o.no_notify_parent = args_.has("--no-notify-parent-on-complete");
  if (auto refused = message_from_words(o.message)) return *refused;
  const bool detached = o.detach;
  auto facts_now = [this] { return facts(); };
  return through_own_command([&](CommandContext& c) { return start_command(c, o, !is_init); },
                             [&](const json::object& run) -> json::value {
                               if (detached) return json::object{{"runId", run.at("runId")}, {"detached", true}};
                               return api::compat::ref_detail(run, facts_now());
                             });
}

std::optional<int> Invocation::message_from_words(MessageInput& m) {
  if (auto file = args_.value("--message-file")) {
    if (args_.words.size() > 1) return usage("--message-file and a message in words: give one");
    m.file = *file;
  } else if (args_.words.size() > 1) {
    m.text.clear();
    for (std::size_t i = 1; i < args_.words.size(); ++i) m.text += (i > 1 ? " " : "") + word(i);
    m.text_given = true;
  }
  return std::nullopt;
}

int Invocation::resume() {
  if (auto refused = refuse_others("run --resume-run", {"--output-format", "--resume-run", "--detach", "--message-file"}))
    return *refused;
  ResumeOptions o;
  o.run_id = *args_.value("--resume-run");
  o.detach = args_.has("--detach");
  if (auto refused = message_from_words(o.message)) return *refused;
  const bool detached = o.detach;
  return through_own_command([&](CommandContext& c) { return resume_command(c, o); },
                             [&](const json::object& run) -> json::value {
                               if (detached) return json::object{{"runId", run.at("runId")}, {"detached", true}};
                               return api::compat::ref_detail(run, facts());
                             });
}

}  // namespace agentry::cli::compat
