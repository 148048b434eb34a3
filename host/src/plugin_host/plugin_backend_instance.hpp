#pragma once
// BackendInstance over an in-process plugin instance, with the host callback table the
// instance receives. The table validates and copies every event before handing it to
// the sink, and never calls back into the plugin.

#include "plugin_host/backend_instance.hpp"
#include "plugin_host/plugin_library.hpp"

#include <memory>

namespace agentry::plugin_host {

core::Result<std::unique_ptr<BackendInstance>> create_plugin_session(std::shared_ptr<PluginLibrary> library,
                                                                    const BackendDescriptor& backend,
                                                                    BackendEventSink& sink);

}  // namespace agentry::plugin_host
