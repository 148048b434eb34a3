#include "sqlite_store/coalescing_vfs.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace agentry::sqlite_store {
namespace {

constexpr std::size_t gather_at_most = 256 * 1024;
// The unix VFS writes at most 128 KiB - 1 bytes per call (it masks the length: it was made
// for page-sized writes), so a flush hands it pieces below that.
constexpr std::size_t largest_write = 96 * 1024;
constexpr char wal_suffix[] = "-wal";

sqlite3_vfs* base_vfs = nullptr;  // the default VFS, set once before registration

/// Our file: the base VFS's file lives right after it (szOsFile adds both).
struct File {
  sqlite3_file base;      // pMethods: ours, or null when the base open failed
  sqlite3_file* real;     // the base VFS's file
  bool wal = false;
  std::string database;   // the database file's name (for a WAL: without "-wal")
  std::mutex mutex;       // a barrier on the database's file may flush from another connection's thread
  std::string gathered;   // WAL bytes not yet written, from `offset` on
  sqlite3_int64 offset = 0;
};

/// The WAL files open through this VFS, so a barrier on a database's file can flush its WAL.
/// Never destroyed: a store may still write while the process's statics are torn down.
struct OpenWals {
  std::mutex mutex;
  std::vector<File*> files;
};
OpenWals& open_wals() {
  static auto* wals = new OpenWals;
  return *wals;
}

File* file_of(sqlite3_file* f) { return reinterpret_cast<File*>(f); }

/// Writes what was gathered; the caller holds the file's mutex.
int flush_locked(File& f) {
  std::size_t done = 0;
  int rc = SQLITE_OK;
  while (done < f.gathered.size()) {
    const std::size_t piece = std::min(largest_write, f.gathered.size() - done);
    rc = f.real->pMethods->xWrite(f.real, f.gathered.data() + done, static_cast<int>(piece),
                                  f.offset + static_cast<sqlite3_int64>(done));
    if (rc != SQLITE_OK) break;
    done += piece;
  }
  // What was not written is kept: the next flush tries again and reports it.
  f.gathered.erase(0, done);
  f.offset += static_cast<sqlite3_int64>(done);
  return rc;
}

int flush(File& f) {
  if (!f.wal) return SQLITE_OK;
  std::lock_guard lock(f.mutex);
  return flush_locked(f);
}

int x_close(sqlite3_file* file) {
  File& f = *file_of(file);
  const int flushed = flush(f);
  if (f.wal) {
    auto& wals = open_wals();
    std::lock_guard lock(wals.mutex);
    std::erase(wals.files, &f);
  }
  const int rc = f.real->pMethods->xClose(f.real);
  f.~File();
  return flushed != SQLITE_OK ? flushed : rc;
}

int x_read(sqlite3_file* file, void* out, int amount, sqlite3_int64 offset) {
  File& f = *file_of(file);
  if (int rc = flush(f); rc != SQLITE_OK) return rc;
  return f.real->pMethods->xRead(f.real, out, amount, offset);
}

int x_write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
  File& f = *file_of(file);
  if (!f.wal) return f.real->pMethods->xWrite(f.real, data, amount, offset);
  std::lock_guard lock(f.mutex);
  const bool continues = !f.gathered.empty() && offset == f.offset + static_cast<sqlite3_int64>(f.gathered.size());
  if (!continues) {
    if (int rc = flush_locked(f); rc != SQLITE_OK) return rc;
    f.offset = offset;
  }
  f.gathered.append(static_cast<const char*>(data), static_cast<std::size_t>(amount));
  if (f.gathered.size() >= gather_at_most) return flush_locked(f);
  return SQLITE_OK;
}

int x_truncate(sqlite3_file* file, sqlite3_int64 size) {
  File& f = *file_of(file);
  if (int rc = flush(f); rc != SQLITE_OK) return rc;
  return f.real->pMethods->xTruncate(f.real, size);
}

int x_sync(sqlite3_file* file, int flags) {
  File& f = *file_of(file);
  if (int rc = flush(f); rc != SQLITE_OK) return rc;
  return f.real->pMethods->xSync(f.real, flags);
}

