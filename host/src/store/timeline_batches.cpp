#include "store/timeline_batches.hpp"

#include "store/payload_codec.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace agentry::store {
namespace {

/// Writes `field` at `p` as its length, ':' and itself; returns the end.
char* put_field(char* p, std::string_view field) {
  p = std::to_chars(p, p + 20, field.size()).ptr;
  *p++ = ':';
  if (!field.empty()) std::memcpy(p, field.data(), field.size());  // an empty view's data may be null
  return p + field.size();
}

/// Appends `e` packed: into room made at once, since every event of every durable
/// stream passes here on the store's one writer.
void pack(std::string& out, const core::TimelineEvent& e) {
  const std::string_view kind = e.kind;
  const std::string_view at = e.at;
  const std::string_view payload = e.payload_text();
  const std::size_t start = out.size();
  // Three lengths of up to 20 digits with their colons, an attempt of up to 11 and ';'.
  out.resize(start + kind.size() + at.size() + payload.size() + 3 * 21 + 12);
  char* p = out.data() + start;
  p = put_field(p, kind);
  p = put_field(p, at);
  if (e.attempt_number) p = std::to_chars(p, p + 11, *e.attempt_number).ptr;
  *p++ = ';';
  p = put_field(p, payload);
  out.resize(static_cast<std::size_t>(p - out.data()));
}

/// One packed event, its texts pointing into the row.
using PackedEvent = core::TimelineEventView;

/// Walks the events of one row in cursor order. A row another version or a damaged
/// file left unreadable ends in one event saying so, at the cursor where reading stopped,
/// so that a viewer shows the damage instead of failing the page.
class BatchReader {
 public:
  explicit BatchReader(const StoredBatch& row) : rest_(row.events), cursor_(row.first_cursor) {}

  bool next(PackedEvent& e) {
    if (rest_.empty() || damaged_) return false;
    e.cursor = cursor_++;
    if (!field(e.kind) || !field(e.at) || !attempt(e.attempt_number) || !field(e.payload_json)) {
      damaged_ = true;
      e.kind = "timeline.damaged";
      e.at = {};
      e.attempt_number.reset();
      e.payload_json = R"({"damaged":"the stored events from this cursor on cannot be read"})";
    }
    return true;
  }

 private:
  bool length(std::size_t& n) {
    auto colon = rest_.find(':');
    if (colon == std::string_view::npos) return false;
    auto [end, ec] = std::from_chars(rest_.data(), rest_.data() + colon, n);
    if (ec != std::errc{} || end != rest_.data() + colon || n > rest_.size() - colon - 1) return false;
    rest_.remove_prefix(colon + 1);
    return true;
  }
  bool field(std::string_view& out) {
    std::size_t n = 0;
    if (!length(n)) return false;
    out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return true;
  }
  bool attempt(std::optional<int>& out) {
    auto semicolon = rest_.find(';');
    if (semicolon == std::string_view::npos) return false;
    out.reset();
    if (semicolon > 0) {
      int n = 0;
      auto [end, ec] = std::from_chars(rest_.data(), rest_.data() + semicolon, n);
      if (ec != std::errc{} || end != rest_.data() + semicolon) return false;
      out = n;
    }
    rest_.remove_prefix(semicolon + 1);
    return true;
  }

