#pragma once
// Time in gtv: signed 64-bit nanoseconds. Trace times are relative to the trace origin; the origin itself is
// kept as Unix nanoseconds (CUPTI and std::chrono::system_clock share CLOCK_REALTIME on Linux).
#include <cstdint>
#include <limits>
#include <string>

namespace gtv {

using TimeNs = std::int64_t;

inline constexpr TimeNs kNsPerUs = 1'000;
inline constexpr TimeNs kNsPerMs = 1'000'000;
inline constexpr TimeNs kNsPerS = 1'000'000'000;

// Times a trace may hold (about +-146 years around the origin): starts and ends in [-2^62, 2^62). Readers and
// TraceBuilder refuse times outside it, so within a trace every length and difference (end - start, t - start)
// fits in an int64 without overflow.
inline constexpr TimeNs kMinTraceTimeNs = -(TimeNs{1} << 62);
inline constexpr TimeNs kMaxTraceTimeNs = (TimeNs{1} << 62) - 1;
[[nodiscard]] constexpr bool in_trace_time_range(TimeNs t_ns) {
  return t_ns >= kMinTraceTimeNs && t_ns <= kMaxTraceTimeNs;
}

// a + b and a - b clamped to the int64 range: for times that come from outside a trace (mouse positions,
// tolerances, windows), where plain arithmetic could overflow.
[[nodiscard]] constexpr TimeNs saturating_add(TimeNs a, TimeNs b) {
  TimeNs sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<TimeNs>::max() : std::numeric_limits<TimeNs>::min();
}
[[nodiscard]] constexpr TimeNs saturating_sub(TimeNs a, TimeNs b) {
  TimeNs diff = 0;
  if (!__builtin_sub_overflow(a, b, &diff)) return diff;
  return b < 0 ? std::numeric_limits<TimeNs>::max() : std::numeric_limits<TimeNs>::min();
}

[[nodiscard]] constexpr double ns_to_us(TimeNs ns) { return static_cast<double>(ns) / 1e3; }
[[nodiscard]] constexpr double ns_to_ms(TimeNs ns) { return static_cast<double>(ns) / 1e6; }

// "812 ns", "3.40 us", "71.7 ms", "2.45 s": three significant digits, unit chosen by magnitude.
[[nodiscard]] std::string format_duration(TimeNs duration_ns);

// Exact form for tooltips and details: "71 712 345 ns" style is hard to read, so "71.712345 ms".
[[nodiscard]] std::string format_duration_exact(TimeNs duration_ns);

// Unix nanoseconds now, on the clock CUPTI uses.
[[nodiscard]] TimeNs unix_now_ns();

}  // namespace gtv
