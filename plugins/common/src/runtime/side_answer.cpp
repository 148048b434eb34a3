#include "agentry/plugin_common/runtime/side_answer.hpp"

#include <boost/json.hpp>

#include "agentry/plugin/cpp/ask.hpp"
#include "agentry/plugin/events.h"
#include "agentry/plugin_common/json_fields.hpp"

namespace agentry::plugin_common::runtime {

namespace json = boost::json;

void SideAnswer::take(const Event& event) {
  if (event.type != AGENTRY_EVENT_MESSAGE_COMPLETED) return;
  if (!text_.empty()) text_ += "\n\n";
  text_ += text_field(&event.payload, "text");
}

void SideAnswer::send(agentry::plugin::Host& host, const std::string& outcome, const std::string& message) noexcept {
  if (!ask_id_) return;  // answered already, or the host gave up
  try {
    const json::object answer =
        outcome == "success" && !text_.empty()
            ? json::object{{"answer", text_}}
            : json::object{{"error", message.empty() ? std::string("the agent gave no answer") : message}};
    if (plugin::answer_ask(host, *ask_id_, json::serialize(answer)) != AGENTRY_OK)
      host.log(AGENTRY_LOG_WARNING, backend_ + ": the host refused the answer to " + *ask_id_);
  } catch (...) {
    host.log(AGENTRY_LOG_ERROR, backend_ + ": an answer was lost (out of memory)");
  }
  ask_id_.reset();
}

}  // namespace agentry::plugin_common::runtime
