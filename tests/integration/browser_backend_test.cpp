// The browser backend through the real daemon: script-mode and model-mode runs against a
// loopback site (the model is the real mock model, tests/e2e/mock_model).
#include "daemon_fixture.hpp"
#include "support/browser_site.hpp"
#include "support/mock_model.hpp"
#include "support/subprocess.hpp"

#include <filesystem>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;

class BrowserBackendTest : public DaemonTest {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/chromium")) GTEST_SKIP() << "/usr/bin/chromium is not installed (apt-get install chromium)";
    DaemonTest::SetUp();
  }
};

TEST_F(BrowserBackendTest, AScriptRunFillsTheFormAndReportsTheResultPage) {
  test::BrowserSite site;
  write_agent("surfer", "browser",
              "{steps: [{action: navigate, url: '" + site.url("/") +
                  "'}, {action: type, selector: '#q', text: 'daemon words'}, {action: click, selector: '#go'}, "
                  "{action: read}, {action: screenshot, name: shot}, {action: finish, summary: 'form sent'}]}");
  auto run = start_agent_run("surfer");
  EXPECT_EQ(wait_until_settled(run, std::chrono::seconds(90)), "success");
  bool saw_text = false, saw_summary = false;
  int tools = 0;
  for (const auto& e : timeline(run)) {
    const std::string kind(e.at("kind").as_string());
    if (kind == "tool.completed") ++tools;
    if (kind != "message.completed") continue;
    const std::string text(e.at("payload").at("text").as_string());
    saw_text = saw_text || text.find("You sent: daemon words") != std::string::npos;
    saw_summary = saw_summary || text == "form sent";
  }
  EXPECT_TRUE(saw_text);
  EXPECT_TRUE(saw_summary);
  EXPECT_EQ(tools, 5);
  EXPECT_TRUE(fs::exists(work_ / "browser-artifacts" / "shot.png"));
  EXPECT_TRUE(fs::is_directory(home_ / "browser-profiles")) << "the profile lives under the daemon's home";
}

TEST_F(BrowserBackendTest, AModelRunFillsTheFormAndEndsWithTheResultInItsFinalMessage) {
  test::BrowserSite site;
  test::MockModel mock(dir_.path() / "model-requests.jsonl");
  write_agent("pilot", "browser",
              "{model: {api: openai-responses, baseUrl: '" + mock.openai_base_url() + "', model: mock-model}}");
  const auto directive = [](const std::string& tool, const json::object& args) {
    return "TOOL: " + tool + " " + json::serialize(args) + "\n";
  };
  const std::string message = "Send 'pilot words' through the form.\n" + directive("navigate", {{"url", site.url("/")}}) +
                              directive("type", {{"selector", "#q"}, {"text", "pilot words"}}) +
                              directive("click", {{"selector", "#go"}}) + directive("read", {}) +
                              directive("finish", {{"summary", "Done: the result page says You sent: pilot words"}});
  auto run = start_agent_run("pilot", message);
  EXPECT_EQ(wait_until_settled(run, std::chrono::seconds(90)), "success");
  std::string final_message, read_output;
  int started = 0, completed = 0, usage = 0;
  for (const auto& e : timeline(run)) {
    const std::string kind(e.at("kind").as_string());
    started += kind == "tool.started";
    completed += kind == "tool.completed";
    usage += kind == "usage";
    if (kind == "message.completed") final_message = std::string(e.at("payload").at("text").as_string());
    if (kind == "tool.completed" && e.at("payload").at("output").as_string().starts_with("Page: Result"))
      read_output = std::string(e.at("payload").at("output").as_string());
  }
  EXPECT_EQ(started, 4);
  EXPECT_EQ(completed, 4);
  EXPECT_EQ(usage, 5);
  EXPECT_NE(read_output.find("You sent: pilot words"), std::string::npos) << read_output;
  EXPECT_EQ(final_message, "Done: the result page says You sent: pilot words");
  // The model saw the page the read returned.
  const auto bodies = mock.request_bodies("/responses");
  ASSERT_EQ(bodies.size(), 5u);
  EXPECT_NE(json::serialize(bodies.back()).find("You sent: pilot words"), std::string::npos);

  // Asked afterwards: one side model call that sees the run's state, and no turn.
  const auto events_before = timeline(run).size();
  auto asked = client().post_json("/api/runs/" + run + "/ask", json::object{{"question", "SAY: The form went through."}});
  ASSERT_EQ(asked.status, 200) << asked.body;
  EXPECT_EQ(asked.json().at("answer"), "The form went through.");
  EXPECT_EQ(asked.json().at("backend"), "browser");
  const auto after = mock.request_bodies("/responses");
  ASSERT_EQ(after.size(), 6u);
  const std::string side_call = json::serialize(after.back());
  EXPECT_NE(side_call.find("Final message: Done: the result page says You sent: pilot words"), std::string::npos)
      << side_call;
  EXPECT_EQ(side_call.find("\"tools\""), std::string::npos) << "the side call offers no tools";
  EXPECT_EQ(timeline(run).size(), events_before);
  EXPECT_EQ(run_status(run), "success");
}

