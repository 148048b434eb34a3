#pragma once
// A run's frozen inputs as JSON, allocated in `sp`: the store serializes them once per
// written run and gives a monotonic buffer, so their few hundred parts cost no
// allocation each (store/run_codec.cpp). to_json(FrozenInputs) in core/run.hpp is this
// with the default storage.

#include "core/run.hpp"

#include <boost/json/storage_ptr.hpp>
#include <boost/json/value.hpp>

namespace agentry::core {

boost::json::value to_json(const FrozenInputs& inputs, boost::json::storage_ptr sp);

}  // namespace agentry::core
