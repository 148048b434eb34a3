#include "workspace/git_handles.hpp"

#include <mutex>
#include <thread>

namespace agentry::workspace::git {
using core::ErrorCode;

void ensure_initialized() {
  // On first use, not at program start: the init reads the system's CA certificates
  // (8 ms here), which every command and every daemon start paid, git or not. On a thread
  // of its own that ends at once: the init starts OpenSSL (through libssh2), which keeps
  // state for the calling thread that is only freed when that thread ends (a pool
  // thread's would still be held at exit, and LeakSanitizer reports it).
  static std::once_flag once;
  std::call_once(once, [] { std::thread([] { libgit2::get().git_libgit2_init(); }).join(); });
}

std::string oid_text(const git_oid* oid) {
  char buffer[GIT_OID_HEXSZ + 1] = {};
  libgit2::get().git_oid_tostr(buffer, sizeof buffer, oid);
  return buffer;
}

std::string last_error(const char* fallback) {
  const git_error* error = libgit2::get().git_error_last();
  return error && error->message ? std::string(error->message) : std::string(fallback);
}

core::Result<Repository> open_work_tree(const std::filesystem::path& cwd) {
  ensure_initialized();
  git_repository* raw = nullptr;
  const int rc = libgit2::get().git_repository_open_ext(&raw, cwd.c_str(), 0, nullptr);
  Repository repo(raw);
  if (rc == GIT_ENOTFOUND)
    return core::fail(ErrorCode::validation,
                      "the run's working directory " + cwd.string() + " is not inside a git work tree",
                      {{"cwd", cwd.string()}, {"reason", "not_a_git_work_tree"}});
  if (rc < 0)
    return core::fail(ErrorCode::validation, "cannot open the git repository of " + cwd.string() + ": " + last_error(),
                      {{"cwd", cwd.string()}, {"reason", "git_error"}});
  if (libgit2::get().git_repository_is_bare(repo.get()))
    return core::fail(ErrorCode::validation, "the repository of " + cwd.string() + " is bare: it has no work tree",
                      {{"cwd", cwd.string()}, {"reason", "bare_repository"}});
  return repo;
}

std::filesystem::path work_tree_root(git_repository* repo) {
  std::string workdir = libgit2::get().git_repository_workdir(repo);
  while (workdir.size() > 1 && workdir.back() == '/') workdir.pop_back();
  return std::filesystem::path(workdir);
}

}  // namespace agentry::workspace::git
