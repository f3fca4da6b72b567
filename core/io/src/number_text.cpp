#include "number_text.h"

#include <charconv>
#include <limits>

namespace gtv::io {
namespace {

__extension__ typedef __int128 Int128;  // __extension__: int128 is a GNU extension, fine under -Wpedantic

constexpr int kMaxMantissaDigits = 36;  // 10^36 < 2^127

bool is_digit(char c) { return c >= '0' && c <= '9'; }

struct Decimal {
  Int128 mantissa = 0;
  int exponent10 = 0;  // value = mantissa * 10^exponent10
  bool negative = false;
  bool round_up = false;  // digits beyond kMaxMantissaDigits were dropped and the first of them was >= 5
};

// Reads JSON number syntax: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool read_decimal(std::string_view s, Decimal& d) {
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-') {
    d.negative = true;
    ++i;
  }
  int digits = 0;
  bool dropped_first = true;
  auto take = [&](char c, bool fraction) {
    if (digits < kMaxMantissaDigits) {
      if (d.mantissa != 0 || c != '0') ++digits;
      d.mantissa = d.mantissa * 10 + (c - '0');
      if (fraction) --d.exponent10;
    } else {
      if (dropped_first) d.round_up = c >= '5';
      dropped_first = false;
      if (!fraction) ++d.exponent10;
    }
  };
  const std::size_t int_start = i;
  while (i < s.size() && is_digit(s[i])) take(s[i++], false);
  if (i == int_start) return false;
  if (i < s.size() && s[i] == '.') {
    const std::size_t frac_start = ++i;
    while (i < s.size() && is_digit(s[i])) take(s[i++], true);
    if (i == frac_start) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    int exp = 0;
    const char* begin = s.data() + i;
    if (i < s.size() && s[i] == '+') ++begin;
    auto [ptr, ec] = std::from_chars(begin, s.data() + s.size(), exp);
    if (ec != std::errc() || ptr == begin) return false;
    i = static_cast<std::size_t>(ptr - s.data());
    if (exp > 100 || exp < -100) {
      d.exponent10 += exp > 0 ? 100 : -100;  // far outside int64 either way
    } else {
      d.exponent10 += exp;
    }
  }
  return i == s.size();
}

// The common case in trace files: [-]digits[.digits] with at most 18 significant digits kept, no exponent.
// Returns false (without a verdict) when the slow path must decide.
bool parse_simple(std::string_view s, int scale_digits, std::int64_t& out) {
  std::size_t i = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) ++i;
  std::uint64_t value = 0;
  int digits = 0;
  const std::size_t int_start = i;
  for (; i < s.size() && is_digit(s[i]); ++i, ++digits) value = value * 10 + static_cast<unsigned>(s[i] - '0');
  if (i == int_start || digits > 15) return false;
  int frac = 0;
  bool round_up = false;
  if (i < s.size() && s[i] == '.') {
    const std::size_t frac_start = ++i;
    for (; i < s.size() && is_digit(s[i]); ++i) {
      if (frac < scale_digits) {
        value = value * 10 + static_cast<unsigned>(s[i] - '0');
        ++frac;
      } else if (i == frac_start + static_cast<std::size_t>(scale_digits)) {
        round_up = s[i] >= '5';
      }
    }
    if (i == frac_start) return false;
  }
  if (i != s.size()) return false;  // exponent or junk: slow path
  for (; frac < scale_digits; ++frac) value *= 10;
  if (round_up) ++value;
  out = negative ? -static_cast<std::int64_t>(value) : static_cast<std::int64_t>(value);
  return true;
}

}  // namespace

bool parse_scaled_decimal(std::string_view token, int scale_digits, std::int64_t& out) {
  while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                            token.back() == '\t'))
    token.remove_suffix(1);
  if (scale_digits >= 0 && scale_digits <= 3 && parse_simple(token, scale_digits, out)) return true;
  Decimal d;
  if (!read_decimal(token, d)) return false;
  Int128 value = d.mantissa;
  int exp = d.exponent10 + scale_digits;
  bool round_up = d.round_up && exp == 0;
  constexpr Int128 kLimit = static_cast<Int128>(std::numeric_limits<std::int64_t>::max());
  for (; exp > 0; --exp) {
    if (value > kLimit) return false;
    value *= 10;
  }
  for (; exp < 0 && value != 0; ++exp) {
    round_up = value % 10 >= 5;
    value /= 10;
  }
  if (round_up) ++value;
  if (value > kLimit + (d.negative ? 1 : 0)) return false;
  out = d.negative ? static_cast<std::int64_t>(-value) : static_cast<std::int64_t>(value);
  return true;
}

void append_scaled_decimal(std::string& out, std::int64_t value, int decimals) {
  char digits[32];
  const bool negative = value < 0;
  // Magnitude as unsigned so INT64_MIN has no overflow.
  std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0 || n <= decimals);
  if (negative) out.push_back('-');
  for (int i = n - 1; i >= 0; --i) {
    out.push_back(digits[i]);
    if (i == decimals && decimals > 0) out.push_back('.');
  }
}

}  // namespace gtv::io
