#include "agentry/plugin_common/line_splitter.hpp"

namespace agentry::plugin_common {

std::size_t utf8_prefix_length(std::string_view text, std::size_t max_bytes) noexcept {
  if (text.size() <= max_bytes) return text.size();
  std::size_t n = max_bytes;
  // text[n] is the first byte left out; while it is a continuation byte, the cut splits
  // a sequence. A valid sequence has at most 3 continuation bytes.
  for (int back = 0; back < 3 && n > 0; ++back) {
    if ((static_cast<unsigned char>(text[n]) & 0xC0) != 0x80) return n;
    --n;
  }
  return (static_cast<unsigned char>(text[n]) & 0xC0) != 0x80 ? n : max_bytes;
}

std::vector<Line> LineSplitter::feed(std::string_view data) {
  std::vector<Line> out;
  while (!data.empty()) {
    const std::size_t nl = data.find('\n');
    take(data.substr(0, nl), out);
    if (nl == std::string_view::npos) break;
    out.push_back(flush(true));
    data.remove_prefix(nl + 1);
  }
  return out;
}

std::optional<Line> LineSplitter::finish() {
  if (buffer_.empty() && !skipping_) return std::nullopt;
  return flush(false);
}

void LineSplitter::take(std::string_view segment, std::vector<Line>& out) {
  if (skipping_) {
    dropped_ += segment.size();
    return;
  }
  buffer_.append(segment);
  while (buffer_.size() > max_line_) {
    const std::size_t keep = utf8_prefix_length(buffer_, max_line_);
    const std::size_t cut = keep > 0 ? keep : max_line_;
    if (overflow_ == Overflow::split) {
      out.push_back(Line{buffer_.substr(0, cut), false, 0});
      buffer_.erase(0, cut);
    } else {
      dropped_ += buffer_.size() - cut;
      buffer_.resize(cut);
      skipping_ = true;
    }
  }
}

Line LineSplitter::flush(bool ends_line) {
  Line line{std::move(buffer_), ends_line, dropped_};
  buffer_.clear();
  skipping_ = false;
  dropped_ = 0;
  return line;
}

}  // namespace agentry::plugin_common
