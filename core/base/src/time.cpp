#include "gtv/base/time.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace gtv {
namespace {

struct Unit {
  double ns;
  const char* name;
};

Unit unit_for(TimeNs abs_ns) {
  if (abs_ns >= kNsPerS) return {1e9, "s"};
  if (abs_ns >= kNsPerMs) return {1e6, "ms"};
  if (abs_ns >= kNsPerUs) return {1e3, "us"};
  return {1.0, "ns"};
}

}  // namespace

std::string format_duration(TimeNs duration_ns) {
  const TimeNs abs_ns = duration_ns < 0 ? -duration_ns : duration_ns;
  const Unit unit = unit_for(abs_ns);
  if (unit.ns == 1.0) return std::to_string(duration_ns) + " ns";
  const double value = static_cast<double>(duration_ns) / unit.ns;
  const double abs_value = std::fabs(value);
  const int decimals = abs_value >= 100 ? 1 : (abs_value >= 10 ? 1 : 2);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, value, unit.name);
  return buf;
}

std::string format_duration_exact(TimeNs duration_ns) {
  const TimeNs abs_ns = duration_ns < 0 ? -duration_ns : duration_ns;
  const Unit unit = unit_for(abs_ns);
  if (unit.ns == 1.0) return std::to_string(duration_ns) + " ns";
  const int decimals = unit.ns == 1e9 ? 9 : (unit.ns == 1e6 ? 6 : 3);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, static_cast<double>(duration_ns) / unit.ns, unit.name);
  return buf;
}

TimeNs unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace gtv
