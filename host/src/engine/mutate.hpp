#pragma once
// Engine::mutate (detail::mutate_run on the engine's store and bus), kept out of
// engine.hpp: it needs the whole store interface, which nothing above the engine may see.

#include "engine/engine.hpp"
#include "engine/mutate_run.hpp"

namespace agentry::engine {

template <class T, class F>
core::Result<T> Engine::mutate(const std::string& run_id, F&& job) {
  return detail::mutate_run<T>(db_, bus_, run_id, std::forward<F>(job));
}

}  // namespace agentry::engine
