#include "support/container_image.hpp"

#include "support/git_repo.hpp"
#include "support/source_tree.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <mutex>

namespace agentry::test {
namespace fs = std::filesystem;

std::vector<std::string> podman_engine_args() { return {"--runtime", "runc", "--cgroup-manager", "cgroupfs"}; }

std::vector<std::string> podman_run_args() {
  auto limit = [](int resource, rlim_t wanted) {
    rlimit r{};
    ::getrlimit(resource, &r);
    const rlim_t hard = r.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, r.rlim_max);
    return std::to_string(std::min(wanted, hard)) + ":" + std::to_string(hard);
  };
  return {"--ulimit", "nofile=" + limit(RLIMIT_NOFILE, 4096), "--ulimit", "nproc=" + limit(RLIMIT_NPROC, 4096)};
}

int podman(const std::vector<std::string>& args, std::string* output) {
  std::vector<std::string> argv{"podman"};
  for (const auto& a : podman_engine_args()) argv.push_back(a);
  argv.insert(argv.end(), args.begin(), args.end());
  try {
    auto r = run_command(argv, {}, {}, std::chrono::minutes(3));
    if (output) *output = r.output;
    return r.exit_code;
  } catch (const std::exception& e) {
    if (output) *output = e.what();
    return -1;
  }
}

std::string container_test_image(const fs::path& agentry_binary, std::string& why) {
  static std::mutex mutex;
  static std::string image, failure;
  std::lock_guard lock(mutex);
  if (!image.empty() || !failure.empty()) {
    why = failure;
    return image;
  }
  if (run_command({"sh", "-c", "command -v podman"}).exit_code != 0) {
    why = failure = "podman is not installed";
    return {};
  }
  std::vector<std::string> build{source_file("tests/support/make_container_image.sh"), agentry_binary.string()};
  for (const auto& a : podman_engine_args()) build.push_back(a);
  auto built = run_command(build, {}, {}, std::chrono::minutes(3));
  std::string tag = built.output.substr(0, built.output.find('\n'));
  if (built.exit_code != 0 || tag.rfind("localhost/", 0) != 0) {
    why = failure = "cannot build the test image: " + built.output;
    return {};
  }
  std::string out;
  std::vector<std::string> probe{"run", "--rm", "--network", "none"};
  for (const auto& a : podman_run_args()) probe.push_back(a);
  probe.insert(probe.end(), {tag, "/bin/sh", "-c", "echo ok"});
  if (podman(probe, &out) != 0 || out.find("ok") == std::string::npos) {
    why = failure = "podman cannot run a container here: " + out;
    return {};
  }
  image = tag;
  return image;
}

}  // namespace agentry::test
