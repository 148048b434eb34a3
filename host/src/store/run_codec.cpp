#include "store/run_codec.hpp"

#include "core/frozen_inputs_json.hpp"
#include "core/utf8.hpp"
#include "store/frozen_summary.hpp"
#include "store/store_error.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace agentry::store {
namespace json = boost::json;
namespace {

std::size_t page_size(const core::RunQuery& query) {
  // At most one below the largest row count an engine takes, leaving room for the extra row.
  constexpr auto largest = static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max() - 1);
  return std::clamp<std::size_t>(query.limit, 1, largest);
}

/// Whether `v` holds a number JSON cannot write (an infinite or NaN double, which the
/// serializer would write as `Infinity` or `NaN`).
bool has_non_finite(const json::value& v) {
  switch (v.kind()) {
    case json::kind::double_: return !std::isfinite(v.get_double());
    case json::kind::array:
      return std::any_of(v.get_array().begin(), v.get_array().end(), [](const json::value& e) { return has_non_finite(e); });
    case json::kind::object:
      return std::any_of(v.get_object().begin(), v.get_object().end(),
                         [](const json::key_value_pair& e) { return has_non_finite(e.value()); });
    default: return false;
  }
}

}  // namespace

FrozenText encode_frozen(const core::Run& run) {
  if (run.damaged) return {run.damaged_frozen_json, std::nullopt};
  if (run.frozen_summary_only)
    throw StoreError("run " + run.id + ": only what its summary shows was read; read it whole to write it", 0);
  // Built only to be serialized: in one buffer, not a few hundred allocations.
  std::array<unsigned char, 8192> buffer;
  json::monotonic_resource scratch(buffer.data(), buffer.size());
  const auto value = core::to_json(run.frozen, &scratch);
  // What is stored must read back (the API refuses such numbers before they get here).
  if (has_non_finite(value))
    throw StoreError("run " + run.id + ": its frozen inputs do not serialize to JSON: a number is infinite or NaN", 0);
  std::string text = json::serialize(value);
  if (auto bad = core::first_invalid_utf8(text))
    throw StoreError("run " + run.id + ": its frozen inputs are not valid UTF-8 (byte " + std::to_string(*bad) + ")",
                     0);
  return {std::move(text), write_frozen_summary(run.frozen)};
}

void decode_frozen(core::Run& run, const std::string& frozen_json, FrozenColumns columns) {
  try {
    boost::system::error_code ec;
    auto parsed = json::parse(frozen_json, ec);
    if (ec) throw std::runtime_error(ec.message());
    run.frozen = core::frozen_inputs_from_json(parsed);
  } catch (const std::exception& e) {
    run.damaged = std::string("its frozen inputs cannot be read: ") + e.what();
    run.damaged_frozen_json = frozen_json;
    run.frozen = {};
    run.frozen.agent_name = std::move(columns.agent_name);
    run.frozen.assignment_name = std::move(columns.assignment_name);
    run.frozen.backend = std::move(columns.backend);
  }
}

void decode_frozen_summary(core::Run& run, const std::string& frozen_json, FrozenColumns columns) {
  run.frozen = {};
  if (read_frozen_summary(frozen_json, run.frozen)) {
    run.frozen_summary_only = true;
    return;
  }
  decode_frozen(run, frozen_json, std::move(columns));  // not JSON: damaged, as a whole read finds it
}

std::optional<std::string> encode_diffstat(const std::optional<core::DiffStat>& stat) {
  if (!stat) return std::nullopt;
  return json::serialize(json::object{{"files", stat->files},
                                      {"additions", stat->additions},
                                      {"deletions", stat->deletions},
                                      {"updatedAt", stat->updated_at}});
}

std::optional<core::DiffStat> decode_diffstat(const std::optional<std::string>& diffstat_json) {
  if (!diffstat_json) return std::nullopt;
  boost::system::error_code ec;
  auto parsed = json::parse(*diffstat_json, ec);
  if (ec || !parsed.is_object()) return std::nullopt;
  const auto& o = parsed.as_object();
  auto number = [&](const char* key) -> std::int64_t {
    auto* v = o.if_contains(key);
    return v && v->is_int64() ? v->as_int64() : 0;
  };
  core::DiffStat d;
  d.files = number("files");
  d.additions = number("additions");
  d.deletions = number("deletions");
  if (auto* at = o.if_contains("updatedAt"); at && at->is_string()) d.updated_at = std::string(at->as_string());
  return d;
}

RunPageKey decode_run_page_cursor(std::string_view cursor) {
  auto bar = cursor.rfind('|');
  return {std::string(cursor.substr(0, bar)), std::string(cursor.substr(bar + 1))};
}

std::int64_t run_page_fetch_limit(const core::RunQuery& query) {
  return static_cast<std::int64_t>(page_size(query)) + 1;
}

core::RunPage run_page(std::vector<core::Run> rows, const core::RunQuery& query) {
  core::RunPage page;
  page.runs = std::move(rows);
  if (page.runs.size() > page_size(query)) {
    page.runs.resize(page_size(query));
    const auto& last = page.runs.back();
    page.next_cursor = last.created_at + "|" + last.id;
  }
  return page;
}

}  // namespace agentry::store
