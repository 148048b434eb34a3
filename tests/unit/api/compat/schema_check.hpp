#pragma once
// A small vocabulary for writing schema checkers by hand: each Check looks at one JSON
// value and reports what is wrong with it under its path. The checkers of agent-runner's
// DTOs (ref_*_checks.cpp) are written with it.

#include "ref_schema_checks.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace agentry::api::compat::testing::schema {

using Check = std::function<void(const boost::json::value&, const std::string& path, Problems&)>;

void report(Problems& p, const std::string& path, const std::string& what);
/// The value as JSON text, cut to 80 characters.
std::string shown(const boost::json::value& v);

Check string_t(std::size_t min_size = 0);
Check number_t();
/// An integer (zod .int()) no smaller than `min`.
Check integer_t(std::int64_t min);
/// A number (integer or not) no smaller than `min` (zod .nonnegative() without .int()).
Check number_min(double min);
Check bool_t();
Check any_t();
Check literal(std::string expected);
Check literal_bool(bool expected);
Check literal_int(std::int64_t expected);
Check enum_of(std::vector<std::string> values);
Check null_or(Check inner);
Check null_only();
Check array_of(Check item, bool nonempty = false);
Check record_of(Check value);

struct Member {
  std::string name;
  Check check;
  bool optional;  // zod .optional(): may be absent, never null unless its check allows null
};
Member req(std::string name, Check check);
Member opt(std::string name, Check check);

/// An object with exactly these members (see ref_schema_checks.hpp); `refine` runs when
/// the shape passed.
Check object_of(std::vector<Member> members, Check refine = nullptr);
/// A discriminated union on `key`.
Check union_on(std::string key, std::map<std::string, Check> variants);

Problems run(const Check& check, const boost::json::value& v);

// agent-runner's vocabularies.
extern const std::vector<std::string> run_statuses;
extern const std::vector<std::string> task_statuses;
extern const std::vector<std::string> hook_phases;
extern const std::vector<std::string> lockable_fields;
extern const std::vector<std::string> effort_levels;

Check run_status();
Check str();
Check str_or_null();
Check num();
Check num_or_null();

}  // namespace agentry::api::compat::testing::schema
