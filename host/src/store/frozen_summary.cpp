#include "store/frozen_summary.hpp"

#include "core/json_strings.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/serialize.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace agentry::store {
namespace {

using boost::system::error_code;
using boost::json::string_view;

/// Streaming parser events: the root object's members of interest are kept, the rest
/// only parsed. A member's value replaces what an earlier member of the same name gave,
/// as get_string and friends in core/run.cpp read a parsed object.
class SummaryHandler {
 public:
  static constexpr std::size_t max_object_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_array_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_key_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_string_size = std::numeric_limits<std::size_t>::max();

  explicit SummaryHandler(core::FrozenInputs& out) : out_(out) {}

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }

  bool on_object_begin(error_code&) {
    if (depth_ == 0) root_is_object_ = true;
    ++depth_;
    return true;
  }
  bool on_object_end(std::size_t, error_code&) {
    --depth_;
    if (depth_ == 1) field_ = Field::none;
    return true;
  }
  bool on_array_begin(error_code&) {
    ++depth_;
    return true;
  }
  bool on_array_end(std::size_t n, error_code&) {
    --depth_;
    if (depth_ == 1) {
      if (field_ == Field::hooks) out_.hooks.resize(n);
      field_ = Field::none;
    }
    return true;
  }

  bool on_key_part(string_view s, std::size_t, error_code&) {
    if (at_member()) key_.append(s.data(), s.size());
    return true;
  }
  bool on_key(string_view s, std::size_t, error_code&) {
    if (!at_member()) return true;
    key_.append(s.data(), s.size());
    begin_member(key_);
    key_.clear();
    return true;
  }

  bool on_string_part(string_view s, std::size_t, error_code&) {
    if (wants_string()) text_.append(s.data(), s.size());
    return true;
  }
  bool on_string(string_view s, std::size_t, error_code&) {
    if (!wants_string()) return true;
    text_.append(s.data(), s.size());
    if (depth_ == 1) {
      if (auto* target = string_field()) *target = std::move(text_);
      field_ = Field::none;
    } else if (auto* list = list_field()) {
      list->push_back(std::move(text_));
    }
    text_.clear();
    return true;
  }

  bool on_int64(std::int64_t i, string_view, error_code&) {
    if (depth_ == 1 && field_ == Field::max_attempts) out_.max_attempts_per_session = static_cast<int>(i);
    return scalar();
  }
  bool on_number_part(string_view, error_code&) { return true; }
  bool on_uint64(std::uint64_t, string_view, error_code&) { return scalar(); }
  bool on_double(double, string_view, error_code&) { return scalar(); }
  bool on_bool(bool, error_code&) { return scalar(); }
  bool on_null(error_code&) { return scalar(); }
  bool on_comment_part(string_view, error_code&) { return true; }
  bool on_comment(string_view, error_code&) { return true; }

 private:
  enum class Field { none, agent, assignment, backend, model, max_attempts, locked, not_imported, hooks };

  /// A key of the root object.
  bool at_member() const { return root_is_object_ && depth_ == 1; }

  void begin_member(const std::string& key) {
    field_ = Field::none;
    if (key == "agentName") field_ = Field::agent;
    else if (key == "assignmentName") field_ = Field::assignment;
    else if (key == "backend") field_ = Field::backend;
    else if (key == "model") field_ = Field::model;
    else if (key == "maxAttemptsPerSession") field_ = Field::max_attempts;
    else if (key == "lockedFields") field_ = Field::locked;
    else if (key == "hooksNotImported") field_ = Field::not_imported;
    else if (key == "hooks") field_ = Field::hooks;
    // What the member held before is replaced, whatever its new value turns out to be.
    if (auto* target = string_field()) target->clear();
    if (auto* list = list_field()) list->clear();
    if (field_ == Field::max_attempts) out_.max_attempts_per_session = core::FrozenInputs{}.max_attempts_per_session;
    if (field_ == Field::hooks) out_.hooks.clear();
  }

  /// A string here is kept: a root member's value, or an item of a root member's array.
  bool wants_string() const {
    return (depth_ == 1 && string_field()) || (depth_ == 2 && list_field());
  }
  std::string* string_field() const {
    switch (field_) {
      case Field::agent: return &out_.agent_name;
      case Field::assignment: return &out_.assignment_name;
      case Field::backend: return &out_.backend;
      case Field::model: return &out_.model;
      default: return nullptr;
    }
  }
  std::vector<std::string>* list_field() const {
    switch (field_) {
      case Field::locked: return &out_.locked_fields;
      case Field::not_imported: return &out_.hooks_not_imported;
      default: return nullptr;
    }
  }
  /// A scalar that is a root member's whole value ends that member.
  bool scalar() {
    if (depth_ == 1) field_ = Field::none;
    return true;
  }

  core::FrozenInputs& out_;
  int depth_ = 0;
  bool root_is_object_ = false;
  Field field_ = Field::none;
  std::string key_;
  std::string text_;
};

}  // namespace

bool read_frozen_summary(std::string_view text, core::FrozenInputs& out) {
  boost::json::basic_parser<SummaryHandler> parser(boost::json::parse_options{}, out);
  error_code ec;
  const auto used = parser.write_some(false, text.data(), text.size(), ec);
  return !ec && used == text.size();
}

std::string write_frozen_summary(const core::FrozenInputs& in) {
  boost::json::object o{{"agentName", in.agent_name},
                        {"assignmentName", in.assignment_name},
                        {"backend", in.backend},
                        {"model", in.model},
                        {"maxAttemptsPerSession", in.max_attempts_per_session},
                        {"lockedFields", core::to_json_strings(in.locked_fields)}};
  if (!in.hooks.empty()) o["hooks"] = boost::json::array(in.hooks.size(), boost::json::object{});
  if (!in.hooks_not_imported.empty()) o["hooksNotImported"] = core::to_json_strings(in.hooks_not_imported);
  return boost::json::serialize(o);
}

}  // namespace agentry::store
