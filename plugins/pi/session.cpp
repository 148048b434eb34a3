#include "session.hpp"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <unistd.h>

#include <boost/json.hpp>

#include "agentry/plugin/events.h"
#include "agentry/plugin_common/environment.hpp"
#include "agentry/plugin_common/json_fields.hpp"

namespace agentry::pi {

namespace common = agentry::plugin_common;
namespace json = boost::json;
using common::object_field;
using common::text_field;
using namespace std::chrono_literals;

namespace {

// pi exits when its stdin closes; one that does not is stopped after this.
constexpr auto kExitGrace = 3s;

}  // namespace

Session::Session(agentry::plugin::Host& host, common::runtime::Executor& executor, Launch launch)
    : host_(host),
      executor_(executor),
      launch_(std::move(launch)),
      events_(host, "pi"),
      ending_(executor, events_, follow_ups_, child_,
              {.child = "pi", .work = "its prompt ended", .stderr_name = "stderr", .exit_grace = kExitGrace},
              [this](const std::string& outcome, const std::string& message, std::optional<int> exit_code) {
                deliver(outcome, message, exit_code);
              }) {}

std::shared_ptr<Session> Session::start(agentry::plugin::Host& host, common::runtime::Executor& executor, Launch launch) {
  std::shared_ptr<Session> session(new Session(host, executor, std::move(launch)));
  executor.post([session] { session->begin(); });
  return session;
}

std::shared_ptr<Session> Session::ask(agentry::plugin::Host& host, common::runtime::Executor& executor, Launch launch,
                                      std::string ask_id) {
  std::shared_ptr<Session> session(new Session(host, executor, std::move(launch)));
  session->question_.emplace(std::move(ask_id), "pi");
  executor.post([session] { session->begin(); });
  return session;
}

void Session::emit(const common::runtime::Event& event) {
  if (question_) return question_->take(event);
  events_.emit(event);
}

std::vector<std::string> Session::argv_with_session() {
  std::vector<std::string> argv = launch_.argv;
  if (!question_) return argv;
  if (launch_.resume_session.empty()) {
    argv.emplace_back("--no-session");  // nothing to fork: a fresh conversation, not saved
    return argv;
  }
  // pi refuses --fork with --no-session; the fork's file goes where nobody resumes it.
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/agentry-pi-question-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::system_error(errno, std::generic_category(), "cannot make a scratch session dir");
  scratch_dir_ = pattern;
  for (const std::string& arg : {std::string("--fork"), launch_.resume_session, std::string("--session-dir"), scratch_dir_})
    argv.push_back(arg);
  return argv;
}

void Session::begin() {
  const common::ResolvedProgram program = common::resolve_program(launch_.argv.front(), launch_.env, launch_.cwd);
  if (program.path.empty())
    return ending_.finish("error",
                          "cannot start pi: " + program.error +
                              " (install @mariozechner/pi-coding-agent, then set backendConfig.pi.binary or "
                              "AGENTRY_PI_BIN if it is not on PATH; see docs/backends/pi.md)",
                          std::nullopt);
  if (std::string bad = common::check_workspace(launch_.cwd); !bad.empty())
    return ending_.finish("error", "cannot start pi: " + bad, std::nullopt);
  std::weak_ptr<Session> weak = weak_from_this();
  common::runtime::ChildHandlers handlers;
  handlers.stdout_line = [weak](common::Line line) {
    if (auto self = weak.lock()) self->on_line(line.text);
  };
  handlers.stderr_line = [weak](const common::Line& line) {
    if (auto self = weak.lock(); self && !line.text.empty()) self->host_.log(AGENTRY_LOG_INFO, "pi stderr: " + line.text);
  };
  handlers.exited = [weak](common::WaitStatus status) {
    if (auto self = weak.lock()) self->on_exit(status);
  };
  try {
    child_ = common::runtime::Child::spawn(executor_.get_executor(),
                                           common::runtime::ChildSpec{program.path, argv_with_session(), launch_.env, launch_.cwd},
                                           std::move(handlers));
  } catch (const std::system_error& e) {
    return ending_.finish("error", "cannot start '" + program.path + "': " + e.code().message(), std::nullopt);
  }
  host_.log(AGENTRY_LOG_INFO, "pi: started pid " + std::to_string(child_->pid()));
  // A failed model call is the attempt's error: the host's retries decide what comes next,
  // and agent_end stays the prompt's last word.
  command(json::object{{"type", "set_auto_retry"}, {"enabled", false}}, [](bool, const json::object&) {});
  if (launch_.resume_session.empty() || question_) return opened();  // a question's fork is open already
  command(json::object{{"type", "switch_session"}, {"sessionPath", launch_.resume_session}},
          [this](bool ok, const json::object& response) {
            const json::value* cancelled = object_field(&response, "data") ? object_field(&response, "data")->if_contains("cancelled") : nullptr;
            if (!ok || (cancelled && cancelled->is_bool() && cancelled->get_bool()))
              events_.notice("warning", "pi could not reopen session " + launch_.resume_session + " (" +
                                            text_field(&response, "error") +
                                            "): a new session starts, without the earlier conversation");
            opened();
          });
}

void Session::command(json::object command, Answer answer) {
  const int64_t id = next_id_++;
  command["id"] = "agentry-" + std::to_string(id);
  waiting_.emplace(id, std::move(answer));
  std::string line = json::serialize(command);
  line.push_back('\n');
  if (child_ && !child_->write(std::move(line))) host_.log(AGENTRY_LOG_WARNING, "pi: a command could not be written");
}

void Session::on_line(const std::string& line) {
  boost::system::error_code ec;
  json::value parsed = json::parse(line, ec);
  if (ec || !parsed.is_object()) {
    if (!line.empty()) host_.log(AGENTRY_LOG_WARNING, "pi: ignored a line that is not JSON: " + line.substr(0, 200));
    return;
  }
  const json::object& o = parsed.get_object();
  if (text_field(&o, "type") == "response") {
    const std::string id = text_field(&o, "id");
    if (id.rfind("agentry-", 0) != 0) return;
    auto found = waiting_.find(std::stoll(id.substr(8)));
    if (found == waiting_.end()) return;
    Answer answer = std::move(found->second);
    waiting_.erase(found);
    const json::value* success = o.if_contains("success");
    answer(success && success->is_bool() && success->get_bool(), o);
    return;
  }
  for (const Event& event : stream_.event(o)) emit(event);
  if (text_field(&o, "type") == "agent_end" && prompting_) prompt_ended();
}

void Session::opened() {
  if (!question_) {  // a question's scratch session is nothing to resume
    command(json::object{{"type", "get_state"}}, [this](bool ok, const json::object& response) {
      const std::string file = ok ? text_field(object_field(&response, "data"), "sessionFile") : std::string();
      // With --no-session there is no file, so nothing to resume later.
      if (!file.empty()) events_.emit(Event{AGENTRY_EVENT_CHECKPOINT, 0, json::object{{"resumeToken", file}}});
    });
  }
  if (interrupted_) return ending_.conclude("interrupted", "interrupted before the first prompt");
  prompt(launch_.prompt);
}

void Session::prompt(std::string text) {
  prompting_ = true;
  command(json::object{{"type", "prompt"}, {"message", std::move(text)}}, [this](bool ok, const json::object& response) {
    if (!ok) {
      prompting_ = false;
      ending_.conclude("error", "pi refused the prompt: " + text_field(&response, "error"));
    }
  });
}

void Session::prompt_ended() {
  prompting_ = false;
  for (const Event& event : stream_.end(interrupted_ ? "declined" : "failed")) emit(event);
  if (interrupted_ || stream_.stop_reason() == "aborted") return ending_.conclude("interrupted", "interrupted");
  if (stream_.stop_reason() == "error")
    return ending_.conclude("error", "the model call failed: " +
                                 (stream_.error_message().empty() ? std::string("(pi gave no reason)") : stream_.error_message()));
  if (stream_.stop_reason() == "length") events_.notice("warning", "pi stopped: the model reached its output limit");
  if (std::optional<std::string> next = follow_ups_.next_or_close()) return prompt(std::move(*next));
  ending_.conclude("success", {});
}

agentry_status_t Session::send_message(std::string text) {
  return follow_ups_.add(std::move(text)) ? AGENTRY_OK : AGENTRY_ERR_INVALID_STATE;
}

void Session::interrupt(std::string reason) {
  follow_ups_.close();
  executor_.post([self = shared_from_this(), reason = std::move(reason)] {
    if (self->interrupted_ || self->ending_.concluded() || self->ending_.finished()) return;
    self->interrupted_ = true;
    self->host_.log(AGENTRY_LOG_INFO, "pi: interrupt: " + reason);
    if (!self->prompting_) return self->ending_.conclude("interrupted", "interrupted");
    self->command(json::object{{"type", "abort"}}, [](bool, const json::object&) {});
    self->ending_.expect_stop_within(self->launch_.interrupt_grace,
                                     "interrupted; pi did not stop within the grace period");
  });
}

void Session::on_exit(common::WaitStatus status) {
  waiting_.clear();
  for (const Event& event : stream_.end(interrupted_ ? "declined" : "failed")) emit(event);
  ending_.exited(status, interrupted_);
}

void Session::deliver(const std::string& outcome, const std::string& message, std::optional<int> exit_code) noexcept {
  if (!scratch_dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(scratch_dir_, ignored);
    scratch_dir_.clear();
  }
  if (question_) return question_->send(host_, outcome, message);
  events_.finish(outcome, message, exit_code);
}

void Session::abandon() noexcept {
  if (question_) question_->drop();
  ending_.abandon();
}

}  // namespace agentry::pi
