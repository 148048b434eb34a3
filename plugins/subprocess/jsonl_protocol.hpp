// The agentry event protocol spoken over a child's stdin/stdout in "jsonl" mode
// (docs/subprocess-protocol.md): one JSON object per line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "events.hpp"

namespace agentry::subprocess {

// What a {"type":"finished"} line declared.
struct Declared {
  bool error = false;                  // "outcome": "error"
  std::optional<std::string> message;  // "message"
};

struct AgentLine {
  enum class Kind {
    ignore,    // blank line
    event,     // emit `event` (a mapped event, or a NOTICE about a bad line)
    finished   // remember `declared`
  };
  Kind kind = Kind::ignore;
  Event event;
  Declared declared;
};

// Maps one stdout line. Never throws on bad input: a line that is not a valid protocol
// object becomes a warning NOTICE saying why.
AgentLine map_agent_line(std::string_view line);

// The NOTICE for a line longer than kJsonlLineBytes (its content was dropped).
Event oversized_line_notice(std::size_t bytes);

// Lines written to the child's stdin in `"stdin": "jsonl"` mode, newline included.
// {"type":"input","kind":"prompt","text":prompt}
std::string prompt_input_line(std::string_view prompt);
// {"type":"input","kind":"message"|"approval","inputId":id, ...payload fields}, or
// nullopt when `payload_json` is not a JSON object or `kind` is unknown.
std::optional<std::string> input_line(uint32_t kind, std::string_view input_id, std::string_view payload_json);

}  // namespace agentry::subprocess
