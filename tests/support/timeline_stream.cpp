#include "support/timeline_stream.hpp"

#include "support/ws_client.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <random>
#include <stdexcept>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace agentry::test {
namespace {

// --- A JSON scanner: walks the text, skipping what it does not need. ---

struct Cursor {
  const char* p;
  const char* end;
  void ws() {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
  }
};

bool skip_string(Cursor& c) {  // at '"'
  ++c.p;
  while (c.p < c.end) {
    const void* hit = std::memchr(c.p, '"', static_cast<std::size_t>(c.end - c.p));
    if (!hit) return false;
    const char* q = static_cast<const char*>(hit);
    // Count the backslashes just before the quote: an odd number escapes it.
    const char* b = q;
    while (b > c.p && b[-1] == '\\') --b;
    c.p = q + 1;
    if (((q - b) & 1) == 0) return true;
  }
  return false;
}

bool skip_value(Cursor& c, int depth = 0) {
  if (depth > 64) return false;
  c.ws();
  if (c.p >= c.end) return false;
  switch (*c.p) {
    case '"':
      return skip_string(c);
    case '{':
    case '[': {
      const char close = *c.p == '{' ? '}' : ']';
      const bool object = close == '}';
      ++c.p;
      c.ws();
      if (c.p < c.end && *c.p == close) return ++c.p, true;
      for (;;) {
        if (object) {
          c.ws();
          if (c.p >= c.end || *c.p != '"' || !skip_string(c)) return false;
          c.ws();
          if (c.p >= c.end || *c.p != ':') return false;
          ++c.p;
        }
        if (!skip_value(c, depth + 1)) return false;
        c.ws();
        if (c.p >= c.end) return false;
        if (*c.p == ',') {
          ++c.p;
          continue;
        }
        if (*c.p == close) return ++c.p, true;
        return false;
      }
    }
    default: {
      const char* start = c.p;
      while (c.p < c.end && (std::isalnum(static_cast<unsigned char>(*c.p)) || *c.p == '-' || *c.p == '+' ||
                             *c.p == '.'))
        ++c.p;
      return c.p > start;
    }
  }
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool hex4(const char* p, const char* end, std::uint32_t& out) {
  if (end - p < 4) return false;
  out = 0;
  for (int i = 0; i < 4; ++i) {
    const char h = p[i];
    out <<= 4;
    if (h >= '0' && h <= '9') out |= static_cast<std::uint32_t>(h - '0');
    else if (h >= 'a' && h <= 'f') out |= static_cast<std::uint32_t>(h - 'a' + 10);
    else if (h >= 'A' && h <= 'F') out |= static_cast<std::uint32_t>(h - 'A' + 10);
    else return false;
  }
  return true;
}

/// Calls f(key, raw value) per member; false when `json` is not a well-formed object.
template <class F>
bool members_of(std::string_view json, F&& f) {
  Cursor c{json.data(), json.data() + json.size()};
  c.ws();
  if (c.p >= c.end || *c.p != '{') return false;
  ++c.p;
  c.ws();
  if (c.p < c.end && *c.p == '}') return true;
  std::string key_buffer;
  for (;;) {
    c.ws();
    if (c.p >= c.end || *c.p != '"') return false;
    const char* key_start = c.p;
    if (!skip_string(c)) return false;
    std::string_view raw_key(key_start, static_cast<std::size_t>(c.p - key_start));
    std::string_view key = raw_key.substr(1, raw_key.size() - 2);
    if (key.find('\\') != std::string_view::npos) {
      if (!json_string_value(raw_key, key_buffer)) return false;
      key = key_buffer;
    }
    c.ws();
    if (c.p >= c.end || *c.p != ':') return false;
    ++c.p;
    c.ws();
    const char* value_start = c.p;
    if (!skip_value(c)) return false;
    f(key, std::string_view(value_start, static_cast<std::size_t>(c.p - value_start)));
    c.ws();
    if (c.p >= c.end) return false;
    if (*c.p == ',') {
      ++c.p;
      continue;
    }
    if (*c.p == '}') return true;
    return false;
  }
}

std::uint64_t fnv1a(std::uint64_t h, std::string_view text) {
  for (const unsigned char ch : text) {
    h ^= ch;
    h *= 0x100000001b3ULL;
  }
  return h;
}

/// The delta kind a durable event completes: message.completed ends message.delta, etc.
std::string_view delta_kind_completed_by(std::string_view kind) {
  if (kind == "message.completed") return "message.delta";
  if (kind == "reasoning") return "reasoning.delta";
  if (kind == "tool.completed") return "tool.output.delta";
  return {};
}

std::string item_key(std::string_view delta_kind, std::string_view item, std::int64_t attempt) {
  std::string key(delta_kind);
  key += '|';
  key += item;
  key += '|';
  key += std::to_string(attempt);
  return key;
}

}  // namespace

bool json_string_value(std::string_view raw, std::string& out) {
  out.clear();
  if (raw.size() < 2 || raw.front() != '"' || raw.back() != '"') return false;
  const char* p = raw.data() + 1;
  const char* end = raw.data() + raw.size() - 1;
  for (;;) {
    const void* hit = std::memchr(p, '\\', static_cast<std::size_t>(end - p));
    const char* stop = hit ? static_cast<const char*>(hit) : end;
    out.append(p, static_cast<std::size_t>(stop - p));
    if (!hit) return true;
    p = stop + 1;
    if (p >= end) return false;
    switch (*p++) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        std::uint32_t cp = 0;
        if (!hex4(p, end, cp)) return false;
        p += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          std::uint32_t low = 0;
          if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || !hex4(p + 2, end, low) || low < 0xDC00 || low > 0xDFFF)
            return false;
          p += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return false;
        }
        append_utf8(out, cp);
        break;
      }
      default:
        return false;
    }
  }
}

