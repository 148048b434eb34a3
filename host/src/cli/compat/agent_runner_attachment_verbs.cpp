// agent-runner's `attachment list|add|download|remove <run> ...`: uploads and downloads
// through our client's byte streams, answers in its attachment shapes.

#include "api/compat/compat_dto.hpp"
#include "cli/compat/agent_runner_invocation.hpp"

#include <boost/json.hpp>

#include <filesystem>

namespace agentry::cli::compat {
namespace json = boost::json;
namespace fs = std::filesystem;

int Invocation::attachment_command() {
  const std::string verb = args_.words.size() >= 2 ? word(1) : "";
  std::optional<int> refused;
  if (verb == "list") {
    if ((refused = refuse_others("attachment list", {"--output-format", "--scope"})) ||
        (refused = want_words("attachment list", 2, {"run"})))
      return *refused;
    const std::string scope = args_.value("--scope").value_or("group");
    if (scope != "run" && scope != "group") return usage("--scope is run or group (got '" + scope + "')");
    auto listed = ctx_.call("attachments.list", json::object{{"runId", word(2)}, {"scope", scope}});
    if (!listed) return failed(listed.error());
    json::array entries;
    for (const auto& a : listed->at("attachments").as_array())
      entries.push_back(api::compat::ref_attachment_entry(a.as_object()));
    if (json_output()) return print_json(entries);
    ctx_.out() << attachment_lines(entries, word(2));
    return exit_code::success;
  }
  if (verb == "add") {
    if ((refused = refuse_others("attachment add", {"--output-format", "--name"})) ||
        (refused = want_words("attachment add", 2, {"run", "source-file"})))
      return *refused;
    const fs::path file = (ctx_.env().cwd / word(3)).lexically_normal();
    const std::string name = args_.value("--name").value_or(file.filename().string());
    auto client = ctx_.client();
    if (!client) return failed(client.error());
    auto added = (*client)->upload_attachment(word(2), file, name, {});
    if (!added) return failed(added.error());
    const auto attachment = api::compat::ref_attachment(added->at("attachment").as_object());
    if (json_output()) return print_json(attachment);
    ctx_.out() << "added attachment " << attachment.at("id").as_string().c_str() << " (" << name << ") to run "
               << word(2) << "\n";
    return exit_code::success;
  }
  if (verb == "download") {
    if ((refused = refuse_others("attachment download", {"--output-format"})) ||
        (refused = want_words("attachment download", 2, {"run", "attachment", "output-path"})))
      return *refused;
    auto client = ctx_.client();
    if (!client) return failed(client.error());
    fs::path output = (ctx_.env().cwd / word(4)).lexically_normal();
    std::error_code ec;
    if (fs::is_directory(output, ec)) {
      // Into a directory: under the attachment's own name, as agent-runner does.
      auto listed = ctx_.call("attachments.list", json::object{{"runId", word(2)}, {"scope", "group"}});
      if (!listed) return failed(listed.error());
      std::string name;
      for (const auto& a : listed->at("attachments").as_array())
        if (a.as_object().at("attachmentId") == json::value(word(3))) name = std::string(a.at("name").as_string());
      if (name.empty()) return usage("run " + word(2) + " has no attachment " + word(3));
      output /= name;
    }
    if (fs::exists(output, ec)) return usage("attachment download: " + output.string() + " exists; not replaced");
    auto got = (*client)->download_attachment(word(2), word(3), output, {});
    if (!got) return failed(got.error());
    auto attachment = api::compat::ref_attachment(got->at("attachment").as_object());
    if (json_output()) {
      attachment["outputPath"] = output.string();
      return print_json(attachment);
    }
    ctx_.out() << "downloaded attachment " << word(3) << " to " << output.string() << "\n";
    return exit_code::success;
  }
  if (verb == "remove") {
    if ((refused = refuse_others("attachment remove", {"--output-format"})) ||
        (refused = want_words("attachment remove", 2, {"run", "attachment"})))
      return *refused;
    auto removed = ctx_.call("attachments.remove", json::object{{"runId", word(2)}, {"attachmentId", word(3)}});
    if (!removed) return failed(removed.error());
    const auto result = api::compat::ref_attachment_remove_result(removed->as_object());
    if (json_output()) return print_json(result);
    ctx_.out() << "removed attachment " << word(3) << " from run " << word(2) << "\n";
    return exit_code::success;
  }
  return usage("attachment needs a subcommand: list, add, download or remove (got '" + verb + "')");
}

}  // namespace agentry::cli::compat
