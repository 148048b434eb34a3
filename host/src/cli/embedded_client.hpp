#pragma once
// The in-process client: the stack `agentry serve` runs (LocalStack), opened by the CLI
// itself on the same database. Operations run with actor "cli" and var origin cli. This
// process is the controller of the runs it starts ("cli-<pid>-<suffix>"), so they live
// only as long as it does: `run` follows them to the end.

#include "cli/client.hpp"
#include "cli/local_stack.hpp"
#include "cli/paths.hpp"
#include "core/settings.hpp"

#include <map>
#include <memory>
#include <mutex>

namespace agentry::cli {

class StreamPump;

class EmbeddedClient final : public Client {
 public:
  /// How often a subscription re-reads the store without being woken: changes made by
  /// other processes reach it this way.
  static constexpr std::chrono::milliseconds poll_interval{500};

  static core::Result<std::unique_ptr<EmbeddedClient>> open(const Paths& paths, const core::Settings& settings);
  ~EmbeddedClient() override;

  core::Result<boost::json::value> call(const std::string& method, boost::json::object params) override;
  core::Result<std::string> subscribe(const SubscribeRequest& request, StreamHandlers handlers) override;
  void unsubscribe(const std::string& subscription_id) override;
  core::Result<boost::json::value> upload_attachment(const std::string& run_id, const std::filesystem::path& file,
                                                     const std::string& name,
                                                     const TransferProgress& progress) override;
  core::Result<boost::json::value> download_attachment(const std::string& run_id, const std::string& attachment_id,
                                                       const std::filesystem::path& destination,
                                                       const TransferProgress& progress) override;
  bool drives_runs() const override { return true; }
  std::string describe() const override;

 private:
  explicit EmbeddedClient(std::unique_ptr<LocalStack> stack);

  std::unique_ptr<LocalStack> stack_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<StreamPump>> pumps_;
  int next_subscription_ = 1;
};

}  // namespace agentry::cli
