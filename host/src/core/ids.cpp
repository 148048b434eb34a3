#include "core/ids.hpp"

#include "core/clock.hpp"

#include <algorithm>
#include <random>

namespace agentry::core {
namespace {

constexpr std::string_view alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";

std::string random_chars(std::size_t n) {
  thread_local std::mt19937_64 rng{[] {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd()};
    return std::mt19937_64{seq};
  }()};
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::string out(n, '0');
  for (auto& c : out) c = alphabet[pick(rng)];
  return out;
}

bool is_id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

std::string instance_id(std::string_view kind, long pid, std::optional<std::uint64_t> start_time) {
  std::string id(kind);
  id += '-' + std::to_string(pid) + '-' + random_chars(6);
  if (start_time) id += '-' + std::to_string(*start_time);
  return id;
}

}  // namespace

std::string new_run_id() { return new_run_id_at(now_ms()); }

std::string new_run_id_at(std::int64_t unix_ms) {
  std::int64_t max_seconds = 1;
  for (std::size_t i = 0; i < run_id_time_length; ++i) max_seconds *= static_cast<std::int64_t>(alphabet.size());
  const std::int64_t seconds = std::clamp<std::int64_t>(unix_ms / 1000 - run_id_epoch_unix_seconds, 0, max_seconds - 1);
  std::string id(run_id_time_length, '0');
  auto rest = static_cast<std::uint64_t>(seconds);
  for (auto c = id.rbegin(); c != id.rend(); ++c, rest /= alphabet.size()) *c = alphabet[rest % alphabet.size()];
  return id + random_chars(run_id_random_length);
}

std::string new_prefixed_id(std::string_view prefix) {
  std::string id(prefix);
  id += '_';
  id += random_chars(12);
  return id;
}

std::string new_daemon_instance_id(long pid, std::optional<std::uint64_t> start_time) {
  return instance_id("daemon", pid, start_time);
}

std::string new_cli_instance_id(long pid, std::optional<std::uint64_t> start_time) {
  return instance_id("cli", pid, start_time);
}

bool is_valid_run_id(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id)
    if (!is_id_char(c)) return false;
  return true;
}

bool is_valid_key(std::string_view key) {
  if (key.empty() || key.size() > 128 || key.find("..") != std::string_view::npos) return false;
  if (key.front() == '/' || key.back() == '/') return false;
  for (char c : key)
    if (!is_id_char(c) && c != '.' && c != ':' && c != '/') return false;
  return true;
}

}  // namespace agentry::core
