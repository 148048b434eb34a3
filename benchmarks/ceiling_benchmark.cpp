// This machine's own limits, which the daemon's figures are read against
// (scripts/bench-table.py prints each figure beside the ceiling it cannot beat):
//   BM_LoopbackTcpBytes       one loopback TCP connection, a writer and a reader thread,
//                             1 MiB writes and reads: bytes_per_second
//   BM_LoopbackRoundTrip      64 bytes there and back over loopback TCP (TCP_NODELAY),
//                             one thread each side: the floor of any request's latency
//   BM_SqliteTimelineInsert   rows shaped like the daemon's timeline_events (run_id,
//                             cursor, kind, attempt, at, ~150-byte payload; WITHOUT ROWID,
//                             primary key (run_id, cursor)) inserted 4,096 to a transaction
//                             with the daemon's settings (WAL, synchronous=FULL,
//                             foreign_keys on; host/src/sqlite_store/): rows durable per second
//   BM_SqliteTimelineBatchInsert the same events packed 512 to a row in a rowid table with
//                             an index of (run_id, cursor), as the daemon stores its timeline
//                             (store/timeline_batches.hpp): events durable per second
// The work of each is done by Google Benchmark's iterations (--benchmark_min_time for a
// quicker look).

#include <benchmark/benchmark.h>

#include <sqlite3.h>

#include <array>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

