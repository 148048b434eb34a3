#include "agentry/plugin_common/input_fields.hpp"

#include <boost/json/parse.hpp>

#include "agentry/plugin_common/json_fields.hpp"

namespace agentry::plugin_common {

namespace json = boost::json;

InputFields read_input(const agentry::plugin::Input& input, bool accept_approvals) {
  InputFields out;
  if (input.kind != AGENTRY_INPUT_MESSAGE && !(accept_approvals && input.kind == AGENTRY_INPUT_APPROVAL)) {
    out.status = AGENTRY_ERR_UNSUPPORTED;
    return out;
  }
  boost::system::error_code ec;
  const json::value payload = json::parse(input.payload_json, ec);
  const json::object* o = ec ? nullptr : payload.if_object();
  out.status = AGENTRY_ERR_INVALID_ARGUMENT;
  if (o == nullptr) return out;
  if (input.kind == AGENTRY_INPUT_MESSAGE) {
    out.text = text_field(o, "text");
    if (!out.text.empty()) out.status = AGENTRY_OK;
    return out;
  }
  out.approval_id = text_field(o, "approvalId");
  const std::string decision = text_field(o, "decision");
  if (out.approval_id.empty() || (decision != "approve" && decision != "deny")) return out;
  out.approve = decision == "approve";
  out.status = AGENTRY_OK;
  return out;
}

}  // namespace agentry::plugin_common
