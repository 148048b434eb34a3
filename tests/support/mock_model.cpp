#include "support/mock_model.hpp"

#include <fstream>
#include <stdexcept>

#include <boost/json/parse.hpp>
#include <fcntl.h>
#include <unistd.h>

#include "support/socket_io.hpp"
#include "support/source_tree.hpp"
#include "support/subprocess.hpp"


namespace agentry::test {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

// The system interpreter when there is one: a pyenv `python3` shim on PATH costs a second
// or more per start.
std::string python() { return ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3"; }

}  // namespace

MockModel::MockModel(fs::path request_log) : log_(std::move(request_log)) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  UniqueFd out(fds[0]);
  UniqueFd in(fds[1]);
  SpawnOptions options;
  options.argv = {python(), source_file("tests/e2e/mock_model/server.py"), "--port", "0"};
  if (!log_.empty()) options.argv.insert(options.argv.end(), {"--log", log_.string()});
  options.env = environment_with({});
  options.stdout_fd = in.get();
  options.new_process_group = true;
  options.die_with_parent = true;  // a test killed by ctest's timeout must not leave the mock behind
  pid_ = spawn_process(options);
  in.reset();  // EOF on `out` if the server dies before printing
  // The only line the server prints: "listening on 127.0.0.1:<port>".
  std::string line;
  char c = 0;
  while (line.size() < 200 && ::read(out.get(), &c, 1) == 1 && c != '\n') line.push_back(c);
  const std::string prefix = "listening on 127.0.0.1:";
  if (line.rfind(prefix, 0) != 0) {
    stop_process_group(pid_);
    throw std::runtime_error("the mock model did not start: '" + line + "'");
  }
  port_ = std::stoi(line.substr(prefix.size()));
}

MockModel::~MockModel() { stop_process_group(pid_); }

std::vector<json::object> MockModel::request_bodies(std::string_view path_part) const {
  std::vector<json::object> out;
  if (log_.empty()) return out;
  std::ifstream in(log_);
  for (std::string line; std::getline(in, line);) {
    if (in.eof()) break;  // no newline yet: the mock is still writing this request's line
    const json::value entry = json::parse(line);
    const json::object& fields = entry.as_object();
    if (fields.at("path").as_string().find(path_part) != json::string::npos && fields.at("body").is_object())
      out.push_back(fields.at("body").as_object());
  }
  return out;
}

}  // namespace agentry::test
