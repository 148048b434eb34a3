#pragma once
// Where agentry keeps state and reads definitions, from the settings (core/settings.hpp):
//   AGENTRY_HOME        state (database, blobs); default $XDG_STATE_HOME/agentry,
//                       else ~/.local/state/agentry
//   AGENTRY_CONFIG_DIR  definitions; default $XDG_CONFIG_HOME/agentry, else ~/.config/agentry
//   AGENTRY_WEB_DIR     dashboard files; default <binary dir>/../share/agentry/web

#include "core/result.hpp"
#include "core/settings.hpp"

#include <filesystem>

namespace agentry::cli {

struct Paths {
  std::filesystem::path home;
  std::filesystem::path config_dir;
  std::filesystem::path blob_dir;  // attachment contents: AGENTRY_BLOB_DIR, else <home>/blobs
  std::filesystem::path web_dir;
  std::filesystem::path binary;  // this agentry, absolute (/proc/self/exe); empty when unknown
  std::filesystem::path database() const { return home / "agentry.db"; }
};

/// VALIDATION_FAILED when a directory has no value and no default (HOME unset too).
core::Result<Paths> resolve_paths(const core::Settings& settings);

}  // namespace agentry::cli
