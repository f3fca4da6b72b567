#include "json/number_text.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>

namespace gtv::io {
namespace {

std::int64_t us(std::string_view text) {
  TimeNs ns = -777;
  EXPECT_TRUE(parse_us_as_ns(text, ns)) << text;
  return ns;
}

TEST(NumberText, MicrosecondsToExactNanoseconds) {
  EXPECT_EQ(us("0"), 0);
  EXPECT_EQ(us("12"), 12'000);
  EXPECT_EQ(us("12.5"), 12'500);
  EXPECT_EQ(us("4354.672"), 4'354'672);
  // 19 significant digits: more than a double holds.
  EXPECT_EQ(us("1790857026123456.789"), 1'790'857'026'123'456'789);
  EXPECT_EQ(us("5149158474402.143"), 5'149'158'474'402'143);
  EXPECT_EQ(us("-0.001"), -1);
  EXPECT_EQ(us("1e3"), 1'000'000);
  EXPECT_EQ(us("1.5E-3"), 2);  // 1.5 ns rounds half away from zero
  EXPECT_EQ(us("0.0004"), 0);
  EXPECT_EQ(us("0.0005"), 1);
  EXPECT_EQ(us("-0.0005"), -1);
  EXPECT_EQ(us("2.9999999"), 3'000);
  EXPECT_EQ(us("7 \n"), 7'000);  // simdjson's raw tokens carry trailing blanks
  EXPECT_EQ(us("0.00006"), 0);   // 0.06 ns: the digit that decides rounding is the 0 after the point
  EXPECT_EQ(us("-0.00096"), -1);
}

TEST(NumberText, RejectsNonNumbersAndOverflow) {
  TimeNs ns = 0;
  for (std::string_view bad :
       {"", "-", "abc", "\"12\"", "1.", ".5", "1e", "12x", "9223372036854775.808", "1e30", "--1", "true"})
    EXPECT_FALSE(parse_us_as_ns(bad, ns)) << bad;
  EXPECT_TRUE(parse_us_as_ns("9223372036854775.807", ns));
  EXPECT_EQ(ns, std::numeric_limits<std::int64_t>::max());
}

TEST(NumberText, FastPathAgreesWithTheExactOne) {
  // Random tokens around the fast path's limits: 0-20 integer digits (8-digit steps, the 15-digit limit), 0-9
  // decimals, signs, leading zeros, trailing blanks, exponents and junk; every scale the readers use.
  std::mt19937 rng(2026);
  auto digits = [&](int n) {
    std::string d;
    for (int i = 0; i < n; ++i) d += static_cast<char>('0' + rng() % 10);
    return d;
  };
  const char* tails[] = {"", "", "", " ", "\n  ", "e3", "E-2", "x", "."};
  int checked = 0;
  for (int i = 0; i < 200'000; ++i) {
    std::string token = rng() % 4 == 0 ? "-" : "";
    token += digits(static_cast<int>(rng() % 21));
    if (rng() % 2 == 0) token += "." + digits(static_cast<int>(rng() % 10));
    token += tails[rng() % std::size(tails)];
    const int scale = static_cast<int>(rng() % 4);
    std::int64_t fast = 0, exact = 0;
    const bool fast_ok = parse_scaled_decimal(token, scale, fast);
    const bool exact_ok = parse_scaled_decimal_exact(token, scale, exact);
    ASSERT_EQ(fast_ok, exact_ok) << token << " scale " << scale;
    if (fast_ok) {
      ASSERT_EQ(fast, exact) << token << " scale " << scale;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100'000);
}

TEST(NumberText, OtherScales) {
  std::int64_t v = 0;
  ASSERT_TRUE(parse_scaled_decimal("0.969697", 2, v));
  EXPECT_EQ(v, 97);
  ASSERT_TRUE(parse_scaled_decimal("-12.5", 0, v));
  EXPECT_EQ(v, -13);
}

TEST(NumberText, FormatsWithFixedDecimals) {
  std::string s;
  append_ns_as_us(s, 5'149'158'474'402'143);
  EXPECT_EQ(s, "5149158474402.143");
  s.clear();
  append_ns_as_us(s, -5);
  EXPECT_EQ(s, "-0.005");
  s.clear();
  append_ns_as_us(s, 0);
  EXPECT_EQ(s, "0.000");
  s.clear();
  append_scaled_decimal(s, std::numeric_limits<std::int64_t>::min(), 3);
  EXPECT_EQ(s, "-9223372036854775.808");
  s.clear();
  append_scaled_decimal(s, 97, 2);
  EXPECT_EQ(s, "0.97");
}

}  // namespace
}  // namespace gtv::io
