#include "workspace/blob_store.hpp"

#include "core/log.hpp"
#include "core/text.hpp"

#include <openssl/evp.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace agentry::workspace {
namespace fs = std::filesystem;

namespace {
/// Removes a spool file when the scope ends: adopted (then already moved) or not.
struct RemoveFile {
  const fs::path& path;
  ~RemoveFile() {
    std::error_code ignored;
    fs::remove(path, ignored);
  }
};
}  // namespace

struct BlobWriter::Hash {
  Hash() : ctx(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr); }
  ~Hash() { EVP_MD_CTX_free(ctx); }
  Hash(const Hash&) = delete;
  Hash& operator=(const Hash&) = delete;
  void update(std::string_view bytes) { EVP_DigestUpdate(ctx, bytes.data(), bytes.size()); }
  std::string hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx, digest.data(), &n);
    return core::lower_hex(digest.data(), n);
  }
  EVP_MD_CTX* ctx;
};

namespace {

core::Failure io_failure(const std::string& what, const fs::path& path, int error) {
  return core::fail(core::ErrorCode::internal, what + " " + path.string() + ": " + std::strerror(error));
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

BlobWriter::~BlobWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!path_.empty()) {
    std::error_code ignored;
    fs::remove(path_, ignored);
  }
}

core::Result<void> BlobWriter::write(std::string_view bytes) {
  if (!write_all(fd_, bytes)) return io_failure("cannot write", path_, errno);
  hash_->update(bytes);
  size_ += bytes.size();
  return core::ok();
}

BlobStore::BlobStore(fs::path root) : root_(std::move(root)), spool_(root_ / "tmp") {}

core::Result<std::unique_ptr<BlobStore>> BlobStore::open(const fs::path& root) {
  std::error_code ec;
  fs::create_directories(root / "tmp", ec);
  if (ec) return core::fail(core::ErrorCode::internal, "cannot create " + (root / "tmp").string() + ": " + ec.message());
  fs::permissions(root, fs::perms::owner_all, fs::perm_options::replace, ec);
  return std::unique_ptr<BlobStore>(new BlobStore(root));
}

core::Result<fs::path> BlobStore::make_spool_file() const {
  std::string name = (spool_ / "upload-XXXXXX").string();
  int fd = ::mkstemp(name.data());
  if (fd < 0) return io_failure("cannot create a spool file in", spool_, errno);
  ::close(fd);
  return fs::path(name);
}

core::Result<std::unique_ptr<BlobWriter>> BlobStore::begin_write() const {
  auto path = make_spool_file();
  if (!path) return path.failure();
  std::unique_ptr<BlobWriter> writer(new BlobWriter());
  writer->path_ = *path;
  writer->fd_ = ::open(path->c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (writer->fd_ < 0) return io_failure("cannot open", *path, errno);
  writer->hash_ = std::make_unique<BlobWriter::Hash>();
  return writer;
}

bool BlobStore::valid_sha256(std::string_view sha256) const {
  if (sha256.size() != 64) return false;
  for (char c : sha256)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

fs::path BlobStore::path_of(std::string_view sha256) const {
  return root_ / std::string(sha256.substr(0, 2)) / std::string(sha256);
}

core::Result<BlobInfo> BlobStore::adopt(const fs::path& spool_file) const {
  RemoveFile remove_spool{spool_file};
  int fd = ::open(spool_file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return io_failure("cannot read", spool_file, errno);
  BlobWriter::Hash hash;
  std::vector<char> buffer(1 << 20);
  std::uint64_t size = 0;
  for (;;) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      return io_failure("cannot read", spool_file, error);
    }
    if (n == 0) break;
    hash.update(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
    size += static_cast<std::uint64_t>(n);
  }
  ::close(fd);
  BlobInfo info{hash.hex(), size};
  if (auto placed = place(spool_file, info.sha256); !placed) return placed.failure();
  return info;
}

core::Result<void> BlobStore::place(const fs::path& spool_file, const std::string& sha256) const {
  const fs::path target = path_of(sha256);
  std::error_code ec;
  if (fs::exists(target, ec)) return core::ok();  // the same content is stored already
  fs::create_directories(target.parent_path(), ec);
  if (ec) return core::fail(core::ErrorCode::internal, "cannot create " + target.parent_path().string() + ": " + ec.message());
  fs::permissions(spool_file, fs::perms::owner_read | fs::perms::group_read, fs::perm_options::replace, ec);
  fs::rename(spool_file, target, ec);
  if (ec) return core::fail(core::ErrorCode::internal, "cannot store " + target.string() + ": " + ec.message());
  return core::ok();
}

core::Result<BlobInfo> BlobStore::adopt(std::unique_ptr<BlobWriter> writer) const {
  if (::fsync(writer->fd_) != 0) return io_failure("cannot sync", writer->path_, errno);
  ::close(writer->fd_);
  writer->fd_ = -1;
  BlobInfo info{writer->hash_->hex(), writer->size_};
  const fs::path spool = std::exchange(writer->path_, fs::path());
  RemoveFile remove_spool{spool};
  if (auto placed = place(spool, info.sha256); !placed) return placed.failure();
  return info;
}

void BlobStore::remove(std::string_view sha256) const {
  if (!valid_sha256(sha256)) return;
  std::error_code ignored;
  fs::remove(path_of(sha256), ignored);
}

int BlobStore::sweep(const std::set<std::string>& referenced, std::chrono::seconds grace) const {
  const auto cutoff = fs::file_time_type::clock::now() - grace;
  int removed = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const fs::path& path = it->path();
    const bool spool = path.parent_path() == spool_;
    if (!spool && referenced.count(path.filename().string())) continue;
    if (fs::last_write_time(path, ec) > cutoff) continue;
    if (fs::remove(path, ec)) ++removed;
  }
  if (removed > 0) core::log_info("removed attachment files no run names", {{"count", std::to_string(removed)}});
  return removed;
}

}  // namespace agentry::workspace
