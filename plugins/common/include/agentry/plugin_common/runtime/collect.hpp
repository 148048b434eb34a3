// A child run to its end for its whole output: a side question answered by one process
// (`claude -p ... --output-format json`, `codex exec`), on the executor like everything else.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>

#include "agentry/plugin_common/runtime/child.hpp"

namespace agentry::plugin_common::runtime {

struct Collected {
  std::string out;  // stdout as written, at most `max_bytes`
  std::string err;  // stderr, the same (its lines cut at ChildSpec::max_stderr_line)
  WaitStatus status;
};

// Spawns `spec`, writes `input` to its stdin and closes it, keeps what it prints, and
// calls `done` once it exited. Throws std::system_error when it cannot start. Dropping
// the returned child does not stop it; kill() and forget_handlers() do.
std::shared_ptr<Child> collect(const boost::asio::any_io_executor& io, ChildSpec spec, std::string input, std::size_t max_bytes,
                               std::function<void(Collected)> done);

}  // namespace agentry::plugin_common::runtime
