#include "core/container_spec.hpp"

#include "core/json_strings.hpp"

namespace agentry::core {
namespace json = boost::json;
namespace {

std::string text(const json::object& o, std::string_view key, std::string fallback = {}) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : fallback;
}

bool flag(const json::object& o, std::string_view key, bool fallback) {
  const auto* v = o.if_contains(key);
  return v && v->is_bool() ? v->as_bool() : fallback;
}

json::array steps_json(const std::vector<ContainerStep>& steps) {
  json::array out;
  for (const auto& s : steps) {
    if (!s.clone_url.empty())
      out.push_back(json::object{
          {"git-clone", json::object{{"url", s.clone_url}, {"ref", s.clone_ref}, {"path", s.clone_path}}}});
    else out.push_back(json::object{{"command", to_json_strings(s.command)}});
  }
  return out;
}

std::vector<ContainerStep> steps_from(const json::value* v) {
  std::vector<ContainerStep> out;
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& item : v->as_array()) {
    if (!item.is_object()) continue;
    const auto& o = item.as_object();
    ContainerStep step;
    if (const auto* clone = o.if_contains("git-clone"); clone && clone->is_object()) {
      step.clone_url = text(clone->as_object(), "url");
      step.clone_ref = text(clone->as_object(), "ref");
      step.clone_path = text(clone->as_object(), "path");
    } else {
      step.command = strings_in(o.if_contains("command"));
    }
    out.push_back(std::move(step));
  }
  return out;
}

json::array mounts_json(const std::vector<Mount>& mounts) {
  json::array out;
  for (const auto& m : mounts)
    out.push_back(json::object{{"source", m.source}, {"target", m.target}, {"readOnly", m.read_only}});
  return out;
}

std::vector<Mount> mounts_from(const json::value* v) {
  std::vector<Mount> out;
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& item : v->as_array())
    if (item.is_object())
      out.push_back({text(item.as_object(), "source"), text(item.as_object(), "target"),
                     flag(item.as_object(), "readOnly", false)});
  return out;
}

}  // namespace

json::object to_json(const ContainerSpec& spec) {
  const auto& s = spec.security;
  return {{"mode", spec.mode},
          {"engine", spec.engine},
          {"engineArgs", to_json_strings(spec.engine_args)},
          {"image", spec.image},
          {"container", spec.container},
          {"lifetime", spec.lifetime},
          {"workspace", json::object{{"hostPath", spec.workspace_host}, {"containerPath", spec.workspace_container}}},
          {"afterStart", steps_json(spec.after_start)},
          {"onWorkspaceCreate", steps_json(spec.on_workspace_create)},
          {"sessionMounts", mounts_json(spec.session_mounts)},
          {"security", json::object{{"user", s.user},
                                    {"readOnlyRootFilesystem", s.read_only_root},
                                    {"noNewPrivileges", s.no_new_privileges},
                                    {"capDrop", to_json_strings(s.cap_drop)},
                                    {"capAdd", to_json_strings(s.cap_add)}}},
          {"extraRunArgs", to_json_strings(spec.extra_run_args)},
          {"extraExecArgs", to_json_strings(spec.extra_exec_args)},
          {"cleanup", spec.cleanup},
          {"keepAlive", to_json_strings(spec.keep_alive)}};
}

ContainerSpec container_spec_from_json(const json::object& o) {
  ContainerSpec spec;
  spec.mode = text(o, "mode", spec.mode);
  spec.engine = text(o, "engine", spec.engine);
  spec.engine_args = strings_in(o.if_contains("engineArgs"));
  spec.image = text(o, "image");
  spec.container = text(o, "container");
  spec.lifetime = text(o, "lifetime", spec.lifetime);
  if (const auto* w = o.if_contains("workspace"); w && w->is_object()) {
    spec.workspace_host = text(w->as_object(), "hostPath");
    spec.workspace_container = text(w->as_object(), "containerPath");
  }
  spec.after_start = steps_from(o.if_contains("afterStart"));
  spec.on_workspace_create = steps_from(o.if_contains("onWorkspaceCreate"));
  spec.session_mounts = mounts_from(o.if_contains("sessionMounts"));
  if (const auto* s = o.if_contains("security"); s && s->is_object()) {
    const auto& so = s->as_object();
    spec.security.user = text(so, "user");
    spec.security.read_only_root = flag(so, "readOnlyRootFilesystem", false);
    spec.security.no_new_privileges = flag(so, "noNewPrivileges", true);
    if (so.contains("capDrop")) spec.security.cap_drop = strings_in(so.if_contains("capDrop"));
    spec.security.cap_add = strings_in(so.if_contains("capAdd"));
  }
  spec.extra_run_args = strings_in(o.if_contains("extraRunArgs"));
  spec.extra_exec_args = strings_in(o.if_contains("extraExecArgs"));
  spec.cleanup = text(o, "cleanup", spec.cleanup);
  if (auto keep = strings_in(o.if_contains("keepAlive")); !keep.empty()) spec.keep_alive = std::move(keep);
  return spec;
}

}  // namespace agentry::core