std::optional<std::int64_t> json_int_value(std::string_view raw) {
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), v);
  if (ec != std::errc() || ptr != raw.data() + raw.size()) return std::nullopt;
  return v;
}

bool for_each_member(std::string_view json,
                     const std::function<void(std::string_view key, std::string_view value)>& member) {
  return members_of(json, member);
}

bool scan_envelope(std::string_view json, Envelope& out, std::string* error) {
  out.kind.clear();
  out.cursor.reset();
  out.attempt = 0;
  out.item.clear();
  out.text.clear();
  out.has_text = false;
  out.ephemeral = out.conflated = false;
  out.emitted_at_ns.reset();
  bool ok = true;
  bool has_item_id = false;
  const bool well_formed = members_of(json, [&](std::string_view key, std::string_view value) {
    if (key == "kind") {
      ok &= json_string_value(value, out.kind);
    } else if (key == "cursor") {
      out.cursor = json_int_value(value);
    } else if (key == "attemptNumber") {
      out.attempt = json_int_value(value).value_or(0);
    } else if (key == "ephemeral") {
      out.ephemeral = value == "true";
    } else if (key == "conflated") {
      out.conflated = value == "true";
    } else if (key == "payload") {
      members_of(value, [&](std::string_view pkey, std::string_view pvalue) {
        if (pkey == "text") {
          out.has_text = pvalue.size() >= 2 && pvalue.front() == '"';
          if (out.has_text) ok &= json_string_value(pvalue, out.text);
        } else if (pkey == "itemId" && pvalue.front() == '"') {
          ok &= json_string_value(pvalue, out.item);
          has_item_id = true;
        } else if (pkey == "toolCallId" && !has_item_id && pvalue.front() == '"') {
          ok &= json_string_value(pvalue, out.item);
        } else if (pkey == "emittedAtNs") {
          out.emitted_at_ns = json_int_value(pvalue);
        }
      });
    }
  });
  if (!well_formed || !ok) {
    if (error) *error = "malformed envelope: " + std::string(json.substr(0, 300));
    return false;
  }
  return true;
}

// --- TimelineChecker ---

