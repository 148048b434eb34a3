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
  enum class Kind {
    failure,      ///< this statement failed; the transaction can go on from its savepoint
    retry,        ///< another writer won a race (serialization failure, deadlock): the
                  ///< whole transaction must be run again, and the write queue does so
    unavailable,  ///< the database cannot be reached; the writer reconnects before the next write
  };

  StoreError(std::string message, int code, Kind kind = Kind::failure)
      : std::runtime_error(std::move(message)), code_(code), kind_(kind) {}
  /// The implementation's own error code (an SQLite result code; 0 from PostgreSQL,
  /// whose SQLSTATE is text: pg_store::PgError::sqlstate()).
  int code() const { return code_; }
  Kind kind() const { return kind_; }

 private:
  int code_;
  Kind kind_;
};

inline core::Error store_failure(const StoreError& e) {
  if (e.kind() == StoreError::Kind::unavailable)
    return core::make_error(core::ErrorCode::unavailable, std::string("the database is unavailable: ") + e.what());
  return core::make_error(core::ErrorCode::internal, std::string("database error: ") + e.what());
}

template <class F>
auto guard(F&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const StoreError& e) {
    return core::Failure{store_failure(e)};
  } catch (const std::exception& e) {
    return core::fail(core::ErrorCode::internal, std::string("unexpected error in the store: ") + e.what());
  }
}

/// guard() for a write job's body: a StoreError of kind retry escapes it, so that the
/// write queue sees it and runs the whole transaction again.
template <class F>
auto guard_job(F&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const StoreError& e) {
    if (e.kind() == StoreError::Kind::retry) throw;
    return core::Failure{store_failure(e)};
  } catch (const std::exception& e) {
    return core::fail(core::ErrorCode::internal, std::string("unexpected error in the store: ") + e.what());
  }
}

}  // namespace agentry::store
