#pragma once
// Engine::mutate, kept out of engine.hpp: it needs the whole store interface, which
// nothing above the engine may see.

#include "engine/engine.hpp"
#include "store/store.hpp"

namespace agentry::engine {

template <class T, class F>
core::Result<T> Engine::mutate(const std::string& run_id, F&& job) {
  auto result = db_.write<T>(std::forward<F>(job));
  if (result) bus_.run_changed(run_id);
  return result;
}

}  // namespace agentry::engine