void TimelineChecker::fail(std::string message) {
  ++violations_;
  if (messages_.size() < 10) messages_.push_back(std::move(message));
}

void TimelineChecker::on_envelope(const Envelope& e) {
  if (!e.cursor) {
    ++deltas_;
    if (e.conflated) ++conflated_;
    if (finished_) {
      fail("a " + e.kind + " of item " + e.item + " arrived after run.finished");
      return;
    }
    if (auto it = attempt_finished_.find(e.attempt); it != attempt_finished_.end())
      fail("a " + e.kind + " of item " + e.item + " arrived after attempt.finished of attempt " +
           std::to_string(e.attempt));
    Item& item = items_[item_key(e.kind, e.item, e.attempt)];
    if (item.completed)
      fail("a " + e.kind + " of item " + e.item + " arrived after its item completed (" +
           std::to_string(item.deltas) + " deltas before)");
    ++item.deltas;
    item.joined_size += e.text.size();
    item.joined_hash = fnv1a(item.joined_hash, e.text);
    if (keep_text_) item.joined += e.text;
    return;
  }
  ++durable_;
  if (keep_text_) kinds_.push_back(e.kind);
  if (*e.cursor != last_cursor_ + 1)
    fail("durable cursor " + std::to_string(*e.cursor) + " (" + e.kind + ") after cursor " +
         std::to_string(last_cursor_) + ": expected " + std::to_string(last_cursor_ + 1));
  last_cursor_ = std::max(last_cursor_, *e.cursor);
  if (e.kind == "run.finished") finished_ = true;
  if (e.kind == "attempt.finished") attempt_finished_[e.attempt] = true;
  const auto delta_kind = delta_kind_completed_by(e.kind);
  if (delta_kind.empty() || e.item.empty()) return;
  Item& item = items_[item_key(delta_kind, e.item, e.attempt)];
  item.completed = true;
  if (e.kind != "message.completed" || item.deltas == 0) return;
  item.completed_text = keep_text_ ? e.text : std::string();
  const bool same = item.joined_size == e.text.size() && item.joined_hash == fnv1a(0xcbf29ce484222325ULL, e.text) &&
                    (!keep_text_ || item.joined == e.text);
  if (!same) {
    std::string where;
    if (keep_text_) {
      const auto mismatch = std::mismatch(item.joined.begin(), item.joined.end(), e.text.begin(), e.text.end());
      where = ", first difference at byte " + std::to_string(mismatch.first - item.joined.begin());
    }
    fail("the " + std::to_string(item.deltas) + " deltas of item " + e.item + " join to " +
         std::to_string(item.joined_size) + " bytes, its message.completed has " + std::to_string(e.text.size()) +
         " bytes" + where);
  }
}

// --- TimelineStream ---

TimelineStream::TimelineStream(TimelineStreamOptions options) : options_(std::move(options)) {}

