#pragma once
// BackendSession over an in-process plugin instance, with the host callback table the
// instance receives. The table validates and copies every event before handing it to
// the sink, and never calls back into the plugin.

#include "plugins/backend_session.hpp"
#include "plugins/plugin_library.hpp"

#include <memory>

namespace agentry::plugins {

core::Result<std::unique_ptr<BackendSession>> create_plugin_session(std::shared_ptr<PluginLibrary> library,
                                                                    const BackendDescriptor& backend,
                                                                    BackendEventSink& sink);

}  // namespace agentry::plugins