TEST_F(BrowserBackendTest, AResumedRunKeepsItsCookies) {
  test::BrowserSite site;
  write_agent("keeper", "browser", "{actionTimeoutMs: 15000}");
  const auto step = [](const json::object& s) { return "@browser " + json::serialize(s) + "\n"; };
  auto run = start_agent_run("keeper", step({{"action", "navigate"}, {"url", site.url("/set-cookie")}}) +
                                           step({{"action", "finish"}, {"summary", "cookie set"}}));
  ASSERT_EQ(wait_until_settled(run, std::chrono::seconds(90)), "success");
  auto resumed = client().post_json("/api/runs/" + run + "/resume",
                                    json::object{{"message", step({{"action", "navigate"}, {"url", site.url("/show-cookie")}}) +
                                                                 step({{"action", "read"}})}});
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  ASSERT_EQ(wait_until_settled(run, std::chrono::seconds(90)), "success");
  bool kept = false;
  for (const auto& e : timeline(run))
    if (e.at("kind") == "message.completed")
      kept = kept || std::string_view(e.at("payload").at("text").as_string()).find("cookie: [flavour=ginger]") !=
                         std::string_view::npos;
  EXPECT_TRUE(kept) << "the second session's browser did not send the first session's cookie";
}


TEST_F(BrowserBackendTest, AbortLeavesNoChromium) {
  test::BrowserSite site;
  write_agent("waiter", "browser",
              "{steps: [{action: navigate, url: '" + site.url("/") +
                  "'}, {action: waitFor, text: 'never there', timeoutMs: 60000}]}");
  auto run = start_agent_run("waiter");
  const std::string profiles = (home_ / "browser-profiles").string();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool waiting = false;
  while (!waiting && std::chrono::steady_clock::now() < deadline) {
    for (const auto& e : timeline(run))
      if (e.at("kind") == "tool.started" && e.at("payload").at("input").at("action") == "waitFor") waiting = true;
    if (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(waiting);
  EXPECT_GT(test::live_processes_naming(profiles), 0);
  auto aborted = client().post_json("/api/runs/" + run + "/abort", json::object{{"reason", "enough"}});
  ASSERT_EQ(aborted.status, 200) << aborted.body;
  EXPECT_EQ(wait_until_settled(run), "aborted");
  EXPECT_EQ(test::live_processes_naming(profiles), 0);
}

TEST_F(BrowserBackendTest, AMissingChromiumEndsTheRunWithTheReason) {
  write_agent("nochrome", "browser", "{chromium: /nonexistent, steps: [{action: read}]}");
  auto run = start_agent_run("nochrome");
  EXPECT_EQ(wait_until_settled(run), "error");
  bool saw = false;
  for (const auto& e : timeline(run)) {
    const std::string text = json::serialize(e.at("payload"));
    saw = saw || (text.find("/nonexistent") != std::string::npos && text.find("apt-get install chromium") != std::string::npos);
  }
  EXPECT_TRUE(saw);
}

// The example config's browser-demo agent: what a newcomer opens in the dashboard's
// browser tab after `make run`. It runs offline, sends frames, and leaves its screenshot.
TEST_F(BrowserBackendTest, TheExampleConfigsBrowserDemoFinishesWithAScreenshot) {
  ASSERT_TRUE(start_daemon_on_example_config()) << "no CMakeCache.txt beside the daemon's bin/";
  auto run = start_agent_run("browser-demo");
  auto sse = client().sse("/api/runs/" + run + "/events/browser");
  bool framed = false;
  for (int i = 0; i < 50 && !framed; ++i) {
    auto event = sse.next(std::chrono::seconds(30));
    if (!event) break;
    framed = json::parse(event->data).at("type") == "browser_frame";
  }
  EXPECT_TRUE(framed) << "the demo's live view sent no frame";
  ASSERT_EQ(wait_until_settled(run, std::chrono::seconds(90)), "success") << json::serialize(get_run(run));
  EXPECT_TRUE(fs::exists(work_ / "browser-artifacts" / "thanks.png"));
  bool thanked = false;
  for (const auto& e : timeline(run))
    if (e.at("kind") == "message.completed")
      thanked = thanked || std::string_view(e.at("payload").at("text").as_string()).find("Thanks, agentry") !=
                               std::string_view::npos;
  EXPECT_TRUE(thanked);
}

}  // namespace
}  // namespace agentry::integration
