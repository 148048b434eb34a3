// `attachment add|list|get|rm`: files handed to a run. add and get move the bytes
// through the client (a WebSocket byte stream when connected, the blob store directly
// when embedded); list and rm are the attachments.list / attachments.remove operations.

#include "cli/commands/commands.hpp"
#include "cli/render.hpp"

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <sstream>

namespace agentry::cli {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

std::string human_bytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  std::ostringstream out;
  if (unit == 0) out << bytes << " B";
  else {
    out.precision(1);
    out << std::fixed << value << " " << units[unit];
  }
  return out.str();
}

/// Progress on stderr for files of 1 MiB and more, only when stderr is a terminal.
TransferProgress progress_for(CommandContext& ctx, const std::string& label) {
  if (&ctx.err() != &std::cerr || ::isatty(STDERR_FILENO) != 1) return {};
  auto last = std::make_shared<int>(-1);
  return [&ctx, label, last](std::uint64_t done, std::uint64_t total) {
    if (total < 1024 * 1024) return;
    const int percent = static_cast<int>(done * 100 / total);
    if (percent == *last) return;
    *last = percent;
    ctx.err() << "\r" << label << ": " << percent << "% of " << human_bytes(total) << std::flush;
    if (done >= total) ctx.err() << "\n";
  };
}

std::string attachment_line(const json::value& a) {
  return text_of(a.at("attachmentId")) + "  " + human_bytes(a.at("size").to_number<std::uint64_t>()) + "  " +
         text_of(a.at("name"));
}

}  // namespace

int attachment_add_command(CommandContext& ctx, const AttachmentOptions& o) {
  const fs::path file(o.file);
  const std::string name = o.name.empty() ? file.filename().string() : o.name;
  auto client = ctx.client();
  if (!client) return ctx.report(client.error());
  auto added = (*client)->upload_attachment(o.run_id, file, name, progress_for(ctx, name));
  if (!added) return ctx.report(added.error());
  return ctx.print(*added, [](const json::value& v) { return "added " + attachment_line(v.at("attachment")) + "\n"; });
}

int attachment_list_command(CommandContext& ctx, const AttachmentOptions& o) {
  auto listed = ctx.call("attachments.list", json::object{{"runId", o.run_id}, {"scope", o.scope}});
  if (!listed) return ctx.report(listed.error());
  const std::string run = o.run_id;
  return ctx.print(*listed, [run](const json::value& v) {
    std::string out;
    for (const auto& a : v.at("attachments").as_array()) {
      out += attachment_line(a);
      if (text_of(a.at("runId")) != run) out += "  (run " + text_of(a.at("runId")) + ")";
      out += "\n";
    }
    if (v.at("attachments").as_array().empty()) out = "no attachments\n";
    return out;
  });
}

int attachment_get_command(CommandContext& ctx, const AttachmentOptions& o) {
  fs::path destination(o.output);
  if (o.output.empty() || fs::is_directory(destination)) {
    // The attachment's own (already safe) name, in the current directory or the one given.
    auto listed = ctx.call("attachments.list", json::object{{"runId", o.run_id}, {"scope", "group"}});
    if (!listed) return ctx.report(listed.error());
    std::string name;
    for (const auto& a : listed->at("attachments").as_array())
      if (text_of(a.at("attachmentId")) == o.attachment_id) name = text_of(a.at("name"));
    if (name.empty())
      return ctx.report(core::make_error(core::ErrorCode::not_found,
                                         "run " + o.run_id + " has no attachment '" + o.attachment_id + "'",
                                         {{"runId", o.run_id}, {"attachmentId", o.attachment_id}}));
    destination = o.output.empty() ? fs::path(name) : destination / name;
  }
  std::error_code ec;
  if (fs::exists(fs::symlink_status(destination, ec)) && !o.force)
    return ctx.report(core::make_error(core::ErrorCode::conflict,
                                       "'" + destination.string() + "' exists; pass --force to overwrite it, or -o PATH",
                                       {{"path", destination.string()}}));
  auto client = ctx.client();
  if (!client) return ctx.report(client.error());
  auto got = (*client)->download_attachment(o.run_id, o.attachment_id, destination,
                                            progress_for(ctx, destination.filename().string()));
  if (!got) return ctx.report(got.error());
  json::object result = got->as_object();
  result["path"] = fs::absolute(destination, ec).string();
  return ctx.print(result, [](const json::value& v) {
    return "saved " + text_of(v.at("path")) + " (" +
           human_bytes(v.at("attachment").at("size").to_number<std::uint64_t>()) + ")\n";
  });
}

int attachment_rm_command(CommandContext& ctx, const AttachmentOptions& o) {
  auto removed = ctx.call("attachments.remove", json::object{{"runId", o.run_id}, {"attachmentId", o.attachment_id}});
  if (!removed) return ctx.report(removed.error());
  return ctx.print(*removed, [](const json::value& v) { return "removed " + attachment_line(v.at("attachment")) + "\n"; });
}

}  // namespace agentry::cli