void TimelineStream::open() {
  const auto deadline = Clock::now() + options_.open_timeout;
  fd_ = connect_tcp(options_.host, options_.port, deadline, options_.rcvbuf);
  const std::string host = options_.host + ":" + std::to_string(options_.port);
  std::string request;
  if (options_.transport == StreamTransport::sse) {
    request = "GET /api/runs/" + options_.run_id + "/events/timeline HTTP/1.1\r\nHost: " + host +
              "\r\nAccept: text/event-stream\r\nConnection: close\r\nCache-Control: no-cache\r\n";
    if (options_.after > 0) request += "Last-Event-ID: " + std::to_string(options_.after) + "\r\n";
  } else {
    request = "GET / HTTP/1.1\r\nHost: " + host +
              "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
  }
  if (!options_.bearer_token.empty()) request += "Authorization: Bearer " + options_.bearer_token + "\r\n";
  request += "\r\n";
  if (send_all(fd_.get(), request, deadline) != SendResult::ok)
    throw std::runtime_error("cannot send the stream request for run " + options_.run_id);
  std::string raw;
  std::array<char, 8192> buf{};
  std::optional<std::size_t> head_end;
  while (!(head_end = find_head_end(raw))) {
    const auto n = recv_some(fd_.get(), buf.data(), buf.size(), deadline);
    if (!n || *n == 0)
      throw std::runtime_error("no response head to the stream request for run " + options_.run_id + " (got '" +
                               raw.substr(0, 300) + "')");
    raw.append(buf.data(), *n);
  }
  const auto head = parse_response_head(std::string_view(raw).substr(0, *head_end));
  const int expected = options_.transport == StreamTransport::sse ? 200 : 101;
  if (head.status != expected)
    throw std::runtime_error("stream request for run " + options_.run_id + " answered " +
                             std::to_string(head.status) + ": " + raw.substr(*head_end, 500));
  if (options_.transport == StreamTransport::sse) {
    decoder_ = BodyDecoder::for_response(head, "GET");
    decoder_.feed(std::string_view(raw).substr(*head_end), in_);
  } else {
    in_ = raw.substr(*head_end);
    std::string subscribe = R"({"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"channel":"run_timeline","runId":")" +
                            options_.run_id + R"(","after":)" + std::to_string(options_.after) + "}}";
    send_ws_frame(0x1, subscribe);
  }
}

bool TimelineStream::wait_readable(Clock::time_point deadline) const {
  for (;;) {
    pollfd p{fd_.get(), POLLIN, 0};
    const int rc = ::poll(&p, 1, remaining_ms(deadline));
    if (rc > 0) return true;
    if (rc == 0) return false;
    if (errno != EINTR) throw std::runtime_error(errno_message("poll", errno));
  }
}

void TimelineStream::drain_buffered(const Handler& handler) {
  if (options_.transport == StreamTransport::sse) handle_sse(handler);
  else handle_ws(handler);
}

std::size_t TimelineStream::read_some(const Handler& handler, std::size_t max_bytes) {
  static thread_local std::array<char, 256 * 1024> buf;
  std::size_t total = 0;
  while (!ended_ && fd_) {
    std::size_t want = buf.size();
    if (max_bytes > 0) want = std::min(want, max_bytes - total);
    if (want == 0) break;
    const ssize_t n = ::read(fd_.get(), buf.data(), want);
    if (n > 0) {
      const auto got = static_cast<std::size_t>(n);
      bytes_ += got;
      total += got;
      if (options_.transport == StreamTransport::sse) {
        decoder_.feed(std::string_view(buf.data(), got), in_);
        handle_sse(handler);
        if (decoder_.done()) ended_ = true, end_reason_ = "the response body ended";
      } else {
        in_.append(buf.data(), got);
        handle_ws(handler);
      }
      if (got < want) break;  // nothing more for now
      continue;
    }
    if (n == 0) {
      ended_ = true;
      end_reason_ = "the server closed the connection";
      break;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) break;
    ended_ = true;
    end_reason_ = errno_message("read", errno);
  }
  return total;
}

