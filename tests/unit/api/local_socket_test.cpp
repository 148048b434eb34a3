#include "api/local_socket.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace agentry::api {
namespace {
namespace fs = std::filesystem;

/// A Unix socket bound at `path`, listening or not, closed with the object (its file
/// stays, as a killed daemon's does).
class BoundSocket {
 public:
  BoundSocket(const fs::path& path, bool listening) : fd_(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
    bound_ = ::bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
             (!listening || ::listen(fd_, 4) == 0);
  }
  ~BoundSocket() { ::close(fd_); }
  bool bound() const { return bound_; }

 private:
  int fd_;
  bool bound_ = false;
};

class LocalSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("agentry-sock-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(LocalSocketTest, APathMustBeAbsoluteAndFitASocketAddress) {
  EXPECT_EQ(max_socket_path_length(), 107u);
  EXPECT_TRUE(check_socket_path("/" + std::string(106, 's')));
  auto too_long = check_socket_path("/" + std::string(107, 's'));
  ASSERT_FALSE(too_long);
  EXPECT_NE(too_long.error().message.find("is 108 bytes long"), std::string::npos) << too_long.error().message;
  auto relative = check_socket_path("run/agentry.sock");
  ASSERT_FALSE(relative);
  EXPECT_NE(relative.error().message.find("relative"), std::string::npos) << relative.error().message;
  EXPECT_EQ(unix_url("/run/agentry/agentry.sock"), "unix:///run/agentry/agentry.sock");
}

TEST_F(LocalSocketTest, AStaleSocketIsReplacedAndNothingThereIsFine) {
  const fs::path path = dir_ / "agentry.sock";
  EXPECT_TRUE(clear_socket_path(path));
  { ASSERT_TRUE(BoundSocket(path, true).bound()); }  // closed: its file stays, nobody answers
  ASSERT_TRUE(fs::exists(path));
  auto cleared = clear_socket_path(path);
  ASSERT_TRUE(cleared) << cleared.error().message;
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(LocalSocketTest, ALiveSocketIsNotStolen) {
  const fs::path path = dir_ / "agentry.sock";
  BoundSocket live(path, true);
  ASSERT_TRUE(live.bound());
  auto cleared = clear_socket_path(path);
  ASSERT_FALSE(cleared);
  EXPECT_EQ(cleared.error().code, core::ErrorCode::conflict);
  EXPECT_NE(cleared.error().message.find("is listening on it"), std::string::npos) << cleared.error().message;
  EXPECT_TRUE(fs::exists(path));
}

TEST_F(LocalSocketTest, SomethingThatIsNotASocketIsLeftAlone) {
  const fs::path path = dir_ / "agentry.sock";
  std::ofstream(path) << "precious";
  auto cleared = clear_socket_path(path);
  ASSERT_FALSE(cleared);
  EXPECT_EQ(cleared.error().code, core::ErrorCode::conflict);
  EXPECT_NE(cleared.error().message.find("not a socket"), std::string::npos) << cleared.error().message;
  EXPECT_TRUE(fs::is_regular_file(path));
}

TEST_F(LocalSocketTest, TheFileIsRemovedOnlyWhileItIsStillOurs) {
  const fs::path path = dir_ / "agentry.sock";
  {
    BoundSocket ours(path, true);
    SocketFile file(path);
    file.remove();
    EXPECT_FALSE(fs::exists(path));
  }
  {
    BoundSocket ours(path, true);
    SocketFile file(path);
    // Another daemon found it stale and put its own there.
    fs::remove(path);
    BoundSocket theirs(path, true);
    ASSERT_TRUE(theirs.bound());
    file.remove();
    EXPECT_TRUE(fs::exists(path));
  }
}

}  // namespace
}  // namespace agentry::api
