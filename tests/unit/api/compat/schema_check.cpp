#include "schema_check.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <utility>

namespace agentry::api::compat::testing {
namespace schema {
namespace json = boost::json;

void report(Problems& p, const std::string& path, const std::string& what) {
  p.push_back((path.empty() ? std::string("$") : path) + ": " + what);
}

std::string shown(const json::value& v) {
  auto text = json::serialize(v);
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

// ---- scalar checks ----------------------------------------------------------------

Check string_t(std::size_t min_size) {
  return [min_size](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_string()) return report(p, path, "expected a string, got " + shown(v));
    if (v.as_string().size() < min_size) report(p, path, "expected a non-empty string");
  };
}

namespace {
bool is_number(const json::value& v) { return v.is_int64() || v.is_uint64() || v.is_double(); }
}  // namespace

Check number_t() {
  return [](const json::value& v, const std::string& path, Problems& p) {
    if (!is_number(v)) report(p, path, "expected a number, got " + shown(v));
  };
}

Check integer_t(std::int64_t min) {
  return [min](const json::value& v, const std::string& path, Problems& p) {
    if (v.is_uint64()) return;
    if (v.is_double() && v.as_double() == static_cast<double>(static_cast<std::int64_t>(v.as_double())) &&
        v.as_double() >= static_cast<double>(min))
      return;
    if (!v.is_int64()) return report(p, path, "expected an integer, got " + shown(v));
    if (v.as_int64() < min) report(p, path, "expected an integer >= " + std::to_string(min) + ", got " + shown(v));
  };
}

Check number_min(double min) {
  return [min](const json::value& v, const std::string& path, Problems& p) {
    if (!is_number(v)) return report(p, path, "expected a number, got " + shown(v));
    const double d = v.is_int64() ? static_cast<double>(v.as_int64())
                     : v.is_uint64() ? static_cast<double>(v.as_uint64())
                                     : v.as_double();
    if (d < min) report(p, path, "expected a number >= " + std::to_string(min));
  };
}

Check bool_t() {
  return [](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_bool()) report(p, path, "expected a boolean, got " + shown(v));
  };
}

Check any_t() {
  return [](const json::value&, const std::string&, Problems&) {};
}

Check literal(std::string expected) {
  return [expected](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_string() || v.as_string() != expected)
      report(p, path, "expected \"" + expected + "\", got " + shown(v));
  };
}

Check literal_bool(bool expected) {
  return [expected](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_bool() || v.as_bool() != expected)
      report(p, path, std::string("expected ") + (expected ? "true" : "false") + ", got " + shown(v));
  };
}

Check literal_int(std::int64_t expected) {
  return [expected](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_int64() || v.as_int64() != expected)
      report(p, path, "expected " + std::to_string(expected) + ", got " + shown(v));
  };
}

Check enum_of(std::vector<std::string> values) {
  return [values](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_string() || std::find(values.begin(), values.end(), std::string(v.as_string())) == values.end()) {
      std::string list;
      for (const auto& x : values) list += (list.empty() ? "" : "|") + x;
      report(p, path, "expected one of " + list + ", got " + shown(v));
    }
  };
}

Check null_or(Check inner) {
  return [inner](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_null()) inner(v, path, p);
  };
}

Check null_only() {
  return [](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_null()) report(p, path, "expected null, got " + shown(v));
  };
}

// ---- composite checks -------------------------------------------------------------

Check array_of(Check item, bool nonempty) {
  return [item, nonempty](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_array()) return report(p, path, "expected an array, got " + shown(v));
    if (nonempty && v.as_array().empty()) report(p, path, "expected a non-empty array");
    std::size_t i = 0;
    for (const auto& x : v.as_array()) item(x, path + "[" + std::to_string(i++) + "]", p);
  };
}

Check record_of(Check value) {
  return [value](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_object()) return report(p, path, "expected an object (record), got " + shown(v));
    for (const auto& [k, x] : v.as_object()) value(x, path + "." + std::string(k), p);
  };
}

Member req(std::string name, Check check) { return {std::move(name), std::move(check), false}; }
Member opt(std::string name, Check check) { return {std::move(name), std::move(check), true}; }

Check object_of(std::vector<Member> members, Check refine) {
  return [members, refine](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_object()) return report(p, path, "expected an object, got " + shown(v));
    const auto& o = v.as_object();
    const auto before = p.size();
    for (const auto& m : members) {
      const auto* x = o.if_contains(m.name);
      if (x == nullptr) {
        if (!m.optional) report(p, path + "." + m.name, "required member is absent");
        continue;
      }
      m.check(*x, path + "." + m.name, p);
    }
    for (const auto& [k, x] : o) {
      const bool known = std::any_of(members.begin(), members.end(), [&](const Member& m) { return m.name == k; });
      if (!known) report(p, path + "." + std::string(k), "member not in the schema");
    }
    if (refine && p.size() == before) refine(v, path, p);
  };
}

Check union_on(std::string key, std::map<std::string, Check> variants) {
  return [key, variants](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_object()) return report(p, path, "expected an object, got " + shown(v));
    const auto* tag = v.as_object().if_contains(key);
    if (tag == nullptr || !tag->is_string()) return report(p, path + "." + key, "discriminator absent or not a string");
    auto it = variants.find(std::string(tag->as_string()));
    if (it == variants.end()) return report(p, path + "." + key, "unknown variant " + shown(*tag));
    it->second(v, path, p);
  };
}

Problems run(const Check& check, const json::value& v) {
  Problems p;
  check(v, "", p);
  return p;
}

// ---- agent-runner's vocabularies ----------------------------------------------------

const std::vector<std::string> run_statuses{"initialized", "ready",     "running", "success",
                                            "blocked",     "exhausted", "aborted", "error"};
const std::vector<std::string> task_statuses{"pending", "in_progress", "completed", "blocked"};
const std::vector<std::string> hook_phases{"prepare", "beforeAttempt", "afterAttempt", "afterExit", "taskTransition"};
const std::vector<std::string> lockable_fields{"cwd",          "backend", "model",      "effort",
                                               "instructions", "message", "timeoutSec", "unrestricted",
                                               "maxRetries",   "tasks",   "schedule"};
const std::vector<std::string> effort_levels{"off", "minimal", "low", "medium", "high", "xhigh", "max"};

Check run_status() { return enum_of(run_statuses); }
Check str() { return string_t(); }
Check str_or_null() { return null_or(string_t()); }
Check num() { return number_t(); }
Check num_or_null() { return null_or(number_t()); }

}  // namespace schema

std::string describe(const Problems& problems) {
  std::string out;
  for (const auto& p : problems) out += p + "\n";
  return out;
}


}  // namespace agentry::api::compat::testing
