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

json::object object_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_object() ? v->as_object() : json::object{};
}

json::array steps_json(const std::vector<ContainerStep>& steps) {
  json::array out;
  for (const auto& s : steps) {
    json::object step{{"kind", s.kind}, {"target", s.target}, {"timeoutMs", s.timeout_ms}};
    if (s.kind == "git-clone") {
      step["source"] = s.source;
      step["baseRef"] = s.base_ref;
      step["branch"] = s.branch;
    } else {
      step["command"] = s.command.empty() ? "" : s.command.front();
      step["args"] = to_json_strings(std::vector<std::string>(s.command.begin() + (s.command.empty() ? 0 : 1),
                                                              s.command.end()));
      step["env"] = s.env;
      step["cwd"] = s.cwd;
      step["user"] = s.user;
      step["detach"] = s.detach;
    }
    out.push_back(std::move(step));
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
    step.kind = text(o, "kind", step.kind);
    step.target = text(o, "target", step.target);
    if (const auto* t = o.if_contains("timeoutMs"); t && t->is_int64()) step.timeout_ms = static_cast<int>(t->as_int64());
    step.source = text(o, "source");
    step.base_ref = text(o, "baseRef");
    step.branch = text(o, "branch");
    if (auto program = text(o, "command"); !program.empty()) {
      step.command.push_back(program);
      for (auto& a : strings_in(o.if_contains("args"))) step.command.push_back(std::move(a));
    }
    step.env = object_at(o, "env");
    step.cwd = text(o, "cwd");
    step.user = text(o, "user");
    step.detach = flag(o, "detach", false);
    out.push_back(std::move(step));
  }
  return out;
}

json::array mounts_json(const std::vector<Mount>& mounts) {
  json::array out;
  for (const auto& m : mounts)
    out.push_back(json::object{{"hostPath", m.source}, {"containerPath", m.target}, {"mode", m.read_only ? "ro" : "rw"}});
  return out;
}

std::vector<Mount> mounts_from(const json::value* v) {
  std::vector<Mount> out;
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& item : v->as_array())
    if (item.is_object())
      out.push_back({text(item.as_object(), "hostPath"), text(item.as_object(), "containerPath"),
                     text(item.as_object(), "mode") == "ro"});
  return out;
}

}  // namespace

json::object to_json(const ContainerSpec& spec) {
  const auto& s = spec.security;
  json::object out{{"mode", spec.mode},
                   {"engine", spec.engine},
                   {"engineArgs", to_json_strings(spec.engine_args)},
                   {"lifetime", spec.lifetime},
                   {"cwd", spec.cwd},
                   {"lifecycle", json::object{{"afterStart", steps_json(spec.after_start)},
                                              {"onWorkspaceCreate", steps_json(spec.on_workspace_create)}}},
                   {"sessionMounts", to_json_strings(spec.session_mounts)},
                   {"security", json::object{{"userns", s.userns},
                                             {"selinuxLabel", s.selinux_label},
                                             {"readOnlyRootFilesystem", s.read_only_root},
                                             {"capDrop", to_json_strings(s.cap_drop)},
                                             {"capAdd", to_json_strings(s.cap_add)},
                                             {"user", s.user},
                                             {"noNewPrivileges", s.no_new_privileges}}},
                   {"extraRunArgs", to_json_strings(spec.extra_run_args)},
                   {"extraExecArgs", to_json_strings(spec.extra_exec_args)},
                   {"cleanup", json::object{{"policy", spec.cleanup}}},
                   {"keepAlive", to_json_strings(spec.keep_alive)}};
  if (spec.mode == "existing") {
    out["container"] = spec.container;
    out["expectedMounts"] = mounts_json(spec.expected_mounts);
  } else {
    out["image"] = spec.image;
    out["containerName"] = spec.container_name;
  }
  if (spec.workspace)
    out["workspace"] = json::object{{"scope", spec.workspace_scope},
                                    {"hostRoot", spec.workspace_host_root},
                                    {"hostPath", spec.workspace_host},
                                    {"containerPath", spec.workspace_container},
                                    {"mode", spec.workspace_read_only ? "ro" : "rw"},
                                    {"create", spec.workspace_create}};
  return out;
}

ContainerSpec container_spec_from_json(const json::object& o) {
  ContainerSpec spec;
  spec.mode = text(o, "mode", spec.mode);
  spec.engine = text(o, "engine", spec.engine);
  spec.engine_args = strings_in(o.if_contains("engineArgs"));
  spec.image = text(o, "image");
  spec.container = text(o, "container");
  spec.container_name = text(o, "containerName");
  spec.lifetime = text(o, "lifetime", spec.lifetime);
  spec.cwd = text(o, "cwd", spec.cwd);
  if (const auto* w = o.if_contains("workspace"); w && w->is_object()) {
    const auto& wo = w->as_object();
    spec.workspace = true;
    spec.workspace_scope = text(wo, "scope", spec.workspace_scope);
    spec.workspace_host_root = text(wo, "hostRoot");
    spec.workspace_host = text(wo, "hostPath");
    spec.workspace_container = text(wo, "containerPath");
    spec.workspace_read_only = text(wo, "mode") == "ro";
    spec.workspace_create = flag(wo, "create", true);
  }
  const auto lifecycle = object_at(o, "lifecycle");
  spec.after_start = steps_from(lifecycle.if_contains("afterStart"));
  spec.on_workspace_create = steps_from(lifecycle.if_contains("onWorkspaceCreate"));
  spec.session_mounts = strings_in(o.if_contains("sessionMounts"));
  spec.expected_mounts = mounts_from(o.if_contains("expectedMounts"));
  const auto so = object_at(o, "security");
  spec.security.userns = text(so, "userns");
  spec.security.selinux_label = text(so, "selinuxLabel");
  spec.security.read_only_root = flag(so, "readOnlyRootFilesystem", false);
  spec.security.cap_drop = strings_in(so.if_contains("capDrop"));
  spec.security.cap_add = strings_in(so.if_contains("capAdd"));
  spec.security.user = text(so, "user");
  spec.security.no_new_privileges = flag(so, "noNewPrivileges", true);
  spec.extra_run_args = strings_in(o.if_contains("extraRunArgs"));
  spec.extra_exec_args = strings_in(o.if_contains("extraExecArgs"));
  spec.cleanup = text(object_at(o, "cleanup"), "policy", spec.cleanup);
  if (auto keep = strings_in(o.if_contains("keepAlive")); !keep.empty()) spec.keep_alive = std::move(keep);
  return spec;
}

}  // namespace agentry::core
