#pragma once
// Result<T>: a value or a core::Error (std::expected arrives only with C++23).

#include "core/error.hpp"

#include <cassert>
#include <utility>
#include <variant>

namespace agentry::core {

/// Wraps an Error so `return fail(...)` converts to any Result<T>.
struct Failure {
  Error error;
};

inline Failure fail(ErrorCode code, std::string message, boost::json::object details = {}) {
  return Failure{make_error(code, std::move(message), std::move(details))};
}
inline Failure fail(Error error) { return Failure{std::move(error)}; }

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  Result(Failure failure) : state_(std::in_place_index<1>, std::move(failure.error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(state_); }
  const T& value() const& { assert(ok()); return std::get<0>(state_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { assert(!ok()); return std::get<1>(state_); }
  Failure failure() const { return Failure{error()}; }

 private:
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Failure failure) : error_(std::move(failure.error)), ok_(false) {}

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { assert(!ok_); return error_; }
  Failure failure() const { return Failure{error_}; }

 private:
  Error error_;
  bool ok_ = true;
};

inline Result<void> ok() { return {}; }

}  // namespace agentry::core
