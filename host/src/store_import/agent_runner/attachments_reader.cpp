#include "store_import/agent_runner/attachments_reader.hpp"

#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <memory>

namespace agentry::store_import::agent_runner {
namespace fs = std::filesystem;

namespace {

core::Failure attachment_failure(const fs::path& manifest, std::size_t index, const char* field, const std::string& reason) {
  const std::string at = "attachments[" + std::to_string(index) + "]." + field;
  return core::fail(core::ErrorCode::validation, manifest.string() + ": " + at + " " + reason,
                    {{"file", manifest.string()}, {"field", at}});
}

}  // namespace

core::Result<std::pair<std::string, std::uint64_t>> hash_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return core::fail(core::ErrorCode::not_found, file.string() + ": cannot be read");
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    return core::fail(core::ErrorCode::internal, "cannot start a SHA-256 digest");
  std::array<char, 64 * 1024> buffer{};
  std::uint64_t size = 0;
  while (in) {
    in.read(buffer.data(), buffer.size());
    const auto got = in.gcount();
    if (got <= 0) break;
    EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<std::size_t>(got));
    size += static_cast<std::uint64_t>(got);
  }
  if (in.bad()) return core::fail(core::ErrorCode::internal, file.string() + ": read failed");
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx.get(), digest.data(), &length);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 0xf];
  }
  return std::pair<std::string, std::uint64_t>(std::move(out), size);
}

core::Result<fs::path> check_attachment_file(const fs::path& run_dir, const ManifestAttachment& attachment,
                                             std::size_t index) {
  const fs::path manifest = run_dir / "run.json";
  const fs::path relative(attachment.relative_path);
  if (relative.empty() || relative.is_absolute())
    return attachment_failure(manifest, index, "relativePath", "must be a relative path");
  std::error_code ec;
  const auto root = fs::weakly_canonical(run_dir, ec);
  const auto file = fs::weakly_canonical(run_dir / relative, ec);
  if (ec) return attachment_failure(manifest, index, "relativePath", "cannot be resolved (" + ec.message() + ")");
  const auto inside = file.lexically_relative(root);
  if (inside.empty() || *inside.begin() == "..")
    return attachment_failure(manifest, index, "relativePath", "must stay inside the run's directory");
  if (!fs::is_regular_file(file, ec))
    return attachment_failure(manifest, index, "relativePath", "names no file (" + file.string() + ")");
  auto hashed = hash_file(file);
  if (!hashed) return attachment_failure(manifest, index, "relativePath", hashed.error().message);
  if (hashed->second != attachment.size)
    return attachment_failure(manifest, index, "size",
                              "is " + std::to_string(attachment.size) + " but the file holds " +
                                  std::to_string(hashed->second) + " bytes");
  if (hashed->first != attachment.sha256)
    return attachment_failure(manifest, index, "sha256", "does not match the file's bytes (" + hashed->first + ")");
  return file;
}

}  // namespace agentry::store_import::agent_runner
