// `files`, `diff`: a run's workspace (workspace.files/search/file, workspace.diff).

#include "cli/commands/commands.hpp"
#include "cli/render.hpp"

#include <unistd.h>

#include <iostream>
#include <sstream>

namespace agentry::cli {
namespace json = boost::json;

namespace {

const char* const reset = "\x1b[0m";
const char* const bold = "\x1b[1m";
const char* const red = "\x1b[31m";
const char* const green = "\x1b[32m";
const char* const cyan = "\x1b[36m";
const char* const blue = "\x1b[34m";

std::string human_size(std::int64_t bytes) {
  const char* units[] = {"B", "K", "M", "G", "T"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  std::ostringstream out;
  if (unit == 0) out << bytes << "B";
  else {
    out.precision(value < 10 ? 1 : 0);
    out << std::fixed << value << units[unit];
  }
  return out.str();
}

std::string paint(bool colour, const char* code, const std::string& text) {
  return colour ? std::string(code) + text + reset : text;
}

/// A coloured unified patch: headers bold, hunks cyan, additions green, deletions red.
std::string render_patch(const std::string& patch, bool colour) {
  if (!colour) return patch;
  std::string out;
  std::istringstream lines(patch);
  std::string line;
  while (std::getline(lines, line)) {
    const char* code = nullptr;
    if (line.rfind("diff --git", 0) == 0 || line.rfind("index ", 0) == 0 || line.rfind("--- ", 0) == 0 ||
        line.rfind("+++ ", 0) == 0 || line.rfind("similarity ", 0) == 0 || line.rfind("rename ", 0) == 0 ||
        line.rfind("new file", 0) == 0 || line.rfind("deleted file", 0) == 0)
      code = bold;
    else if (line.rfind("@@", 0) == 0) code = cyan;
    else if (!line.empty() && line[0] == '+') code = green;
    else if (!line.empty() && line[0] == '-') code = red;
    out += code ? paint(true, code, line) : line;
    out += '\n';
  }
  return out;
}

std::string render_stat(const json::object& diff, bool colour) {
  std::string out;
  std::size_t width = 0;
  for (const auto& f : diff.at("files").as_array()) width = std::max(width, f.at("path").as_string().size());
  for (const auto& fv : diff.at("files").as_array()) {
    const auto& f = fv.as_object();
    std::string name = text_of(f.at("path"));
    if (!f.at("oldPath").is_null()) name = text_of(f.at("oldPath")) + " => " + name;
    std::string line = " " + name;
    if (name.size() < width) line += std::string(width - name.size(), ' ');
    line += " | ";
    if (const auto* omitted = f.if_contains("omittedReason"); omitted && omitted->is_string()) {
      line += "content omitted (" + text_of(*omitted) + ")";  // confined like `files --show`
    } else if (f.at("binary").as_bool() || f.at("additions").is_null()) {
      line += "binary";
    } else {
      line += paint(colour, green, "+" + std::to_string(f.at("additions").to_number<std::int64_t>())) + " " +
              paint(colour, red, "-" + std::to_string(f.at("deletions").to_number<std::int64_t>()));
    }
    line += "  (" + text_of(f.at("status")) + ")";
    out += line + "\n";
  }
  const auto& stats = diff.at("stats").as_object();
  const auto files = stats.at("files").to_number<std::int64_t>();
  out += " " + std::to_string(files) + (files == 1 ? " file" : " files") + " changed, " +
         paint(colour, green, std::to_string(stats.at("additions").to_number<std::int64_t>()) + " insertions(+)") + ", " +
         paint(colour, red, std::to_string(stats.at("deletions").to_number<std::int64_t>()) + " deletions(-)") + "\n";
  return out;
}

}  // namespace

bool use_colour(CommandContext& ctx, const std::string& when) {
  if (when == "always") return true;
  if (when == "never") return false;
  if (ctx.env().has("NO_COLOR") || ctx.env().get("TERM") == "dumb") return false;
  return &ctx.out() == &std::cout && ::isatty(STDOUT_FILENO) == 1;
}

int files_command(CommandContext& ctx, const FilesOptions& o) {
  if (!o.search.empty()) {
    json::object params{{"runId", o.run_id}, {"q", o.search}};
    if (o.limit > 0) params["limit"] = o.limit;
    auto result = ctx.call("workspace.search", std::move(params));
    if (!result) return ctx.report(result.error());
    return ctx.print(*result, [](const json::value& v) {
      std::string out;
      for (const auto& e : v.at("results").as_array())
        out += text_of(e.at("path")) + (e.at("type") == "directory" ? "/" : "") + "\n";
      if (v.at("truncated").as_bool())
        out += "(more matches not shown: " + text_of(v.at("truncatedReason")) + ")\n";
      return out;
    });
  }
  if (o.show) {
    auto result = ctx.call("workspace.file", json::object{{"runId", o.run_id}, {"path", o.path}});
    if (!result) return ctx.report(result.error());
    return ctx.print(*result, [](const json::value& v) { return text_of(v.at("content")); });
  }
  auto result = ctx.call("workspace.files", json::object{{"runId", o.run_id}, {"path", o.path}});
  if (!result) return ctx.report(result.error());
  const bool colour = use_colour(ctx, o.colour);
  return ctx.print(*result, [colour](const json::value& v) {
    std::string out;
    for (const auto& ev : v.at("entries").as_array()) {
      const auto& e = ev.as_object();
      const std::string type = text_of(e.at("type"));
      std::string size = e.at("size").is_null() ? "-" : human_size(e.at("size").to_number<std::int64_t>());
      if (size.size() < 7) size = std::string(7 - size.size(), ' ') + size;
      std::string name = text_of(e.at("name"));
      if (type == "directory") name = paint(colour, blue, name + "/");
      else if (type == "symlink") name = paint(colour, cyan, name + "@");
      out += size + "  " + name + "\n";
    }
    if (v.at("truncated").as_bool()) out += "(listing truncated)\n";
    return out;
  });
}

int diff_command(CommandContext& ctx, const DiffOptions& o) {
  json::object params{{"runId", o.run_id}, {"mode", o.mode}};
  if (o.mode == "branch") {
    params["base"] = o.base;
    params["head"] = o.head.empty() ? "HEAD" : o.head;
    params["comparison"] = o.direct ? "direct" : "merge-base";
  } else if (!o.base.empty() || !o.head.empty() || o.direct) {
    return ctx.usage_error("--base, --head and --direct go with --mode branch");
  }
  if (o.stat) params["stat"] = true;
  auto result = ctx.call("workspace.diff", std::move(params));
  if (!result) return ctx.report(result.error());
  const bool colour = use_colour(ctx, o.colour);
  const bool stat = o.stat;
  int code = ctx.print(*result, [colour, stat](const json::value& v) {
    const auto& diff = v.as_object();
    if (stat) return render_stat(diff, colour);
    return render_patch(text_of(diff.at("patch")), colour);
  });
  if (!ctx.json() && result->at("truncated").as_bool())
    ctx.err() << "agentry: the diff is truncated (" << text_of(result->at("truncatedReason"))
              << "); every file is listed with --stat as far as it got\n";
  return code;
}

}  // namespace agentry::cli
