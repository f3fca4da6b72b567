#pragma once
// Time in gtv: signed 64-bit nanoseconds. Trace times are relative to the trace origin; the origin itself is
// kept as Unix nanoseconds (CUPTI and std::chrono::system_clock share CLOCK_REALTIME on Linux).
#include <cstdint>
#include <string>

namespace gtv {

using TimeNs = std::int64_t;

inline constexpr TimeNs kNsPerUs = 1'000;
inline constexpr TimeNs kNsPerMs = 1'000'000;
inline constexpr TimeNs kNsPerS = 1'000'000'000;

[[nodiscard]] constexpr double ns_to_us(TimeNs ns) { return static_cast<double>(ns) / 1e3; }
[[nodiscard]] constexpr double ns_to_ms(TimeNs ns) { return static_cast<double>(ns) / 1e6; }

// "812 ns", "3.40 us", "71.7 ms", "2.45 s": three significant digits, unit chosen by magnitude.
[[nodiscard]] std::string format_duration(TimeNs duration_ns);

// Exact form for tooltips and details: "71 712 345 ns" style is hard to read, so "71.712345 ms".
[[nodiscard]] std::string format_duration_exact(TimeNs duration_ns);

// Unix nanoseconds now, on the clock CUPTI uses.
[[nodiscard]] TimeNs unix_now_ns();

}  // namespace gtv