namespace agentry::bench {
namespace {

/// A connected loopback TCP pair (blocking sockets): {client, server}.
std::array<int, 2> loopback_pair() {
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listener, 1) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error(std::string("loopback listener: ") + std::strerror(errno));
  const int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    throw std::runtime_error(std::string("loopback connect: ") + std::strerror(errno));
  const int server = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  ::close(listener);
  int one = 1;
  for (int fd : {client, server}) ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return {client, server};
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const auto n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool read_exactly(int fd, char* data, std::size_t size) {
  while (size > 0) {
    const auto n = ::recv(fd, data, size, 0);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

void BM_LoopbackTcpBytes(benchmark::State& state) {
  constexpr std::size_t chunk = 1 << 20;
  constexpr std::size_t per_iteration = 64 * chunk;
  const auto [client, server] = loopback_pair();
  std::atomic<bool> read_failed{false};
  std::thread reader([fd = server, &read_failed] {
    std::vector<char> buf(chunk);
    for (;;) {
      const auto n = ::recv(fd, buf.data(), buf.size(), 0);
      if (n < 0) read_failed = true;
      if (n <= 0) return;
    }
  });
  std::vector<char> data(chunk, 'x');
  bool sent_all = true;
  for (auto _ : state)
    for (std::size_t sent = 0; sent_all && sent < per_iteration; sent += chunk)
      sent_all = write_all(client, data.data(), chunk);
  ::shutdown(client, SHUT_WR);
  reader.join();
  ::close(client);
  ::close(server);
  if (!sent_all || read_failed) return state.SkipWithError("the loopback transfer failed");
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(per_iteration));
}
BENCHMARK(BM_LoopbackTcpBytes)->UseRealTime()->Unit(benchmark::kMillisecond);

// The time per iteration is the round trip.
void BM_LoopbackRoundTrip(benchmark::State& state) {
  constexpr std::size_t size = 64;
  const auto [client, server] = loopback_pair();
  std::thread echo([fd = server] {
    std::array<char, size> buf{};
    while (read_exactly(fd, buf.data(), size) && write_all(fd, buf.data(), size)) {
    }
  });
  std::array<char, size> buf{};
  bool ok = true;
  for (auto _ : state)
    if (ok) ok = write_all(client, buf.data(), size) && read_exactly(client, buf.data(), size);
  ::shutdown(client, SHUT_RDWR);
  echo.join();
  ::close(client);
  ::close(server);
  if (!ok) state.SkipWithError("the loopback round trip failed");
}
BENCHMARK(BM_LoopbackRoundTrip)->UseRealTime()->Unit(benchmark::kMicrosecond);

void check(sqlite3* db, int rc, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
    throw std::runtime_error(std::string(what) + ": " + sqlite3_errmsg(db));
}

/// Inserts rows of `events_per_row` timeline events, 4,096 events to a transaction, with
/// the daemon's settings; items are events.
void sqlite_timeline_insert(benchmark::State& state, int events_per_row) {
  constexpr int events_per_transaction = 4096;
  const int rows_per_transaction = events_per_transaction / events_per_row;
  const auto dir = std::filesystem::temp_directory_path() / ("agentry-ceiling-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  sqlite3* db = nullptr;
  try {
    check(db, sqlite3_open_v2((dir / "ceiling.db").c_str(), &db,
                              SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr),
          "open");
    // Small rows live best in their key's b-tree; packed ones (KiBs) in a rowid table
    // beside a small index, as the daemon keeps them (sqlite_store/migrations.cpp, 17).
    const char* table = events_per_row == 1
                            ? "CREATE TABLE timeline (run_id TEXT NOT NULL, cursor INTEGER NOT NULL, "
                              "kind TEXT NOT NULL, attempt_number INTEGER, at TEXT NOT NULL, "
                              "payload_json TEXT NOT NULL, PRIMARY KEY (run_id, cursor)) WITHOUT ROWID"
                            : "CREATE TABLE timeline (run_id TEXT NOT NULL, cursor INTEGER NOT NULL, "
                              "kind TEXT NOT NULL, attempt_number INTEGER, at TEXT NOT NULL, "
                              "payload_json TEXT NOT NULL); "
                              "CREATE UNIQUE INDEX timeline_by_cursor ON timeline (run_id, cursor)";
    for (const char* sql : {"PRAGMA foreign_keys = ON", "PRAGMA synchronous = FULL", "PRAGMA journal_mode = WAL", table})
      check(db, sqlite3_exec(db, sql, nullptr, nullptr, nullptr), sql);
    sqlite3_stmt* insert = nullptr;
    check(db, sqlite3_prepare_v2(db, "INSERT INTO timeline VALUES (?, ?, ?, ?, ?, ?)", -1, &insert, nullptr),
          "prepare");
    // A notice's payload as the daemon stores it, about 150 bytes; a packed row holds
    // each event's kind, time and attempt with it, as store/timeline_batches.hpp does.
    const std::string payload =
        R"({"level":"info","message":"event 123456","index":123456,"source":"backend","detail":"a line of an agent's output, as long as most"})";
    const std::string packed_event = "6:notice24:2026-12-04T12:00:00.000Z1;" + std::to_string(payload.size()) + ":" + payload;
    std::string row_text = payload;
    if (events_per_row > 1) {
      row_text.clear();
      for (int i = 0; i < events_per_row; ++i) row_text += packed_event;
    }
    const std::string run_id = "r_01JH7ZK3Q8X4M2N6P9R5T7V1W3";
    std::int64_t cursor = 0;
    for (auto _ : state) {
      check(db, sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr), "BEGIN");
      for (int i = 0; i < rows_per_transaction; ++i) {
        cursor += events_per_row;
        sqlite3_bind_text(insert, 1, run_id.data(), static_cast<int>(run_id.size()), SQLITE_STATIC);
        sqlite3_bind_int64(insert, 2, cursor);
        sqlite3_bind_text(insert, 3, "notice", -1, SQLITE_STATIC);
        sqlite3_bind_int64(insert, 4, 1);
        sqlite3_bind_text(insert, 5, "2026-12-04T12:00:00.000Z", -1, SQLITE_STATIC);
        sqlite3_bind_text(insert, 6, row_text.data(), static_cast<int>(row_text.size()), SQLITE_STATIC);
        check(db, sqlite3_step(insert), "INSERT");
        sqlite3_reset(insert);
      }
      check(db, sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), "COMMIT");
    }
    sqlite3_finalize(insert);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
  sqlite3_close_v2(db);
  std::filesystem::remove_all(dir);
  state.SetItemsProcessed(state.iterations() * events_per_transaction);
}

void BM_SqliteTimelineInsert(benchmark::State& state) { sqlite_timeline_insert(state, 1); }
BENCHMARK(BM_SqliteTimelineInsert)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_SqliteTimelineBatchInsert(benchmark::State& state) { sqlite_timeline_insert(state, 512); }
BENCHMARK(BM_SqliteTimelineBatchInsert)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace agentry::bench
