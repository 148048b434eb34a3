#include "core/placement.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace agentry::core {
namespace {

std::string listed(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string label_phrase(const std::vector<std::string>& labels) {
  return (labels.size() == 1 ? "the label " : "the labels ") + listed(labels);
}

}  // namespace

bool is_valid_label(std::string_view label) {
  return !label.empty() && label.size() <= 128 && std::all_of(label.begin(), label.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("._-:=/").find(static_cast<char>(c)) != std::string_view::npos;
  });
}

std::vector<std::string> missing_labels(const MemberOffer& offer, const PlacementNeeds& needs) {
  std::vector<std::string> missing;
  for (const auto& label : needs.labels)
    if (std::find(offer.labels.begin(), offer.labels.end(), label) == offer.labels.end()) missing.push_back(label);
  return missing;
}

bool within_roots(const std::vector<std::string>& roots, std::string_view cwd) {
  if (roots.empty()) return true;
  return std::any_of(roots.begin(), roots.end(), [&](const std::string& root) {
    if (root == "/") return cwd.starts_with('/');
    return cwd == root || (cwd.starts_with(root) && cwd[root.size()] == '/');
  });
}

bool at_capacity(const MemberOffer& offer) { return offer.capacity > 0 && offer.live_runs >= offer.capacity; }

std::optional<std::string> misfit(const MemberOffer& offer, const PlacementNeeds& needs) {
  if (auto missing = missing_labels(offer, needs); !missing.empty()) return "it lacks " + label_phrase(missing);
  if (!within_roots(offer.workspace_roots, needs.cwd))
    return "its workspace roots (" + listed(offer.workspace_roots) + ") do not hold " + needs.cwd;
  if (at_capacity(offer))
    return "it is at capacity (" + std::to_string(offer.live_runs) + " of " + std::to_string(offer.capacity) +
           " live runs)";
  return std::nullopt;
}

std::string why_nobody(const std::vector<MemberOffer>& members, const PlacementNeeds& needs) {
  if (members.empty()) return "no member is serving";
  std::vector<const MemberOffer*> labelled;
  for (const auto& m : members)
    if (missing_labels(m, needs).empty()) labelled.push_back(&m);
  if (labelled.empty()) return "no member has " + label_phrase(needs.labels);
  std::vector<const MemberOffer*> placed;
  for (const auto* m : labelled)
    if (within_roots(m->workspace_roots, needs.cwd)) placed.push_back(m);
  if (placed.empty())
    return std::string(needs.labels.empty() ? "no member" : "no member with " + label_phrase(needs.labels)) +
           " has a workspace root holding " + needs.cwd;
  if (std::all_of(placed.begin(), placed.end(), [](const MemberOffer* m) { return at_capacity(*m); }))
    return placed.size() == 1 ? "the one member that can take it (" + placed.front()->name + ") is at capacity"
                              : "every member that can take it is at capacity";
  std::vector<std::string> names;
  for (const auto* m : placed)
    if (!at_capacity(*m)) names.push_back(m->name);
  return "to be claimed by " + listed(names);
}

std::string normal_workspace_root(std::string_view path) {
  if (path.empty() || path.front() != '/' || path.find('\n') != std::string_view::npos) return {};
  std::string normal = std::filesystem::path(path).lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

}  // namespace agentry::core
