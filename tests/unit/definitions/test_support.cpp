#include "test_support.hpp"

#include "definitions/loader.hpp"

#include <gtest/gtest.h>

#include <boost/json/array.hpp>

#include <atomic>
#include <fstream>
#include <random>
#include <stdexcept>
#include <unistd.h>

namespace fs = std::filesystem;

namespace agentry::definitions::testing {

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  std::random_device random;
  const std::string name = "agentry-definitions-" + std::to_string(::getpid()) + "-" +
                           std::to_string(counter++) + "-" + std::to_string(random());
  path_ = fs::temp_directory_path() / name;
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

fs::path TempDir::write(const fs::path& relative, std::string_view content) const {
  const fs::path file = path_ / relative;
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + file.string());
  return file;
}

EnvLookup fake_env(std::map<std::string, std::string> values) {
  return [values = std::move(values)](std::string_view name) -> std::optional<std::string> {
    const auto it = values.find(std::string(name));
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

std::vector<Problem> problems_of(const core::Error& error) {
  std::vector<Problem> out;
  const auto* problems = error.details.if_contains("problems");
  if (problems == nullptr || !problems->is_array()) return out;
  for (const auto& item : problems->get_array()) {
    const auto& object = item.get_object();
    auto text = [&](std::string_view key) {
      const auto* value = object.if_contains(key);
      return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
    };
    out.push_back(Problem{text("path"), text("field"), text("message")});
  }
  return out;
}

bool has_problem(const std::vector<Problem>& problems, std::string_view path_suffix,
                 std::string_view field, std::string_view message_part) {
  for (const auto& problem : problems) {
    const bool path_matches = problem.path.size() >= path_suffix.size() &&
                              problem.path.compare(problem.path.size() - path_suffix.size(),
                                                   path_suffix.size(), path_suffix) == 0;
    if (path_matches && problem.field == field &&
        problem.message.find(message_part) != std::string::npos) {
      return true;
    }
  }
  return false;
}

std::string dump(const std::vector<Problem>& problems) {
  std::string out;
  for (const auto& problem : problems) out += describe(problem) + "\n";
  return out.empty() ? "(no problems)" : out;
}

DefinitionCounts expect_every_kind_without_warnings(const Roots& roots) {
  const auto agents = list_agents(roots);
  const auto assignments = list_assignments(roots);
  const auto launchers = list_launchers(roots);
  const auto tasks = list_task_definitions(roots);
  EXPECT_TRUE(agents.warnings.empty()) << dump(agents.warnings);
  EXPECT_TRUE(assignments.warnings.empty()) << dump(assignments.warnings);
  EXPECT_TRUE(launchers.warnings.empty()) << dump(launchers.warnings);
  EXPECT_TRUE(tasks.warnings.empty()) << dump(tasks.warnings);
  return {agents.entries.size(), assignments.entries.size(), launchers.entries.size(), tasks.entries.size()};
}

}  // namespace agentry::definitions::testing
