#include "plugin_host/backend_instance.hpp"

#include <boost/json/parse.hpp>

namespace agentry::plugin_host {

const boost::json::object& BackendEvent::payload() const {
  // The ABI boundary checked that the text is an object (or empty).
  if (!parsed) parsed = payload_json.empty() ? boost::json::object() : boost::json::parse(payload_json).as_object();
  return *parsed;
}

boost::json::object BackendEvent::take_payload() {
  payload();
  return std::move(*parsed);
}

}  // namespace agentry::plugin_host
