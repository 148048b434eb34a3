#include "output_router.hpp"

#include <string>
#include <utility>

namespace agentry::subprocess {

LineSplitter OutputRouter::stdout_splitter() const noexcept {
  return mode_ == OutputMode::text ? LineSplitter(kTextChunkBytes, LineSplitter::Overflow::split)
                                   : LineSplitter(kJsonlLineBytes, LineSplitter::Overflow::truncate);
}

LineSplitter OutputRouter::stderr_splitter() noexcept {
  return LineSplitter(kStderrLineBytes, LineSplitter::Overflow::truncate);
}

std::optional<Event> OutputRouter::on_stdout(Line line) {
  if (mode_ == OutputMode::text) {
    if (line.ends_line) line.text.push_back('\n');
    tail_.append(line.text);
    return message_delta(line.text);
  }
  if (line.dropped > 0) return oversized_line_notice(line.text.size() + line.dropped);
  AgentLine mapped = map_agent_line(line.text);
  if (mapped.kind == AgentLine::Kind::finished) declared_ = std::move(mapped.declared);
  if (mapped.kind != AgentLine::Kind::event) return std::nullopt;
  return std::move(mapped.event);
}

std::optional<Event> OutputRouter::on_stderr(const Line& line) {
  if (stderr_notices_ >= kMaxStderrNotices) {
    ++stderr_suppressed_;
    return std::nullopt;
  }
  ++stderr_notices_;
  return stderr_notice(line.text, line.dropped);
}

std::vector<Event> OutputRouter::closing_events() const {
  std::vector<Event> out;
  if (mode_ == OutputMode::text && !tail_.empty()) out.push_back(tail_.completed_event());
  if (stderr_suppressed_ > 0)
    out.push_back(notice("warning", std::to_string(stderr_suppressed_) + " more stderr lines were not shown", "stderr"));
  return out;
}

}  // namespace agentry::subprocess