int x_file_size(sqlite3_file* file, sqlite3_int64* size) {
  File& f = *file_of(file);
  if (int rc = flush(f); rc != SQLITE_OK) return rc;
  return f.real->pMethods->xFileSize(f.real, size);
}

int x_lock(sqlite3_file* file, int level) { return file_of(file)->real->pMethods->xLock(file_of(file)->real, level); }
int x_unlock(sqlite3_file* file, int level) {
  return file_of(file)->real->pMethods->xUnlock(file_of(file)->real, level);
}
int x_check_reserved_lock(sqlite3_file* file, int* out) {
  return file_of(file)->real->pMethods->xCheckReservedLock(file_of(file)->real, out);
}

int x_file_control(sqlite3_file* file, int op, void* arg) {
  File& f = *file_of(file);
  if (int rc = flush(f); rc != SQLITE_OK) return rc;
  return f.real->pMethods->xFileControl(f.real, op, arg);
}

int x_sector_size(sqlite3_file* file) { return file_of(file)->real->pMethods->xSectorSize(file_of(file)->real); }
int x_device_characteristics(sqlite3_file* file) {
  return file_of(file)->real->pMethods->xDeviceCharacteristics(file_of(file)->real);
}

int x_shm_map(sqlite3_file* file, int page, int size, int extend, void volatile** out) {
  return file_of(file)->real->pMethods->xShmMap(file_of(file)->real, page, size, extend, out);
}
int x_shm_lock(sqlite3_file* file, int offset, int n, int flags) {
  return file_of(file)->real->pMethods->xShmLock(file_of(file)->real, offset, n, flags);
}

/// Called (on the database's file) between writing a commit's wal-index header copies:
/// the commit's frames reach the WAL before any reader can take the new header.
void x_shm_barrier(sqlite3_file* file) {
  File& f = *file_of(file);
  {
    auto& wals = open_wals();
    std::lock_guard lock(wals.mutex);
    for (File* wal : wals.files)
      if (wal->database == f.database) (void)flush(*wal);  // a failure stays gathered: the WAL's next call reports it
  }
  f.real->pMethods->xShmBarrier(f.real);
}

int x_shm_unmap(sqlite3_file* file, int delete_flag) {
  return file_of(file)->real->pMethods->xShmUnmap(file_of(file)->real, delete_flag);
}
int x_fetch(sqlite3_file* file, sqlite3_int64 offset, int amount, void** out) {
  File& f = *file_of(file);
  if (int rc = flush(f); rc != SQLITE_OK) return rc;
  return f.real->pMethods->xFetch(f.real, offset, amount, out);
}
int x_unfetch(sqlite3_file* file, sqlite3_int64 offset, void* page) {
  return file_of(file)->real->pMethods->xUnfetch(file_of(file)->real, offset, page);
}

/// Our methods at the base file's version: a method the base lacks stays absent.
sqlite3_io_methods methods_for(int version) {
  sqlite3_io_methods m{};
  m.iVersion = std::min(version, 3);
  m.xClose = x_close;
  m.xRead = x_read;
  m.xWrite = x_write;
  m.xTruncate = x_truncate;
  m.xSync = x_sync;
  m.xFileSize = x_file_size;
  m.xLock = x_lock;
  m.xUnlock = x_unlock;
  m.xCheckReservedLock = x_check_reserved_lock;
  m.xFileControl = x_file_control;
  m.xSectorSize = x_sector_size;
  m.xDeviceCharacteristics = x_device_characteristics;
  if (m.iVersion >= 2) {
    m.xShmMap = x_shm_map;
    m.xShmLock = x_shm_lock;
    m.xShmBarrier = x_shm_barrier;
    m.xShmUnmap = x_shm_unmap;
  }
  if (m.iVersion >= 3) {
    m.xFetch = x_fetch;
    m.xUnfetch = x_unfetch;
  }
  return m;
}

const sqlite3_io_methods* methods_v1() { static const auto m = methods_for(1); return &m; }
const sqlite3_io_methods* methods_v2() { static const auto m = methods_for(2); return &m; }
const sqlite3_io_methods* methods_v3() { static const auto m = methods_for(3); return &m; }

