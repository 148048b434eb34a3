#include "definitions/project_trust.hpp"

#include "core/text.hpp"
#include "definitions/locator.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <vector>

namespace fs = std::filesystem;

namespace agentry::definitions {
namespace {

/// SHA-256 fed piece by piece; every piece is length-prefixed, so no two different
/// listings can be fed as the same bytes.
class Digest {
 public:
  Digest() : ctx_(EVP_MD_CTX_new(), &EVP_MD_CTX_free) { EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr); }

  void add(std::string_view piece) {
    const std::string length = std::to_string(piece.size()) + ":";
    EVP_DigestUpdate(ctx_.get(), length.data(), length.size());
    EVP_DigestUpdate(ctx_.get(), piece.data(), piece.size());
  }

  std::string hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(ctx_.get(), digest, &length);
    return core::lower_hex(digest, length);
  }

 private:
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx_;
};

core::Result<std::string> read_bounded(const fs::path& file, std::uintmax_t& budget) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) return core::fail(core::ErrorCode::validation, "cannot read " + file.string() + ": " + ec.message());
  if (size > budget)
    return core::fail(core::ErrorCode::validation,
                      "the project's .agentry/ holds more than " + std::to_string(max_trusted_bytes) +
                          " bytes; definitions are small files: remove what is not one",
                      {{"path", file.string()}});
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return core::fail(core::ErrorCode::validation, "cannot read " + file.string());
  budget -= std::min<std::uintmax_t>(budget, text.size());
  return text;
}

}  // namespace

bool is_project_file(const fs::path& file, const Roots& roots) {
  if (!roots.project_dir) return false;
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(*roots.project_dir / ".agentry", ec);
  if (ec) return false;
  const fs::path real = fs::weakly_canonical(file, ec);
  if (ec) return false;
  // The lexical path counts too: a file named through the project's directory is the
  // project's, wherever a symlink takes it.
  return is_within(real, dir) || is_within(file.lexically_normal(), (*roots.project_dir / ".agentry").lexically_normal());
}

bool is_untrusted_file(const fs::path& file, const Roots& roots) {
  return !roots.project_trusted && is_project_file(file, roots);
}

std::string trust_hint(const Roots& roots) {
  const std::string dir = roots.project_dir ? roots.project_dir->string() : std::string("<dir>");
  return "the project " + dir + " is not trusted: review its .agentry/ and run `agentry trust " + dir + "`";
}

EnvAllow env_allow_for(const fs::path& file, const Roots& roots) {
  if (!is_untrusted_file(file, roots)) return {};
  return EnvAllow{roots.project_env_allow,
                  "an untrusted project may read only the variables listed in AGENTRY_PROJECT_ENV_ALLOW (" +
                      trust_hint(roots) + ")"};
}

bool refuse_if_untrusted(const fs::path& file, const Roots& roots, Diagnostics& diag, const std::string& field,
                         std::string_view what) {
  if (!is_untrusted_file(file, roots)) return false;
  diag.error(field, std::string(what) + ", which an untrusted project's .agentry/ may not do; " + trust_hint(roots));
  return true;
}

bool refuse_env_if_untrusted(const fs::path& file, const Roots& roots, Diagnostics& diag, const std::string& field,
                             std::string_view name) {
  const EnvAllow allow = env_allow_for(file, roots);
  if (allow.allows(name)) return false;
  diag.error(field, "reads the environment variable '" + std::string(name) + "' of the daemon; " + allow.refusal);
  return true;
}

void check_untrusted_notify(const fs::path& file, const Roots& roots, Diagnostics& diag,
                            const std::vector<core::NotifyTarget>& targets, const std::string& field) {
  if (!is_untrusted_file(file, roots)) return;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const std::string at = field + "[" + std::to_string(i) + "]";
    if (targets[i].kind == core::NotifyTarget::Kind::command)
      refuse_if_untrusted(file, roots, diag, at + ".command", "runs a command when the run ends");
    if (!targets[i].secret_env.empty()) refuse_env_if_untrusted(file, roots, diag, at + ".secretEnv", targets[i].secret_env);
  }
}

core::Result<std::string> project_digest(const fs::path& project_dir) {
  const fs::path root = project_dir / ".agentry";
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    return core::fail(core::ErrorCode::not_found, project_dir.string() + " has no .agentry/ directory",
                      {{"path", project_dir.string()}});
  struct Entry {
    std::string path;
    fs::path file;
    fs::file_type type;
  };
  std::vector<Entry> entries;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::none, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (entries.size() >= max_trusted_files)
      return core::fail(core::ErrorCode::validation,
                        "the project's .agentry/ holds more than " + std::to_string(max_trusted_files) +
                            " entries; definitions are a few files: remove what is not one",
                        {{"path", root.string()}});
    std::error_code type_ec;
    const auto status = it->symlink_status(type_ec);
    entries.push_back({it->path().lexically_relative(root).generic_string(), it->path(), status.type()});
  }
  if (ec) return core::fail(core::ErrorCode::validation, "cannot read " + root.string() + ": " + ec.message());
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.path < b.path; });

  Digest digest;
  std::uintmax_t budget = max_trusted_bytes;
  for (const auto& entry : entries) {
    digest.add(entry.path);
    switch (entry.type) {
      case fs::file_type::directory: digest.add("d"); break;
      case fs::file_type::regular: {
        digest.add("f");
        auto text = read_bounded(entry.file, budget);
        if (!text) return text.failure();
        digest.add(*text);
        break;
      }
      case fs::file_type::symlink: {
        // The loader reads through links, so what a link points at is part of what is trusted.
        digest.add("l");
        digest.add(fs::read_symlink(entry.file, ec).string());
        std::error_code target_ec;
        if (fs::is_regular_file(entry.file, target_ec)) {
          auto text = read_bounded(entry.file, budget);
          if (!text) return text.failure();
          digest.add(*text);
        }
        break;
      }
      default: digest.add("o"); break;
    }
  }
  return digest.hex();
}

std::optional<fs::path> find_project_dir(const fs::path& start) {
  std::error_code ec;
  for (fs::path dir = start; !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_directory(dir / ".agentry", ec)) return dir;
    if (dir == dir.root_path()) break;
  }
  return std::nullopt;
}

}  // namespace agentry::definitions
