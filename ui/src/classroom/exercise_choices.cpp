#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

#include "gtv/ui/exercise.h"

namespace gtv::ui {
namespace {

// The ladder every ratio question shares: "within 10%" around 1, then these steps outwards. The answer is wherever
// the recorded ratio falls on it; no question has steps of its own.
constexpr std::array<double, 11> kSteps = {1.1, 1.5, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000};
constexpr int kTopBin = static_cast<int>(kSteps.size());  // bins run from -kTopBin to kTopBin
constexpr std::size_t kMaxChoices = 6;                    // one row of buttons on a projector
constexpr int kAtLeastUpTo = 3;                           // the highest choice is at least "more than 2.5x"
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Bin 0 is [1/1.1, 1.1); bin k > 0 is [step k-1, step k); bin -k mirrors bin k below 1.
double lower(int bin) {
  if (bin == 0) return 1.0 / kSteps[0];
  if (bin > 0) return kSteps[static_cast<std::size_t>(bin - 1)];
  return bin == -kTopBin ? 0.0 : 1.0 / kSteps[static_cast<std::size_t>(-bin)];
}

double upper(int bin) { return bin == kTopBin ? kInfinity : lower(bin + 1); }

int bin_of(double value) {
  for (int bin = -kTopBin; bin < kTopBin; ++bin)
    if (value < upper(bin)) return bin;
  return kTopBin;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string label(RatioScale scale, int bin, bool open_below, bool open_above) {
  const bool speedup = scale == RatioScale::Speedup;
  const std::string more = speedup ? "x faster" : "x as long";
  const std::string less = speedup ? "x slower" : "x shorter";
  if (open_below && bin <= -1)
    return bin == -1 ? (speedup ? "slower (by more than 10%)" : "shorter (by more than 10%)")
                     : "more than " + number(1.0 / upper(bin)) + less;
  if (open_below)
    return bin == 0 ? (speedup ? "about as fast, or slower" : "about as long, or less")
                    : "less than " + number(upper(bin)) + more;
  if (open_above && bin >= 1) return "more than " + number(lower(bin)) + more;
  if (open_above)
    return bin == 0 ? (speedup ? "about as fast, or faster" : "about as long, or more")
                    : "less than " + number(1.0 / lower(bin)) + less;
  if (bin == 0) return speedup ? "about as fast (within 10%)" : "about as long (within 10%)";
  if (bin > 0) return number(lower(bin)) + "-" + number(upper(bin)) + more;
  return number(1.0 / upper(bin)) + "-" + number(1.0 / lower(bin)) + less;
}

}  // namespace

std::vector<Choice> ratio_choices(RatioScale scale, std::span<const double> values) {
  // A speedup question always offers "slower"; one step below the lowest value that is slower, one step above the
  // highest, so the answer is never given away by being at an end.
  int lowest = scale == RatioScale::Speedup ? -1 : 0;
  int highest = kAtLeastUpTo;
  for (const double v : values) {
    if (!(v > 0)) continue;
    const int bin = bin_of(v);
    if (bin < 0) lowest = std::min(lowest, bin - 1);
    lowest = std::min(lowest, bin);
    highest = std::max(highest, bin + 1);
  }
  lowest = std::max(lowest, -kTopBin);
  highest = std::min(highest, kTopBin);
  const auto count = [&] {
    const int bins = highest - lowest + 1;
    return static_cast<std::size_t>(bins);
  };
  while (count() > kMaxChoices) ++lowest;  // the open lowest choice holds the values below it
  std::vector<Choice> choices;
  choices.reserve(count());
  for (int bin = lowest; bin <= highest; ++bin) {
    const bool open_below = bin == lowest;
    const bool open_above = bin == highest;
    choices.push_back({label(scale, bin, open_below, open_above), open_below ? 0.0 : lower(bin),
                       open_above ? kInfinity : upper(bin)});
  }
  return choices;
}

int choice_holding(const std::vector<Choice>& choices, double value) {
  for (std::size_t i = 0; i < choices.size(); ++i)
    if (choices[i].holds(value)) return static_cast<int>(i);
  return -1;
}

std::string format_ratio(double ratio) {
  const int decimals = ratio >= 10 ? 1 : 2;
  const double unit = std::pow(10.0, -decimals);
  // A step of the ladder (or its inverse, on the slower side: 1/1.5 = 0.667) within half a unit of the value would
  // be where the rounded number lands.
  const bool near_step = std::any_of(kSteps.begin(), kSteps.end(), [&](double step) {
    return std::abs(ratio - step) < unit / 2 || std::abs(ratio - 1.0 / step) < unit / 2;
  });
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*fx", near_step ? decimals + 1 : decimals, ratio);
  return buf;
}

}  // namespace gtv::ui
