#include "question.hpp"

#include <poll.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cerrno>
#include <chrono>

#include "agentry/plugin/cpp/ask.hpp"
#include "agentry/plugin_common/child_process.hpp"
#include "agentry/plugin_common/json_fields.hpp"
#include "agentry/plugin_common/side_question.hpp"
#include "config.hpp"
#include "process.hpp"

namespace agentry::claude {
namespace json = boost::json;
using plugin_common::object_field;
using plugin_common::text_field;

namespace {

constexpr std::size_t kMaxOutput = 4 * 1024 * 1024;
constexpr std::size_t kMaxErrorText = 2000;

std::optional<json::object> parse_object(const std::string& text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.get_object());
}

}  // namespace

std::optional<LaunchSpec> Question::launch_for(const std::string& request_json, std::string& why) {
  auto params = plugin_common::side_question_params(request_json, why);
  if (!params) return std::nullopt;
  ParsedLaunch launch = parse_ask_launch(*params);
  if (!launch.spec) why = launch.error;
  return launch.spec;
}

Question::Question(plugin::Host& host, std::string ask_id, LaunchSpec launch)
    : host_(host), ask_id_(std::move(ask_id)), launch_(std::move(launch)) {
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
  plugin_common::block_sigpipe_on_this_thread();
  ClaudeProcess child(launch_);

  // The prompt on stdin, then its output until it ends; the host's deadline ends it early.
  const std::string& prompt = launch_.prompt;
  std::string out, err;
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
  if (!result || text_field(&*result, "type") != "result") {
    std::string why = err.empty() ? out : err;
    if (why.size() > kMaxErrorText) why.resize(kMaxErrorText);
    return json::serialize(json::object{{"error", "claude gave no result: " + why}});
  }
  const json::value* is_error = result->if_contains("is_error");
  const std::string text = text_field(&*result, "result");
  if ((is_error && is_error->is_bool() && is_error->get_bool()) || text.empty())
    return json::serialize(
        json::object{{"error", "claude could not answer: " + (text.empty() ? text_field(&*result, "subtype") : text)}});
  json::object answer{{"answer", text}};
  if (const json::object* usage = object_field(&*result, "usage")) {
    json::object u;
    if (const json::value* v = usage->if_contains("input_tokens"); v && v->is_number()) u["inputTokens"] = *v;
    if (const json::value* v = usage->if_contains("output_tokens"); v && v->is_number()) u["outputTokens"] = *v;
    if (!u.empty()) answer["usage"] = std::move(u);
  }
  return json::serialize(answer);
}

}  // namespace agentry::claude