void TimelineStream::handle_sse(const Handler& handler) {
  std::size_t pos = 0, consumed = 0;
  std::optional<std::int64_t> id;
  std::string_view data;
  int data_lines = 0;
  for (;;) {
    const auto nl = in_.find('\n', pos);
    if (nl == std::string::npos) break;
    std::string_view line(in_.data() + pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = nl + 1;
    if (line.empty()) {
      if (data_lines > 0) handler(data, id);
      id.reset();
      data = {};
      data_lines = 0;
      consumed = pos;
      continue;
    }
    if (line.front() == ':') continue;  // a comment (heartbeat)
    const auto colon = line.find(':');
    std::string_view field = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (field == "data") {
      if (data_lines++ == 0) {
        data = value;
      } else {
        if (data.data() != scratch_.data()) scratch_.assign(data);
        scratch_ += '\n';
        scratch_ += value;
        data = scratch_;
      }
    } else if (field == "id") {
      id = json_int_value(value);
    }
  }
  in_.erase(0, consumed);
}

void TimelineStream::handle_ws(const Handler& handler) {
  std::size_t pos = 0;
  while (!ended_ && in_.size() - pos >= 2) {
    const auto b0 = static_cast<std::uint8_t>(in_[pos]);
    const auto b1 = static_cast<std::uint8_t>(in_[pos + 1]);
    std::size_t header = 2;
    std::uint64_t length = b1 & 0x7f;
    if (length == 126) {
      if (in_.size() - pos < 4) break;
      length = (static_cast<std::uint64_t>(static_cast<std::uint8_t>(in_[pos + 2])) << 8) |
               static_cast<std::uint8_t>(in_[pos + 3]);
      header = 4;
    } else if (length == 127) {
      if (in_.size() - pos < 10) break;
      length = 0;
      for (std::size_t i = 2; i < 10; ++i) length = (length << 8) | static_cast<std::uint8_t>(in_[pos + i]);
      header = 10;
    }
    const bool masked = (b1 & 0x80) != 0;
    if (masked) header += 4;
    if (in_.size() - pos < header + length) break;
    std::string unmasked;
    std::string_view payload(in_.data() + pos + header, length);
    if (masked) {
      unmasked.assign(payload);
      for (std::size_t i = 0; i < unmasked.size(); ++i) unmasked[i] ^= in_[pos + header - 4 + (i % 4)];
      payload = unmasked;
    }
    pos += header + length;
    const int opcode = b0 & 0x0f;
    const bool fin = (b0 & 0x80) != 0;
    if (opcode == 0x8) {
      ended_ = true;
      const int code = payload.size() >= 2 ? (static_cast<std::uint8_t>(payload[0]) << 8) | static_cast<std::uint8_t>(payload[1]) : 1005;
      end_reason_ = "websocket closed by the server (" + std::to_string(code) + " " +
                    std::string(payload.size() > 2 ? payload.substr(2) : std::string_view()) + ")";
      break;
    }
    if (opcode == 0x9) {
      send_ws_frame(0xA, payload);
      continue;
    }
    if (opcode == 0xA) continue;
    if (fin && opcode != 0 && fragments_.empty()) {
      on_ws_message(payload, handler);
    } else {
      fragments_.append(payload);
      if (fin) {
        on_ws_message(fragments_, handler);
        fragments_.clear();
      }
    }
  }
  in_.erase(0, pos);
}

void TimelineStream::on_ws_message(std::string_view message, const Handler& handler) {
  std::string_view method_raw, params, id, error, result;
  members_of(message, [&](std::string_view key, std::string_view value) {
    if (key == "method") method_raw = value;
    else if (key == "params") params = value;
    else if (key == "id") id = value;
    else if (key == "error") error = value;
    else if (key == "result") result = value;
  });
  if (method_raw == R"("run.timeline")") {
    std::string_view event;
    std::optional<std::int64_t> cursor;
    members_of(params, [&](std::string_view key, std::string_view value) {
      if (key == "event") event = value;
      else if (key == "cursor") cursor = json_int_value(value);
    });
    handler(event, cursor);
  } else if (method_raw == R"("events.closed")") {
    ended_ = true;
    end_reason_ = "events.closed: the daemon ended the subscription";
  } else if (method_raw.empty() && !id.empty()) {
    if (!error.empty()) {
      ended_ = true;
      end_reason_ = "events.subscribe failed: " + std::string(error);
    } else {
      members_of(result, [&](std::string_view key, std::string_view value) {
        if (key == "subscriptionId") json_string_value(value, subscription_id_);
      });
    }
  }
}

void TimelineStream::send_ws_frame(std::uint8_t opcode, std::string_view payload) {
  if (send_all(fd_.get(), ws_client_frame(opcode, payload), Clock::now() + std::chrono::seconds(5)) != SendResult::ok) {
    ended_ = true;
    end_reason_ = "cannot send a websocket frame";
  }
}

void TimelineStream::close() {
  if (fd_) ::shutdown(fd_.get(), SHUT_RDWR);
  fd_.reset();
}

}  // namespace agentry::test
