#include "json/number_text.h"

#include <charconv>
#include <cstring>
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

bool is_blank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The value of the eight ASCII digits at p, or false when they are not all digits (SWAR: one 64-bit load).
bool eight_digits(const char* p, std::uint64_t& value) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, sizeof v);
  // Every byte is 0x30..0x39: its high nibble is 3, and adding 6 keeps it 3.
  if (((v & 0xF0F0F0F0F0F0F0F0ull) | (((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) !=
      0x3333333333333333ull)
    return false;
  v -= 0x3030303030303030ull;
  v = (v * 10) + (v >> 8);  // pairs of digits
  value = (((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
           (((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
          32;
  return true;
}

// The common case in trace files: [-]digits[.digits] with at most 15 integer digits, then only blanks, and no
// exponent. Returns false (without a verdict) when the exact path must decide.
bool parse_simple(std::string_view s, int scale_digits, std::int64_t& out) {
  const char* p = s.data();
  const char* const end = p + s.size();
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  const char* const int_start = p;
  std::uint64_t value = 0;
  for (std::uint64_t eight = 0; end - p >= 8 && p - int_start <= 8 && eight_digits(p, eight); p += 8)
    value = value * 100'000'000 + eight;
  for (; p < end && is_digit(*p); ++p) value = value * 10 + static_cast<unsigned>(*p - '0');
  if (p == int_start || p - int_start > 15) return false;  // (value may have wrapped only in the second case)
  int frac = 0;
  bool round_up = false;
  if (p < end && *p == '.') {
    const char* const frac_start = ++p;
    for (; p < end && is_digit(*p); ++p) {
      if (frac < scale_digits) {
        value = value * 10 + static_cast<unsigned>(*p - '0');
        ++frac;
      } else if (p == frac_start + scale_digits) {
        round_up = *p >= '5';
      }
    }
    if (p == frac_start) return false;
  }
  while (p < end && is_blank(*p)) ++p;
  if (p != end) return false;  // exponent or junk: the exact path
  for (; frac < scale_digits; ++frac) value *= 10;
  if (round_up) ++value;
  out = negative ? -static_cast<std::int64_t>(value) : static_cast<std::int64_t>(value);
  return true;
}

}  // namespace

bool parse_scaled_decimal(std::string_view token, int scale_digits, std::int64_t& out) {
  if (scale_digits >= 0 && scale_digits <= 3 && parse_simple(token, scale_digits, out)) return true;
  return parse_scaled_decimal_exact(token, scale_digits, out);
}

bool parse_scaled_decimal_exact(std::string_view token, int scale_digits, std::int64_t& out) {
  while (!token.empty() && is_blank(token.back())) token.remove_suffix(1);
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
  if (exp < 0) round_up = false;  // ran out of digits above the first one dropped: that one was a 0
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
