#include "question.hpp"

#include <poll.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cerrno>
#include <chrono>

#include "agentry/plugin/cpp/ask.hpp"
#include "agentry/plugin_common/child_process.hpp"
#include "agentry/plugin_common/side_question.hpp"
#include "config.hpp"
#include "process.hpp"

namespace agentry::claude {
namespace json = boost::json;

namespace {

constexpr std::size_t kMaxOutput = 4 * 1024 * 1024;
constexpr std::size_t kMaxErrorText = 2000;

std::string string_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

const json::object* object_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

std::optional<json::object> parse_object(const std::string& text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.get_object());
}

// The start params a fork of the run's session needs, from the ask request.
std::optional<plugin::StartParams> params_of(const json::object& request, const std::string& prompt) {
  const json::object* config = object_at(request, "config");
  const std::string workspace = string_at(request, "workspacePath");
  if (!config || workspace.empty()) return std::nullopt;
  plugin::StartParams p;
  p.run_id = string_at(request, "runId");
  p.session_id = p.run_id + "/ask";
  p.workspace_path = workspace;
  p.config_json = json::serialize(*config);
  p.input_json = json::serialize(json::object{{"prompt", prompt}});
  if (std::string token = string_at(request, "resumeToken"); !token.empty()) p.resume_token = token;
  return p;
}

}  // namespace

agentry_status_t Question::check(const std::string& request_json, std::string& why) {
  auto request = parse_object(request_json);
  if (!request) return why = "the request is not a JSON object", AGENTRY_ERR_INVALID_ARGUMENT;
  auto params = params_of(*request, "?");
  if (!params) return why = "the request has no config or workspacePath", AGENTRY_ERR_INVALID_ARGUMENT;
  ParsedLaunch launch = parse_ask_launch(*params);
  if (!launch.spec) return why = launch.error, AGENTRY_ERR_INVALID_ARGUMENT;
  return AGENTRY_OK;
}

Question::Question(plugin::Host& host, std::string ask_id, std::string request_json)
    : host_(host), ask_id_(std::move(ask_id)), request_json_(std::move(request_json)) {
  worker_ = std::thread([this] { run(); });
}

Question::~Question() {
  cancelled_ = true;
  if (worker_.joinable()) worker_.join();
}

void Question::run() noexcept {
  std::string answer;
  try {
    answer = answer_json();
  } catch (const std::exception& e) {
    answer = json::serialize(json::object{{"error", std::string("claude: ") + e.what()}});
  } catch (...) {
    answer = R"({"error":"claude: an unknown failure"})";
  }
  if (cancelled_) return;  // the host gave up; it would refuse the answer anyway
  if (plugin::answer_ask(host_, ask_id_, answer) != AGENTRY_OK)
    host_.log(AGENTRY_LOG_WARNING, "claude: the host refused the answer to " + ask_id_);
}

std::string Question::answer_json() {
  const auto request = parse_object(request_json_).value_or(json::object());
  auto params = params_of(request, plugin_common::side_question_prompt(request_json_));
  if (!params) return R"({"error":"the request has no config or workspacePath"})";
  ParsedLaunch launch = parse_ask_launch(*params);
  if (!launch.spec) return json::serialize(json::object{{"error", launch.error}});
  plugin_common::block_sigpipe_on_this_thread();
  ClaudeProcess child(*launch.spec);

  // The prompt on stdin, then its output until it ends; the host's deadline ends it early.
  std::string prompt = launch.spec->prompt, out, err;
  std::size_t written = 0;
  bool out_open = true, err_open = true;
  while ((out_open || err_open) && !cancelled_) {
    pollfd fds[3]{{child.stdout_fd(), POLLIN, 0}, {child.stderr_fd(), POLLIN, 0}, {child.stdin_fd(), POLLOUT, 0}};
    const nfds_t n = child.stdin_fd() >= 0 ? 3 : 2;
    if (::poll(fds, n, 200) < 0 && errno != EINTR) break;
    if (n == 3 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t w = ::write(child.stdin_fd(), prompt.data() + written, prompt.size() - written);
      if (w > 0) written += static_cast<std::size_t>(w);
      if (w < 0 && errno != EAGAIN && errno != EINTR) written = prompt.size();
      if (written >= prompt.size()) child.close_stdin();
    }
    char buf[65536];
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t r = ::read(fds[i].fd, buf, sizeof buf);
      if (r > 0) {
        std::string& sink = i == 0 ? out : err;
        if (sink.size() < kMaxOutput) sink.append(buf, static_cast<std::size_t>(r));
      } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        if (i == 0) out_open = false, child.close_stdout();
        else err_open = false, child.close_stderr();
      }
    }
  }
  if (cancelled_) return {};
  for (int i = 0; i < 50 && !child.poll_exit(); ++i) ::usleep(10000);

  // --output-format json: one object, {"type": "result", "is_error", "result", "usage"}.
  auto result = parse_object(out);
  if (!result || string_at(*result, "type") != "result") {
    std::string why = err.empty() ? out : err;
    if (why.size() > kMaxErrorText) why.resize(kMaxErrorText);
    return json::serialize(json::object{{"error", "claude gave no result: " + why}});
  }
  const json::value* is_error = result->if_contains("is_error");
  const std::string text = string_at(*result, "result");
  if ((is_error && is_error->is_bool() && is_error->get_bool()) || text.empty())
    return json::serialize(
        json::object{{"error", "claude could not answer: " + (text.empty() ? string_at(*result, "subtype") : text)}});
  json::object answer{{"answer", text}};
  if (const json::object* usage = object_at(*result, "usage")) {
    json::object u;
    if (const json::value* v = usage->if_contains("input_tokens"); v && v->is_number()) u["inputTokens"] = *v;
    if (const json::value* v = usage->if_contains("output_tokens"); v && v->is_number()) u["outputTokens"] = *v;
    if (!u.empty()) answer["usage"] = std::move(u);
  }
  return json::serialize(answer);
}

}  // namespace agentry::claude
