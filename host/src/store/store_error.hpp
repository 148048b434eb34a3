#pragma once
// How the store reports a failure: implementations throw StoreError (with their own
// code), and guard() turns it, or any other exception, into a core::Result at the
// store's edge, so callers above see one error shape whatever the engine underneath.

#include "core/result.hpp"

#include <stdexcept>
#include <string>

namespace agentry::store {

class StoreError : public std::runtime_error {
 public:
  StoreError(std::string message, int code) : std::runtime_error(std::move(message)), code_(code) {}
  /// The implementation's own error code (an SQLite result code; 0 from PostgreSQL,
  /// whose SQLSTATE is text: pg_store::PgError::sqlstate()).
  int code() const { return code_; }

 private:
  int code_;
};

template <class F>
auto guard(F&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const StoreError& e) {
    return core::fail(core::ErrorCode::internal, std::string("database error: ") + e.what());
  } catch (const std::exception& e) {
    return core::fail(core::ErrorCode::internal, std::string("unexpected error in the store: ") + e.what());
  }
}

}  // namespace agentry::store
