// The mock backend's script: what an attempt will do, step by step.
//
// A script comes from start()'s config_json `backendConfig.steps` (a JSON array), or
// else from the prompt's lines that begin with "@mock " followed by one step object.
// With neither, the attempt echoes the prompt as one MESSAGE_COMPLETED and succeeds.
// Every attempt first emits a CHECKPOINT (see attempt.hpp); then, per step:
//
//   {"say": "text", "deltas": N, "rateHz": R}
//       N ephemeral MESSAGE_DELTA pieces of text (default 1; 0 = none), paced at R per
//       second (0 or absent = as fast as possible), then MESSAGE_COMPLETED (whole text).
//   {"events": N, "kind": "notice"|"delta", "ephemeral": bool, "rateHz": R}
//       N numbered events, index 1..N: NOTICE {"level":"info","message":"event <i>",
//       "index":i} or MESSAGE_DELTA {"text":"event <i>","itemId":id,"index":i} (one
//       itemId per step). `"complete": true` (deltas only) then emits MESSAGE_COMPLETED
//       with the deltas' whole text, as a real agent's message ends. `ephemeral`
//       defaults to true for deltas and false for notices. `"timestamps": true` adds
//       "emittedAtNs": CLOCK_MONOTONIC at emit (system-wide, so another process on the
//       machine can measure delivery latency).
//   {"reasoning": "text"}      one REASONING event.
//   {"tool": {"command": "ls", "output": "...", "exitCode": 0}}
//       TOOL_STARTED then TOOL_COMPLETED (status "failed" when exitCode is not 0).
//   {"usage": {...}}           one USAGE event with that object as its payload.
//   {"notice": "text"}         one NOTICE at level info.
//   {"checkpoint": "token"}    one CHECKPOINT with that resume token.
//   {"ask": {"summary": "...", "kind": "command"}}
//       APPROVAL_REQUEST with a generated approvalId, then waits for an approval input
//       with that id; NOTICE with the decision; "deny" ends the attempt in error.
//   {"waitInput": true}        waits for a message input; echoes it as MESSAGE_COMPLETED.
//   {"sleepMs": N}             waits N ms.
//   {"hang": true}             waits until interrupted.
//   {"fail": "message"}        ends the attempt: FINISHED {"outcome":"error"}.
//   {"frame": {"count": N, "rateHz": R}}
//       N browser live view frames (BROWSER_FRAME, ephemeral; a tiny grey JPEG with
//       "url": "mock://frame/<i>"), paced at R per second; only to a host of ABI 1.2+.
//   {"frame": {"unavailable": "reason"}}   one BROWSER_FRAME saying there is no view.
//   {"exec": ["prog", "arg", ...]}
//       runs prog (PATH lookup) in the workspace with the start env added; TOOL_STARTED,
//       TOOL_COMPLETED with its combined output (first 64 KiB) and exit code; a nonzero
//       exit ends the attempt in error.
// All waits end early on interrupt(), which makes the attempt finish "interrupted".
// After the last step: FINISHED {"outcome":"success"}.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace agentry::mock {

struct Say {
  std::string text;
  uint32_t deltas = 1;
  double rate_hz = 0;
};
struct Events {
  uint64_t count = 0;
  bool delta = false;  // MESSAGE_DELTA instead of NOTICE
  bool ephemeral = false;
  double rate_hz = 0;
  bool timestamps = false;
  bool complete = false;  // deltas: then one MESSAGE_COMPLETED with their whole text
};
struct Reasoning {
  std::string text;
};
struct Tool {
  std::string command;
  std::string output;
  int64_t exit_code = 0;
};
struct Usage {
  std::string json;  // the object as given, serialized
};
struct Notice {
  std::string text;
};
struct Checkpoint {
  std::string token;
};
struct Ask {
  std::string summary;
  std::string kind = "command";
};
struct WaitInput {};
struct Sleep {
  uint64_t ms = 0;
};
struct Hang {};
struct Fail {
  std::string message;
};
struct Exec {
  std::vector<std::string> argv;
};
struct Frame {
  uint64_t count = 1;
  double rate_hz = 0;
  std::string unavailable;  // non-empty: one "unavailable" frame with this reason
};

using Step = std::variant<Say, Events, Reasoning, Tool, Usage, Notice, Checkpoint, Ask, WaitInput, Sleep, Hang,
                          Fail, Exec, Frame>;

struct Script {
  std::vector<Step> steps;
  std::string error;  // non-empty: the script is malformed and the attempt fails with this
  // config_json.launcher: "exec" steps start their program after this command, with
  // these variables ("KEY=VALUE"), as every process-driving backend does; that is how
  // an execution environment (a sandbox, a container) confines them.
  std::vector<std::string> launcher_command;
  std::vector<std::string> launcher_env;
};

// Builds the script of one attempt from start()'s config_json and input_json. Never
// throws on bad input (it reports it in `error`); may throw std::bad_alloc.
Script parse_script(const std::string& config_json, const std::string& input_json);

}  // namespace agentry::mock
