#include "browser_fixture.hpp"

namespace agentry::test {
namespace json = boost::json;

const agentry_backend_factory_t* browser_factory() {
  static const agentry_backend_factory_t* f = load_backend_factory("AGENTRY_BROWSER_PLUGIN");
  return f;
}

Instance::Instance() {
  backend_ = browser_factory()->create_backend(browser_factory(), host_.table(), "browser");
  EXPECT_NE(backend_, nullptr);
  EXPECT_EQ(backend_->init(backend_), AGENTRY_OK);
}

Instance::~Instance() {
  destroy();
  EXPECT_TRUE(host_.violations().empty()) << host_.violations().front();
}

void Instance::destroy() {
  if (backend_) backend_->destroy(backend_);
  backend_ = nullptr;
}

agentry_status_t Instance::start(json::object browser, const std::string& profile, bool resume,
                                 std::vector<std::string> env, const std::string& prompt) {
  browser["profileDir"] = profile;
  const std::string config = json::serialize(json::object{{"backendConfig", {{"browser", browser}}}});
  const std::string input = json::serialize(json::object{{"prompt", prompt}});
  const std::string ws = workspace_.path().string();
  std::vector<const char*> e;
  env.push_back("AGENTRY_RUN_ID=run-1");
  for (auto& s : env) e.push_back(s.c_str());
  e.push_back(nullptr);
  agentry_start_params_t p{};
  p.struct_size = sizeof p;
  p.run_id = "run-1";
  p.session_id = resume ? "run-1/s1" : "run-1/s0";
  p.attempt_number = ++attempts_;
  p.workspace_path = ws.c_str();
  p.input_json = input.c_str();
  p.input_size = input.size();
  p.config_json = config.c_str();
  p.config_size = config.size();
  const std::string token = "browser-run-1";
  if (resume) p.resume_token = token.c_str(), p.resume_token_size = token.size();
  p.env = e.data();
  host_.begin_attempt();
  finished_before_ = host_.finished_count();
  return backend_->start(backend_, &p);
}

json::object Instance::wait_finished(std::chrono::seconds limit) {
  const bool done = host_.wait_until(
      [&](const std::vector<RecordedEvent>& events) {
        int n = 0;
        for (const auto& ev : events) n += ev.type == AGENTRY_EVENT_FINISHED;
        return n > finished_before_;
      },
      limit);
  EXPECT_TRUE(done);
  auto events = host_.events();
  for (auto it = events.rbegin(); it != events.rend(); ++it)
    if (it->type == AGENTRY_EVENT_FINISHED) return it->payload;
  return {};
}

std::string Instance::messages() const {
  std::string out;
  for (const auto& ev : host_.events())
    if (ev.type == AGENTRY_EVENT_MESSAGE_COMPLETED) out += std::string(ev.payload.at("text").as_string()) + "\n";
  return out;
}

}  // namespace agentry::test
