#pragma once
// A write job for one run whose subscribers hear of the change once it committed: what
// every engine service's mutation is. Needs the whole store interface, which nothing
// above the engine may see, so no public header includes it.

#include "core/result.hpp"
#include "events/event_bus.hpp"
#include "store/store.hpp"

#include <string>
#include <utility>

namespace agentry::engine::detail {

template <class T, class F>
core::Result<T> mutate_run(store::Store& db, events::EventBus& bus, const std::string& run_id, F&& job) {
  auto result = db.write<T>(std::forward<F>(job));
  if (result) bus.run_changed(run_id);
  return result;
}

}  // namespace agentry::engine::detail

