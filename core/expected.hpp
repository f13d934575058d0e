#pragma once
// Errors as values: an Expected<T> holds either a T or an Error that says what went wrong.
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace dvla {

// A failure described in words, with the context that produced it ("trajectory segment: ...").
class Error {
 public:
  explicit Error(std::string message) : message_(std::move(message)) {}
  const std::string& message() const noexcept { return message_; }
  // The same error behind a prefix naming the outer context.
  Error within(const std::string& context) const { return Error(context + ": " + message_); }

 private:
  std::string message_;
};

// Thrown where an error cannot travel as a value (constructors, deep call chains).
class Failure : public std::runtime_error {
 public:
  explicit Failure(const Error& e) : std::runtime_error(e.message()) {}
  using std::runtime_error::runtime_error;
};

template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(Error error) : v_(std::move(error)) {}

  bool has_value() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & {
    check();
    return std::get<0>(v_);
  }
  const T& value() const& {
    check();
    return std::get<0>(v_);
  }
  T&& value() && {
    check();
    return std::get<0>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  // The error; for a value, an Error saying there is none (so logging it is always safe).
  const Error& error() const {
    static const Error none("no error");
    return has_value() ? none : std::get<1>(v_);
  }

 private:
  void check() const {
    if (!has_value()) throw Failure(std::get<1>(v_));
  }
  std::variant<T, Error> v_;
};

// Success or an Error, for operations that produce nothing.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), failed_(true) {}
  static Status ok() { return {}; }

  explicit operator bool() const noexcept { return !failed_; }
  const Error& error() const { return error_; }

 private:
  Error error_{""};
  bool failed_ = false;
};

}  // namespace dvla
