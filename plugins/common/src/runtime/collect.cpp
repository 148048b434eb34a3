#include "agentry/plugin_common/runtime/collect.hpp"

#include <utility>

namespace agentry::plugin_common::runtime {

std::shared_ptr<Child> collect(const boost::asio::any_io_executor& io, ChildSpec spec, std::string input, std::size_t max_bytes,
                               std::function<void(Collected)> done) {
  auto collected = std::make_shared<Collected>();
  // The bytes as written, newlines included, up to max_bytes.
  auto keep = [max_bytes](std::string& sink, const Line& line) {
    if (sink.size() >= max_bytes) return;
    sink.append(line.text.substr(0, max_bytes - sink.size()));
    if (line.ends_line && sink.size() < max_bytes) sink.push_back('\n');
  };
  ChildHandlers handlers;
  handlers.stdout_line = [collected, keep](Line line) { keep(collected->out, line); };
  handlers.stderr_line = [collected, keep](const Line& line) { keep(collected->err, line); };
  handlers.exited = [collected, done = std::move(done)](WaitStatus status) {
    collected->status = status;
    done(std::move(*collected));
  };
  spec.max_stdout_line = max_bytes;
  std::shared_ptr<Child> child = Child::spawn(io, std::move(spec), std::move(handlers));
  if (!input.empty()) child->write(std::move(input));
  child->close_stdin();
  return child;
}

}  // namespace agentry::plugin_common::runtime
