#include "support/http_wire.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <stdexcept>

namespace agentry::test {

std::string to_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string excerpt(std::string_view s) {
  constexpr std::size_t max = 200;
  return s.size() <= max ? std::string(s) : std::string(s.substr(0, max)) + "...";
}

// Takes one line (without its LF, CR trimmed) off the front of `rest`.
std::optional<std::string_view> take_line(std::string_view& rest) {
  const auto lf = rest.find('\n');
  if (lf == std::string_view::npos) return std::nullopt;
  std::string_view line = rest.substr(0, lf);
  rest.remove_prefix(lf + 1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

bool has_chunked_coding(std::string_view te) {
  // The last transfer coding decides; "gzip, chunked" is chunked.
  const auto comma = te.rfind(',');
  const std::string_view last = trim(comma == std::string_view::npos ? te : te.substr(comma + 1));
  return to_lower(last) == "chunked";
}

}  // namespace

std::optional<std::size_t> find_head_end(std::string_view bytes) {
  const auto crlf = bytes.find("\r\n\r\n");
  const auto lf = bytes.find("\n\n");
  if (crlf == std::string_view::npos && lf == std::string_view::npos) return std::nullopt;
  if (lf == std::string_view::npos || (crlf != std::string_view::npos && crlf < lf)) return crlf + 4;
  return lf + 2;
}

ResponseHead parse_response_head(std::string_view head) {
  std::string_view rest = head;
  const auto status_line = take_line(rest);
  if (!status_line || !status_line->starts_with("HTTP/1.") || status_line->size() < 12 ||
      (*status_line)[8] != ' ') {
    throw std::runtime_error("malformed HTTP status line: \"" +
                             excerpt(status_line ? *status_line : head) + "\"");
  }
  ResponseHead out;
  const std::string_view code = status_line->substr(9, 3);
  const auto [ptr, ec] = std::from_chars(code.data(), code.data() + code.size(), out.status);
  if (ec != std::errc{} || ptr != code.data() + code.size() || out.status < 100 || out.status > 999) {
    throw std::runtime_error("malformed HTTP status code in \"" + excerpt(*status_line) + "\"");
  }
  out.reason = std::string(trim(status_line->substr(12)));
  while (auto line = take_line(rest)) {
    if (line->empty()) break;
    const auto colon = line->find(':');
    if (colon == std::string_view::npos || colon == 0) {
      throw std::runtime_error("malformed HTTP header line: \"" + excerpt(*line) + "\"");
    }
    const std::string name = to_lower(trim(line->substr(0, colon)));
    const std::string_view value = trim(line->substr(colon + 1));
    auto [it, inserted] = out.headers.try_emplace(name, value);
    if (!inserted) {
      it->second += ", ";
      it->second += value;
    }
  }
  return out;
}

BodyDecoder BodyDecoder::for_response(const ResponseHead& head, std::string_view method) {
  BodyDecoder d;
  const bool no_body = method == "HEAD" || (head.status >= 100 && head.status < 200) ||
                       head.status == 204 || head.status == 304;
  if (no_body) return d;  // Framing::none, done
  if (const auto te = head.headers.find("transfer-encoding"); te != head.headers.end()) {
    if (has_chunked_coding(te->second)) {
      d.framing_ = Framing::chunked;
      d.state_ = State::size_line;
    } else {
      d.framing_ = Framing::until_close;
      d.state_ = State::raw;
    }
    return d;
  }
  if (const auto cl = head.headers.find("content-length"); cl != head.headers.end()) {
    const std::string& v = cl->second;
    const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), d.remaining_);
    if (ec != std::errc{} || ptr != v.data() + v.size()) {
      throw std::runtime_error("malformed Content-Length header: \"" + excerpt(v) + "\"");
    }
    d.framing_ = Framing::content_length;
    d.state_ = d.remaining_ == 0 ? State::done : State::data;
    return d;
  }
  d.framing_ = Framing::until_close;
  d.state_ = State::raw;
  return d;
}

void BodyDecoder::feed(std::string_view in, std::string& out) {
  switch (framing_) {
    case Framing::none:
      return;
    case Framing::until_close:
      out.append(in);
      return;
    case Framing::content_length: {
      if (state_ == State::done) return;
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, in.size()));
      out.append(in.substr(0, n));
      remaining_ -= n;
      if (remaining_ == 0) state_ = State::done;
      return;
    }
    case Framing::chunked:
      if (state_ == State::done) return;
      pending_.append(in);
      feed_chunked(out);
      return;
  }
}

void BodyDecoder::feed_chunked(std::string& out) {
  std::string_view rest = pending_;
  while (state_ != State::done) {
    if (state_ == State::size_line) {
      const std::string_view before = rest;
      const auto line = take_line(rest);
      if (!line) {
        if (rest.size() > 4096) throw std::runtime_error("chunk size line longer than 4096 bytes");
        break;
      }
      // "1a2b;ext=value" — the size is the hex digits before any extension or whitespace.
      const std::string_view digits = trim(line->substr(0, line->find(';')));
      std::uint64_t size = 0;
      const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), size, 16);
      if (digits.empty() || ec != std::errc{} || ptr != digits.data() + digits.size()) {
        throw std::runtime_error("malformed chunk size line: \"" +
                                 excerpt(before.substr(0, before.size() - rest.size())) + "\"");
      }
      remaining_ = size;
      state_ = size == 0 ? State::trailer : State::data;
    } else if (state_ == State::data) {
      if (rest.empty()) break;
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, rest.size()));
      out.append(rest.substr(0, n));
      rest.remove_prefix(n);
      remaining_ -= n;
      if (remaining_ == 0) state_ = State::data_end;
    } else if (state_ == State::data_end) {
      const auto line = take_line(rest);
      if (!line) {
        if (rest.size() >= 2) throw std::runtime_error("chunk data not followed by CRLF");
        break;
      }
      if (!line->empty()) throw std::runtime_error("chunk data not followed by CRLF");
      state_ = State::size_line;
    } else {  // trailer section: header lines until an empty line
      const auto line = take_line(rest);
      if (!line) break;
      if (line->empty()) state_ = State::done;
    }
  }
  pending_.erase(0, pending_.size() - rest.size());
  if (state_ == State::done) pending_.clear();
}

std::optional<std::string> BodyDecoder::truncation_error() const {
  if (framing_ == Framing::until_close || state_ == State::done) return std::nullopt;
  if (framing_ == Framing::content_length) {
    return "connection closed with " + std::to_string(remaining_) +
           " bytes of the Content-Length body still missing";
  }
  return std::string("connection closed in the middle of a chunked body");
}

}  // namespace agentry::test
