#pragma once
// `agentry triggers list`: the inbound triggers of the config directory
// (definitions/trigger.hpp) and whether each one's secret is set, never the secret.

#include "cli/command_context.hpp"

namespace agentry::cli {

int triggers_list_command(CommandContext& ctx);

}  // namespace agentry::cli
