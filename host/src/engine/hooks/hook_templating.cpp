#include "engine/hooks/hook_templating.hpp"

#include "definitions/template.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace agentry::engine {
namespace json = boost::json;
namespace {

json::value render_value(const json::value& value, const json::object& context, std::vector<std::string>& unknown) {
  if (value.is_string()) {
    auto rendered = definitions::render_template(value.as_string(), context);
    for (auto& key : rendered.unknown_keys)
      if (std::find(unknown.begin(), unknown.end(), key) == unknown.end()) unknown.push_back(std::move(key));
    return json::value(rendered.text);
  }
  if (value.is_array()) {
    json::array out;
    for (const auto& item : value.as_array()) out.push_back(render_value(item, context, unknown));
    return out;
  }
  if (value.is_object()) return render_hook_options(value.as_object(), context, unknown);
  return value;
}

}  // namespace

json::object hook_template_context(const core::Run& run, const std::filesystem::path& state_dir) {
  json::object context = run.frozen.vars;
  context["run_id"] = run.id;
  context["run_group_id"] = run.run_group_id;
  context["cwd"] = run.cwd;
  context["state_dir"] = state_dir.string();
  context["assignment_name"] = run.frozen.assignment_name;
  if (!context.contains("repo_root") && !run.repo_root.empty()) context["repo_root"] = run.repo_root;
  return context;
}

json::object render_hook_options(const json::object& options, const json::object& context,
                                 std::vector<std::string>& unknown) {
  json::object out;
  for (const auto& [key, value] : options) out[key] = render_value(value, context, unknown);
  return out;
}

std::string describe_unknown_hook_keys(const std::vector<std::string>& unknown) {
  if (unknown.empty()) return {};
  std::string names;
  for (const auto& key : unknown) names += (names.empty() ? "'" : ", '") + key + "'";
  return std::string(unknown.size() == 1 ? "unknown template key " : "unknown template keys ") + names +
         " (left as written)";
}

}  // namespace agentry::engine
