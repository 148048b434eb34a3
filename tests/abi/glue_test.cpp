// The header-only C++ glue (agentry/plugin/cpp/), used in-process: exception mapping,
// copies of borrowed parameters, seq stamping, JSON string escaping.
#include "agentry/plugin/cpp/backend.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "abi/test_host.hpp"

namespace agentry::abi_test {
namespace {
using plugin::Backend;

class ThrowingBackend final : public Backend {
 public:
  using Backend::Backend;
  agentry_status_t start(const plugin::StartParams& p) override {
    last = p;
    if (p.session_id == "throw") throw std::runtime_error("boom");
    return AGENTRY_OK;
  }
  agentry_status_t interrupt(std::string_view) override { throw 42; }
  static inline plugin::StartParams last;
};

constexpr const char* kNoFeatures[] = {nullptr};
constexpr agentry_backend_descriptor_t kDesc{AGENTRY_PLUGIN_ABI_VERSION_INIT, "throwing", "Throwing", "", "1.0.0", "",
                                             kNoFeatures};
constexpr plugin::BackendType kTypes[] = {plugin::backend_type<ThrowingBackend>(kDesc)};
using Lib = plugin::Library<kTypes>;

TEST(CppGlue, ExceptionsBecomeInternalAndParamsAreCopied) {
  ASSERT_TRUE(Lib::entry.init("/in-process"));
  const auto* f = static_cast<const agentry_backend_factory_t*>(Lib::entry.get_factory(AGENTRY_BACKEND_FACTORY_ID));
  TestHost host;
  const agentry_backend_t* b = f->create_backend(f, host.table(), "throwing");
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->init(b), AGENTRY_OK);
  EXPECT_EQ(b->send_input(b, nullptr), AGENTRY_ERR_INVALID_ARGUMENT);

  const char* env[] = {"A=1", "B=2", nullptr};
  agentry_start_params_t p{};
  p.struct_size = sizeof p;
  p.session_id = "s";
  p.input_json = R"({"prompt":"hi"}trailing)";
  p.input_size = 15;  // sized strings are cut at their size
  p.resume_token = "tok";
  p.resume_token_size = 3;
  p.env = env;
  EXPECT_EQ(b->start(b, &p), AGENTRY_OK);
  EXPECT_EQ(ThrowingBackend::last.input_json, R"({"prompt":"hi"})");
  EXPECT_EQ(ThrowingBackend::last.resume_token, "tok");
  EXPECT_EQ(ThrowingBackend::last.env, (std::vector<std::string>{"A=1", "B=2"}));
  EXPECT_TRUE(ThrowingBackend::last.workspace_path.empty());  // NULL reads as ""

  p.session_id = "throw";
  EXPECT_EQ(b->start(b, &p), AGENTRY_ERR_INTERNAL);
  EXPECT_EQ(b->interrupt(b, "x"), AGENTRY_ERR_INTERNAL);
  p.struct_size = 8;  // older than v1.0: refused, not read
  EXPECT_EQ(b->start(b, &p), AGENTRY_ERR_INVALID_ARGUMENT);
  const auto logs = host.logs();
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_NE(logs[0].find("start: boom"), std::string::npos) << logs[0];
  b->destroy(b);
  Lib::entry.deinit();
}

TEST(CppGlue, HostStampsIncreasingSeqAndMonotonicTime) {
  TestHost raw;
  raw.set_busy_every(2);
  plugin::Host host(raw.table());
  EXPECT_EQ(host.emit(AGENTRY_EVENT_NOTICE, 0, R"({"message":"a"})"), AGENTRY_OK);
  EXPECT_EQ(host.emit(AGENTRY_EVENT_NOTICE, 0, R"({"message":"b"})"), AGENTRY_ERR_BUSY);
  EXPECT_EQ(host.emit_with_retry(AGENTRY_EVENT_NOTICE, 0, R"({"message":"c"})"), AGENTRY_OK);
  EXPECT_EQ(host.emit(AGENTRY_EVENT_NOTICE, 0, "not json"), AGENTRY_ERR_INVALID_ARGUMENT);
  const auto events = raw.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].seq, 1u);
  EXPECT_GT(events[1].seq, events[0].seq);  // a refused event may leave a gap, never a repeat
  EXPECT_GE(events[1].time_ns, events[0].time_ns);
  EXPECT_FALSE(host.is_control_context().has_value());  // the test host has no thread-check
}

TEST(CppGlue, JsonStringEscapesAndRepairsUtf8) {
  using plugin::json_string;
  EXPECT_EQ(json_string("plain"), "\"plain\"");
  EXPECT_EQ(json_string("q\"b\\n\n\t\x01"), R"("q\"b\\n\n\t\u0001")");
  EXPECT_EQ(json_string("h\xC3\xA9llo \xF0\x9F\x98\x80"), "\"h\xC3\xA9llo \xF0\x9F\x98\x80\"");  // valid: kept
  EXPECT_EQ(json_string("bad\xFF!"), "\"bad\xEF\xBF\xBD!\"");
  EXPECT_EQ(json_string("cut\xE2\x82"), "\"cut\xEF\xBF\xBD\xEF\xBF\xBD\"");   // truncated sequence
  EXPECT_EQ(json_string("\xED\xA0\x80"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // a surrogate
  EXPECT_EQ(plugin::sanitize_utf8("ok\xC0\xAF"), "ok\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
}

}  // namespace
}  // namespace agentry::abi_test
