#pragma once
// Expected<T>: a value or an Error. Errors are one line of text a user can act on ("trace.json: byte 1234:
// expected ',' or '}'"), so callers print them as they are.
#include <string>
#include <utility>
#include <variant>

namespace gtv {

struct Error {
  std::string message;
};

template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
  Expected(Error error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  [[nodiscard]] bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  [[nodiscard]] T& value() & { return std::get<T>(state_); }
  [[nodiscard]] const T& value() const& { return std::get<T>(state_); }
  [[nodiscard]] T&& value() && { return std::get<T>(std::move(state_)); }
  [[nodiscard]] const Error& error() const { return std::get<Error>(state_); }

  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Error> state_;
};

// For operations that return nothing but may fail.
struct Ok {};
using Status = Expected<Ok>;
[[nodiscard]] inline Status ok_status() { return Ok{}; }

}  // namespace gtv
