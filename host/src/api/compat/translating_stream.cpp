#include "api/compat/translating_stream.hpp"

#include "events/frame.hpp"

#include <boost/json/parse.hpp>

namespace agentry::api::compat {
namespace json = boost::json;
namespace {

class TranslatingStream final : public EventStream {
 public:
  TranslatingStream(std::shared_ptr<EventStream> native, FrameRewrite rewrite)
      : native_(std::move(native)), rewrite_(std::move(rewrite)) {}
  const char* channel() const override { return native_->channel(); }
  void start(std::function<void()> wake) override { native_->start(std::move(wake)); }
  StreamBatch poll(std::size_t max_frames, bool look_in_store) override {
    StreamBatch batch = native_->poll(max_frames, look_in_store);
    std::vector<events::Frame> out;
    out.reserve(batch.frames.size());
    for (const auto& frame : batch.frames) {
      boost::system::error_code ec;
      auto value = json::parse(frame->json(), ec);
      if (ec || !value.is_object()) continue;
      if (auto rewritten = rewrite_(value.as_object(), frame->cursor))
        out.push_back(events::make_frame(*rewritten, frame->cursor));
    }
    batch.frames = std::move(out);
    return batch;
  }

 private:
  std::shared_ptr<EventStream> native_;
  FrameRewrite rewrite_;
};

}  // namespace

std::shared_ptr<EventStream> translating_stream(std::shared_ptr<EventStream> native, FrameRewrite rewrite) {
  return std::make_shared<TranslatingStream>(std::move(native), std::move(rewrite));
}

}  // namespace agentry::api::compat
