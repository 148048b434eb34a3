#include "support/container_image.hpp"

#include "support/git_repo.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <system_error>

namespace agentry::test {
namespace fs = std::filesystem;
namespace {

/// The programs the tests' agents run inside.
const std::vector<std::string> programs{"sh",    "sleep", "cat", "ls",    "echo", "touch", "kill", "id",
                                        "env",   "mkdir", "rm",  "true",  "false", "hostname", "pwd", "sed",
                                        "grep", "printf", "test"};

/// The libraries `ldd` says `binary` loads (with the loader itself).
std::set<std::string> libraries_of(const fs::path& binary) {
  std::set<std::string> out;
  auto r = run_command({"ldd", binary.string()});
  std::istringstream lines(r.output);
  std::string line;
  while (std::getline(lines, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const auto end = line.find_first_of(" (", slash);
    out.insert(line.substr(slash, end == std::string::npos ? std::string::npos : end - slash));
  }
  return out;
}

/// Copies `file` (following links) to the same path under `root`.
void copy_into(const fs::path& root, const fs::path& file) {
  const fs::path target = root / file.relative_path();
  fs::create_directories(target.parent_path());
  std::error_code ec;
  fs::copy_file(fs::canonical(file), target, fs::copy_options::overwrite_existing, ec);
}

std::string hex(std::uint64_t h) {
  std::ostringstream out;
  out << std::hex << h;
  return out.str();
}

}  // namespace

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
  std::set<std::string> files;
  for (const auto& p : programs) {
    auto r = run_command({"sh", "-c", "command -v " + p});
    std::string path = r.output.substr(0, r.output.find('\n'));
    if (r.exit_code != 0 || path.empty() || path.front() != '/') continue;  // a shell builtin
    files.insert(path);
    for (auto& lib : libraries_of(path)) files.insert(lib);
  }
  for (auto& lib : libraries_of(agentry_binary)) files.insert(lib);
  // The tag names the files' contents (sizes and times), so a rebuilt library makes a new one.
  std::uint64_t h = 1469598103934665603ULL;
  for (const auto& f : files) {
    std::error_code ec;
    const auto size = fs::file_size(fs::canonical(f, ec), ec);
    const std::string key = f + ":" + std::to_string(size) + ";";
    for (unsigned char c : key) h = (h ^ c) * 1099511628211ULL;
  }
  const std::string tag = "localhost/agentry-test:" + hex(h);
  if (podman({"image", "exists", tag}) != 0) {
    const fs::path work = fs::temp_directory_path() / ("agentry-test-image-" + std::to_string(::getpid()));
    const fs::path root = work / "rootfs";
    fs::remove_all(work);
    for (const char* dir : {"bin", "usr/local/bin", "proc", "sys", "dev", "tmp", "etc", "run", "root"})
      fs::create_directories(root / dir);
    for (const auto& f : files) copy_into(root, f);
    // Debian's usrmerge: /bin/sh is /usr/bin/sh; both names work inside too.
    for (const auto& p : programs)
      if (!fs::exists(root / "bin" / p))
        for (const char* dir : {"usr/bin", "bin"})
          if (fs::exists(root / dir / p) && std::string(dir) != "bin") fs::create_symlink("/usr/bin/" + p, root / "bin" / p);
    std::ofstream(root / "etc/passwd") << "root:x:0:0:root:/root:/bin/sh\n";
    std::ofstream(root / "etc/group") << "root:x:0:\n";
    const fs::path tar = work / "rootfs.tar";
    std::string out;
    if (run_command({"tar", "-C", root.string(), "-cf", tar.string(), "."}).exit_code != 0 ||
        podman({"import", tar.string(), tag}, &out) != 0) {
      fs::remove_all(work);
      why = failure = "cannot build the test image: " + out;
      return {};
    }
    fs::remove_all(work);
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
