#pragma once
// Exact conversions between JSON number text in microseconds and integer nanoseconds. Absolute epoch times in
// microseconds with three decimals have 19 significant digits, more than a double holds, so the text is parsed
// digit by digit instead of through double.
#include <cstdint>
#include <string>
#include <string_view>

#include "gtv/base/time.h"

namespace gtv::io {

// Parses a JSON number token (e.g. "5149158474402.143", "-1.5e3") given in units of 10^-scale_digits and returns
// it multiplied by 10^scale_digits, rounded half away from zero. False if the text is not a JSON number or the
// result does not fit in int64. Microseconds to nanoseconds: scale_digits = 3.
[[nodiscard]] bool parse_scaled_decimal(std::string_view token, int scale_digits, std::int64_t& out);
// The same through 128-bit arithmetic only (parse_scaled_decimal takes a faster path for plain numbers and falls
// back to this one); separate so that tests can hold the two against each other.
[[nodiscard]] bool parse_scaled_decimal_exact(std::string_view token, int scale_digits, std::int64_t& out);

[[nodiscard]] inline bool parse_us_as_ns(std::string_view token, TimeNs& out_ns) {
  return parse_scaled_decimal(token, 3, out_ns);
}

// Appends value / 10^decimals with exactly `decimals` digits after the point ("12.345", "-0.005").
void append_scaled_decimal(std::string& out, std::int64_t value, int decimals);
inline void append_ns_as_us(std::string& out, TimeNs ns) { append_scaled_decimal(out, ns, 3); }

}  // namespace gtv::io
