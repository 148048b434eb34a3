#pragma once
// A VFS over SQLite's default one that joins the writes of a commit to the write-ahead
// log into a few system calls. SQLite appends a commit's frames to the WAL with two
// writes each (the frame's header, then the page), and the writer's connection commits
// dozens of pages at a time: creating runs took about 90 pwrite calls per commit, on the
// one thread every write waits for. Here the appends gather in memory and reach the file
// together, before anything can depend on them:
//   - at the WAL's sync (each commit with synchronous=FULL), so durability is unchanged:
//     a commit is acknowledged only after its frames are written and synced;
//   - before any read, size query, truncation or file control of the WAL, a write that
//     does not continue the gathered ones, and when 256 KiB have gathered (written in
//     pieces below the 128 KiB the unix VFS takes per call);
//   - at the wal-index barrier that publishes a commit to readers, so no reader can see a
//     frame the file does not hold even where a commit does not sync (synchronous=NORMAL;
//     a failed write there cannot be reported, so the store uses this VFS with FULL only).
// Only files SQLite opens as a WAL are gathered; every other call goes to the default
// VFS unchanged.

namespace agentry::sqlite_store {

/// The VFS's name, registered on first use (not as the default): pass it to
/// sqlite3_open_v2 for the connection that writes.
const char* coalescing_vfs_name();

}  // namespace agentry::sqlite_store