  std::string_view rest_;
  std::int64_t cursor_;
  bool damaged_ = false;
};

core::TimelineEvent unpack(std::string_view run_id, const PackedEvent& p, bool decode) {
  core::TimelineEvent e;
  e.run_id = std::string(run_id);
  e.cursor = p.cursor;
  e.kind = std::string(p.kind);
  e.attempt_number = p.attempt_number;
  e.at = std::string(p.at);
  e.payload_json = std::string(p.payload_json);
  if (decode) e.payload = decode_payload(e.payload_json);
  return e;
}

/// The newest `limit` events of rows given newest first that `wanted` picks, oldest first.
template <typename Wanted>
std::vector<core::TimelineEvent> newest_matching(std::string_view run_id, std::size_t limit, bool decode,
                                                 const NextStoredBatch& next, Wanted wanted) {
  std::vector<core::TimelineEvent> newest_first;
  StoredBatch row;
  std::vector<PackedEvent> matches;
  while (newest_first.size() < limit && next(row)) {
    matches.clear();
    BatchReader reader(row);
    for (PackedEvent p; reader.next(p);)
      if (wanted(p)) matches.push_back(p);
    for (auto it = matches.rbegin(); it != matches.rend() && newest_first.size() < limit; ++it)
      newest_first.push_back(unpack(run_id, *it, decode));
  }
  std::reverse(newest_first.begin(), newest_first.end());
  return newest_first;
}

}  // namespace

void pack_timeline_rows(const std::vector<core::TimelineEvent>& events,
                        const std::function<void(const TimelineBatchRow&)>& insert) {
  thread_local TimelineBatchRow row;
  std::size_t in_row = 0;
  for (const auto& e : events) {
    if (e.ephemeral) continue;
    if (in_row > 0 && (in_row == max_events_per_row || row.events.size() >= max_bytes_per_row)) {
      insert(row);
      in_row = 0;
    }
    if (in_row == 0) {
      row.first_cursor = e.cursor;
      row.first_attempt.reset();
      row.last_attempt.reset();
      row.events.clear();
    }
    row.last_cursor = e.cursor;
    if (e.attempt_number) {
      row.first_attempt = std::min(row.first_attempt.value_or(*e.attempt_number), *e.attempt_number);
      row.last_attempt = std::max(row.last_attempt.value_or(*e.attempt_number), *e.attempt_number);
    }
    pack(row.events, e);
    ++in_row;
  }
  if (in_row > 0) insert(row);
  // A rare huge row does not stay allocated for the rest of the writer's life.
  if (row.events.capacity() > 2 * max_bytes_per_row) std::string().swap(row.events);
}

std::vector<TimelineBatchRow> pack_timeline_rows(const std::vector<core::TimelineEvent>& events) {
  std::vector<TimelineBatchRow> rows;
  pack_timeline_rows(events, [&](const TimelineBatchRow& row) { rows.push_back(row); });
  return rows;
}

std::vector<core::TimelineEvent> read_timeline_page(std::string_view run_id, const core::EventPageQuery& q,
                                                    const NextStoredBatch& next) {
  const auto in_range = [&](const PackedEvent& p) { return p.cursor > q.after && p.cursor <= q.upto; };
  if (q.newest) return newest_matching(run_id, q.limit, !q.stored_payload, next, in_range);
  std::vector<core::TimelineEvent> out;
  visit_timeline_range(q.after, q.upto, q.limit, next,
                       [&](const PackedEvent& p) { out.push_back(unpack(run_id, p, !q.stored_payload)); });
  return out;
}

std::size_t visit_timeline_range(std::int64_t after, std::int64_t upto, std::size_t limit, const NextStoredBatch& next,
                                 const core::TimelineEventVisitor& visit) {
  std::size_t visited = 0;
  StoredBatch row;
  while (visited < limit && next(row)) {
    BatchReader reader(row);
    for (PackedEvent p; visited < limit && reader.next(p);) {
      if (p.cursor > upto) break;
      if (p.cursor <= after) continue;
      visit(p);
      ++visited;
    }
  }
  return visited;
}

std::vector<core::TimelineEvent> newest_of_kind(std::string_view run_id, std::string_view kind, int first_attempt,
                                                int last_attempt, std::size_t limit, const NextStoredBatch& next) {
  return newest_matching(run_id, limit, true, next, [&](const PackedEvent& p) {
    return p.kind == kind && p.attempt_number && *p.attempt_number >= first_attempt &&
           *p.attempt_number <= last_attempt;
  });
}

}  // namespace agentry::store
