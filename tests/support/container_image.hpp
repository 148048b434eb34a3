// What the container tests share: whether podman can run a container on this machine,
// the engine options it needs here, and a local image to run. There is no registry on
// these machines, so the image is made from the host's own files by
// make_container_image.sh (which the benchmarks use too), once per machine.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace agentry::test {

/// `engineArgs:` for podman here: the runc runtime and the cgroupfs manager (crun refuses
/// this kernel's hybrid cgroup layout).
std::vector<std::string> podman_engine_args();
/// `extraRunArgs:` here: rlimits at or below the host's hard limits (raising one needs a
/// capability these machines' sandboxes lack).
std::vector<std::string> podman_run_args();

/// The local test image for `agentry_binary` ("localhost/agentry-test:<hash>"), built on
/// first use; empty, with `why` set, when podman cannot build or run it here.
std::string container_test_image(const std::filesystem::path& agentry_binary, std::string& why);

/// `podman <engine args> args...`: its exit code and output (stdout then stderr).
int podman(const std::vector<std::string>& args, std::string* output = nullptr);

}  // namespace agentry::test