int x_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags) {
  auto* f = new (file) File{};
  f->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + sizeof(File));
  f->base.pMethods = nullptr;
  const int rc = base_vfs->xOpen(base_vfs, name, f->real, flags, out_flags);
  if (rc != SQLITE_OK || !f->real->pMethods) {
    f->~File();
    file->pMethods = nullptr;
    return rc != SQLITE_OK ? rc : SQLITE_CANTOPEN;
  }
  f->wal = (flags & SQLITE_OPEN_WAL) != 0;
  if (name) {
    f->database = name;
    if (f->wal && f->database.ends_with(wal_suffix)) f->database.resize(f->database.size() - (sizeof wal_suffix - 1));
  }
  const int version = f->real->pMethods->iVersion;
  f->base.pMethods = version >= 3 ? methods_v3() : version == 2 ? methods_v2() : methods_v1();
  if (f->wal) {
    auto& wals = open_wals();
    std::lock_guard lock(wals.mutex);
    wals.files.push_back(f);
  }
  return SQLITE_OK;
}

int x_delete(sqlite3_vfs*, const char* name, int sync_dir) { return base_vfs->xDelete(base_vfs, name, sync_dir); }
int x_access(sqlite3_vfs*, const char* name, int flags, int* out) { return base_vfs->xAccess(base_vfs, name, flags, out); }
int x_full_pathname(sqlite3_vfs*, const char* name, int size, char* out) {
  return base_vfs->xFullPathname(base_vfs, name, size, out);
}
void* x_dl_open(sqlite3_vfs*, const char* name) { return base_vfs->xDlOpen(base_vfs, name); }
void x_dl_error(sqlite3_vfs*, int size, char* out) { base_vfs->xDlError(base_vfs, size, out); }
void (*x_dl_sym(sqlite3_vfs*, void* handle, const char* symbol))(void) { return base_vfs->xDlSym(base_vfs, handle, symbol); }
void x_dl_close(sqlite3_vfs*, void* handle) { base_vfs->xDlClose(base_vfs, handle); }
int x_randomness(sqlite3_vfs*, int size, char* out) { return base_vfs->xRandomness(base_vfs, size, out); }
int x_sleep(sqlite3_vfs*, int micros) { return base_vfs->xSleep(base_vfs, micros); }
int x_current_time(sqlite3_vfs*, double* out) { return base_vfs->xCurrentTime(base_vfs, out); }
int x_get_last_error(sqlite3_vfs*, int size, char* out) { return base_vfs->xGetLastError(base_vfs, size, out); }
int x_current_time_int64(sqlite3_vfs*, sqlite3_int64* out) { return base_vfs->xCurrentTimeInt64(base_vfs, out); }

constexpr char vfs_name[] = "agentry-coalescing";

}  // namespace

const char* coalescing_vfs_name() {
  static std::once_flag once;
  std::call_once(once, [] {
    base_vfs = sqlite3_vfs_find(nullptr);
    static sqlite3_vfs vfs{};
    vfs.iVersion = 2;  // xCurrentTimeInt64; not the system-call overrides of version 3
    vfs.szOsFile = static_cast<int>(sizeof(File)) + base_vfs->szOsFile;
    vfs.mxPathname = base_vfs->mxPathname;
    vfs.zName = vfs_name;
    vfs.xOpen = x_open;
    vfs.xDelete = x_delete;
    vfs.xAccess = x_access;
    vfs.xFullPathname = x_full_pathname;
    vfs.xDlOpen = x_dl_open;
    vfs.xDlError = x_dl_error;
    vfs.xDlSym = x_dl_sym;
    vfs.xDlClose = x_dl_close;
    vfs.xRandomness = x_randomness;
    vfs.xSleep = x_sleep;
    vfs.xCurrentTime = x_current_time;
    vfs.xGetLastError = x_get_last_error;
    vfs.xCurrentTimeInt64 = x_current_time_int64;
    sqlite3_vfs_register(&vfs, 0);
  });
  return vfs_name;
}

}  // namespace agentry::sqlite_store
