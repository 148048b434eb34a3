// start() params -> what one attempt of the codex backend needs (docs/backends/codex.md).
// Plain data and Boost.JSON; no I/O besides looking the binary up in PATH.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agentry/plugin/cpp/params.hpp"

namespace agentry::codex {

enum class Transport { stdio, ws, uds };

struct StdioLaunch {
  std::string program;            // resolved path of argv[0]
  std::vector<std::string> argv;  // [launcher...] codex app-server [-c k=v]... [extraArgs...]
  std::vector<std::string> env;   // the child's whole environment
  std::string codex_binary;       // the codex binary itself (argv[0] unless a launcher goes first)
};

struct SocketTarget {
  std::string host;          // ws: the host of the URL; uds: "localhost"
  std::string port;          // ws only
  std::string path = "/";    // the HTTP request target
  std::string socket_path;   // uds only
  std::string bearer_token;  // from authTokenFile; sent as Authorization: Bearer
};

struct AttemptConfig {
  Transport transport = Transport::stdio;
  StdioLaunch stdio;
  SocketTarget socket;
  std::string cwd;
  std::string model;
  std::string effort;
  std::string approval_policy;  // thread/start approvalPolicy
  std::string sandbox;          // thread/start sandbox
  bool unrestricted = false;    // auto-accept every approval request
  // ws/uds: backendConfig.config goes into thread/start's "config" instead of -c flags.
  boost::json::object thread_config;
  std::string prompt;  // empty when adopting
  std::optional<std::string> resume_thread_id;
  // Answer a question (ext/ask.h): thread/fork of resume_thread_id instead of resuming it,
  // so the run's own thread never sees the turn.
  bool fork = false;
  // Take over the turn an earlier attempt left running on resume_thread_id (ext/detach.h)
  // instead of starting one. The turn is the one the attempt checkpointed, when it got
  // that far (input_json.checkpoint.turnId).
  bool adopt = false;
  std::optional<std::string> adopt_turn_id;
  int64_t timeout_sec = 0;
  int interrupt_grace_ms = 5000;   // turn/interrupt -> turn/completed, else we end it ourselves
  int shutdown_grace_ms = 3000;    // stdin EOF -> exit, then SIGTERM -> SIGKILL
  int connect_timeout_ms = 30000;  // connection plus initialize and thread/start answers
};

struct ParsedConfig {
  std::optional<AttemptConfig> config;
  std::string error;  // set when config is empty
};

enum class AttemptMode { start, adopt };

// For adopt, the resume token is required and the prompt is not.
ParsedConfig parse_config(const agentry::plugin::StartParams& params, AttemptMode mode = AttemptMode::start);

/// The effort codex is sent for a run's effort: agent-runner's levels mapped as it maps
/// them (`off`: none, so codex's default; `max`: `xhigh`), anything else as written.
std::string codex_effort(const std::string& effort);

// A JSON value as a TOML value for `-c key=value` (strings quoted, tables inline).
std::string toml_value(const boost::json::value& value);

}  // namespace agentry::codex
