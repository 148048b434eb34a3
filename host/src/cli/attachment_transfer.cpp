// Attachment transfers of the CLI's clients: the default (a client that cannot), and the
// embedded client's, which works on the engine directly: the file is written through a
// BlobWriter (hashed as it goes) and read back from the stored blob.

#include "cli/client.hpp"
#include "cli/embedded_client.hpp"
#include "core/attachment.hpp"
#include "events/projections.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace agentry::cli {
namespace fs = std::filesystem;
using core::ErrorCode;

core::Result<boost::json::value> Client::upload_attachment(const std::string&, const fs::path&, const std::string&,
                                                           const TransferProgress&) {
  return core::fail(ErrorCode::internal, "this client cannot upload attachments");
}

core::Result<boost::json::value> Client::download_attachment(const std::string&, const std::string&, const fs::path&,
                                                             const TransferProgress&) {
  return core::fail(ErrorCode::internal, "this client cannot download attachments");
}

core::Result<std::uint64_t> attachment_file_size(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    return core::fail(ErrorCode::invalid_request, "'" + file.string() + "' is not a readable regular file");
  const auto size = fs::file_size(file, ec);
  if (ec) return core::fail(ErrorCode::invalid_request, "cannot read '" + file.string() + "': " + ec.message());
  if (size > core::max_attachment_bytes)
    return core::fail(ErrorCode::payload_too_large,
                      "'" + file.string() + "' is " + std::to_string(size) + " bytes; an attachment may hold at most " +
                          std::to_string(core::max_attachment_bytes) + " bytes (25 MiB)",
                      {{"limit", core::max_attachment_bytes}, {"size", size}});
  return size;
}

fs::path partial_path_for(const fs::path& destination) {
  return destination.parent_path() / ("." + destination.filename().string() + ".agentry-partial");
}

core::Result<boost::json::value> EmbeddedClient::upload_attachment(const std::string& run_id, const fs::path& file,
                                                                   const std::string& name,
                                                                   const TransferProgress& progress) {
  auto& attachments = stack_->engine().attachments();
  if (auto checked = attachments.check_name(name); !checked) return checked.failure();
  auto size = attachment_file_size(file);
  if (!size) return size.failure();
  if (auto run = attachments.list(run_id, false); !run) return run.failure();  // an unknown run: NOT_FOUND
  if (!attachments.blobs()) return core::fail(ErrorCode::internal, "attachments are unavailable here");
  auto writer = attachments.blobs()->begin_write();
  if (!writer) return writer.failure();
  std::ifstream in(file, std::ios::binary);
  if (!in) return core::fail(ErrorCode::invalid_request, "cannot open '" + file.string() + "'");
  std::string buffer(65536, '\0');
  std::uint64_t done = 0;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n == 0) break;
    if (done + n > core::max_attachment_bytes)
      return core::fail(ErrorCode::payload_too_large, "'" + file.string() + "' grew past 25 MiB while being read");
    if (auto ok = (*writer)->write(std::string_view(buffer.data(), n)); !ok) return ok.failure();
    done += n;
    if (progress) progress(done, *size);
  }
  if (in.bad()) return core::fail(ErrorCode::invalid_request, "reading '" + file.string() + "' failed");
  auto added = attachments.add_written(run_id, {name, ""}, std::move(*writer), engine::Actor{"cli"});
  if (!added) return added.failure();
  return boost::json::value(boost::json::object{{"attachment", events::attachment_json(*added)}});
}

core::Result<boost::json::value> EmbeddedClient::download_attachment(const std::string& run_id,
                                                                     const std::string& attachment_id,
                                                                     const fs::path& destination,
                                                                     const TransferProgress& progress) {
  auto found = stack_->engine().attachments().content(run_id, attachment_id);
  if (!found) return found.failure();
  const auto& [attachment, path] = *found;
  const fs::path partial = partial_path_for(destination);
  std::error_code ec;
  fs::remove(partial, ec);
  fs::copy_file(path, partial, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::permissions(partial, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace, ec);
  if (!ec) fs::rename(partial, destination, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    return core::fail(ErrorCode::invalid_request, "cannot write '" + destination.string() + "': " + ec.message());
  }
  if (progress) progress(attachment.size, attachment.size);
  return boost::json::value(boost::json::object{{"attachment", events::attachment_json(attachment)}});
}

}  // namespace agentry::cli
