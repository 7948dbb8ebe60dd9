// A buffer size computed with checked arithmetic. Every case states its buffers' element counts as
// functions returning Size (case_decl.h), so a product of dims that would wrap throws
// std::overflow_error instead of silently becoming a small allocation a kernel then writes past.
// A count written in plain size_t arithmetic does not compile as a buffer count: the lambda's
// return type must be Size.
#pragma once
#include <cstddef>
#include <stdexcept>

namespace fusebench {

class Size {
 public:
  constexpr Size(size_t v) : v_(v) {}  // NOLINT(google-explicit-constructor): dims and literals mix in
  constexpr size_t value() const { return v_; }

  friend Size operator*(Size a, Size b) {
    size_t r = 0;
    if (__builtin_mul_overflow(a.v_, b.v_, &r)) throw std::overflow_error("a buffer size overflows 64 bits");
    return Size(r);
  }
  friend Size operator+(Size a, Size b) {
    size_t r = 0;
    if (__builtin_add_overflow(a.v_, b.v_, &r)) throw std::overflow_error("a buffer size overflows 64 bits");
    return Size(r);
  }
  friend Size operator/(Size a, Size b) {
    if (b.v_ == 0) throw std::overflow_error("a buffer size divides by zero");
    return Size(a.v_ / b.v_);
  }

 private:
  size_t v_;
};

}  // namespace fusebench
