#pragma once
// What a session's prompt says of the run's attachments: a short section listing each
// attachment of the run's group with its name, size and the absolute path of its stored
// (read-only) file, so the agent can read it. Nothing when there are none.

#include "core/run.hpp"
#include "workspace/blob_store.hpp"

#include <string>

namespace agentry::store {
class Transaction;
}  // namespace agentry::store

namespace agentry::engine {

/// Read in the caller's transaction; at most the newest 20 are listed, the rest counted.
std::string attachment_prompt_section(store::Transaction& c, const core::Run& run, const workspace::BlobStore* blobs);

}  // namespace agentry::engine
