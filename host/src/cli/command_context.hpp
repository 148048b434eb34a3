#pragma once
// What every CLI command runs with: the global options, the environment snapshot, the
// output streams and the client, opened on first use in the mode the options choose
// (--connect / AGENTRY_CONNECT: connected, else embedded).

#include "cli/client.hpp"
#include "cli/environment.hpp"
#include "core/settings.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

namespace agentry::cli {

struct GlobalOptions {
  std::string connect;  // --connect; empty: AGENTRY_CONNECT, else embedded
  bool json = false;    // --json: print the operation's JSON result as is
  core::Settings settings{};  // parsed once from the environment, before any command runs
};

using ClientFactory =
    std::function<core::Result<std::unique_ptr<Client>>(const GlobalOptions&, const Environment&)>;

/// The daemon URL the options select, or "" for embedded mode.
std::string connect_url(const GlobalOptions& global, const Environment& env);
/// The real factory: ConnectedClient for a URL (token from AGENTRY_DAEMON_TOKEN),
/// else EmbeddedClient on $AGENTRY_HOME.
core::Result<std::unique_ptr<Client>> open_client(const GlobalOptions& global, const Environment& env);

class CommandContext {
 public:
  CommandContext(GlobalOptions global, Environment env, std::ostream& out, std::ostream& err, ClientFactory factory);
  ~CommandContext();

  const GlobalOptions& global() const { return global_; }
  const Environment& env() const { return env_; }
  bool json() const { return global_.json; }
  bool connected() const { return !connect_url(global_, env_).empty(); }
  std::ostream& out() { return out_; }
  std::ostream& err() { return err_; }

  /// The client, opened on first use.
  core::Result<Client*> client();
  /// Opens the client if needed and calls `method`.
  core::Result<boost::json::value> call(const std::string& method, boost::json::object params);

  /// Prints "agentry: <message>" and the error's details to stderr; returns its exit code.
  int report(const core::Error& error);
  /// Prints "agentry: <message>" to stderr; returns 3 (bad arguments).
  int usage_error(const std::string& message);
  /// Prints `result` as one line of JSON (--json) or as `human` renders it; returns 0.
  int print(const boost::json::value& result, const std::function<std::string(const boost::json::value&)>& human);

 private:
  GlobalOptions global_;
  Environment env_;
  std::ostream& out_;
  std::ostream& err_;
  ClientFactory factory_;
  std::unique_ptr<Client> client_;
};

}  // namespace agentry::cli
