#include "support/temp_dir.hpp"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#include "support/socket_io.hpp"  // errno_message

namespace agentry::test {

namespace {

std::filesystem::path confined(const std::filesystem::path& root,
                               const std::filesystem::path& relative) {
  const auto normal = relative.lexically_normal();
  if (relative.is_absolute() || normal.empty() || *normal.begin() == "..") {
    throw std::runtime_error("TempDir: \"" + relative.string() +
                             "\" must be a relative path inside the directory");
  }
  return root / normal;
}

}  // namespace

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "agentry-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error(errno_message("mkdtemp " + pattern, errno));
  }
  path_ = pattern;
}

TempDir::~TempDir() { remove(); }

TempDir::TempDir(TempDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::exchange(other.path_, {});
  }
  return *this;
}

void TempDir::remove() noexcept {
  if (path_.empty()) return;
  if (std::getenv("AGENTRY_KEEP_TEST_DIRS") != nullptr) {
    std::cerr << "[agentry-test] kept " << path_.string() << '\n';
  } else {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    if (ec) std::cerr << "[agentry-test] could not remove " << path_.string() << ": " << ec.message() << '\n';
  }
  path_.clear();
}

std::filesystem::path TempDir::write_file(const std::filesystem::path& relative,
                                          std::string_view content) const {
  const auto full = confined(path_, relative);
  agentry::test::write_file(full, content);
  return full;
}

std::filesystem::path TempDir::make_dir(const std::filesystem::path& relative) const {
  const auto full = confined(path_, relative);
  std::filesystem::create_directories(full);
  return full;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(errno_message("cannot open " + path.string(), errno));
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_file(const std::filesystem::path& path, std::string_view content) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(errno_message("cannot create " + path.string(), errno));
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace agentry::test
