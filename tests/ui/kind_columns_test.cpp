#include "gtv/ui/kind_columns.h"

#include <gtest/gtest.h>

#include <random>

namespace gtv::ui {
namespace {

// Runs of random lengths and kinds with random gaps, as a step function or a critical path has them.
std::vector<KindRun> random_runs(std::size_t count, int kinds, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<TimeNs> length(1, 5'000), gap(0, 2'000);
  std::uniform_int_distribution<int> kind(0, kinds - 1);
  std::vector<KindRun> runs;
  TimeNs t = 0;
  for (std::size_t i = 0; i < count; ++i) {
    t += gap(rng) * (i % 7 == 0);
    const TimeNs end = t + length(rng);
    runs.push_back({t, end, kind(rng)});
    t = end;
  }
  return runs;
}

// Column by column, run by run: the time of each kind in each column, the largest taken (the lowest kind on a tie).
std::vector<KindColumn> brute_force(const std::vector<KindRun>& runs, int kinds, TimeNs t0, TimeNs t1, int width) {
  std::vector<KindColumn> out(static_cast<std::size_t>(width));
  const double ns_per_px = static_cast<double>(t1 - t0) / width;
  for (int c = 0; c < width; ++c) {
    const TimeNs a = t0 + std::llround(c * ns_per_px);
    const TimeNs b = c + 1 == width ? t1 : t0 + std::llround((c + 1) * ns_per_px);
    std::vector<TimeNs> ns(static_cast<std::size_t>(kinds), 0);
    for (const KindRun& r : runs)
      ns[static_cast<std::size_t>(r.kind)] += std::max<TimeNs>(0, std::min(r.end_ns, b) - std::max(r.start_ns, a));
    const auto top = std::max_element(ns.begin(), ns.end());
    if (*top > 0) out[static_cast<std::size_t>(c)] = {static_cast<int>(top - ns.begin()), *top};
    const auto top_above = std::max_element(ns.begin() + 1, ns.end());
    if (*top_above > 0) {
      out[static_cast<std::size_t>(c)].above_zero_kind = static_cast<int>(top_above - ns.begin());
      for (auto k = ns.begin() + 1; k != ns.end(); ++k) out[static_cast<std::size_t>(c)].above_zero_ns += *k;
    }
  }
  return out;
}

TEST(KindColumns, EachColumnTakesTheKindWithMostTimeAtEveryZoom) {
  const int kinds = 5;
  const std::vector<KindRun> runs = random_runs(20'000, kinds, 7);
  const auto at = [&](std::size_t i) { return runs[i]; };
  const KindColumns summary(runs.size(), kinds, at);
  const TimeNs end = runs.back().end_ns;
  std::vector<KindColumn> got;
  // Whole (blocks inside columns), mid zoom, zoomed in (runs wider than a column), and a window past the runs.
  for (const auto& [t0, t1, width] :
       {std::tuple{TimeNs{-100}, end + 100, 300}, std::tuple{end / 3, end / 3 + end / 50, 500},
        std::tuple{end / 2, end / 2 + 20'000, 800}, std::tuple{end + 10, end + 1000, 50}}) {
    summary.columns(at, t0, t1, width, got);
    const std::vector<KindColumn> want = brute_force(runs, kinds, t0, t1, width);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t c = 0; c < want.size(); ++c) {
      EXPECT_EQ(got[c].kind, want[c].kind) << "column " << c << " of " << t0 << ".." << t1;
      EXPECT_EQ(got[c].kind_ns, want[c].kind_ns) << "column " << c << " of " << t0 << ".." << t1;
      EXPECT_EQ(got[c].above_zero_kind, want[c].above_zero_kind) << "column " << c;
      EXPECT_EQ(got[c].above_zero_ns, want[c].above_zero_ns) << "column " << c;
    }
  }
}

// Not the longest single run: a column with one 40 ns run of kind 0 and three 30 ns runs of kind 1 is kind 1's.
TEST(KindColumns, MostTimeNotLongestRun) {
  const std::vector<KindRun> runs = {{0, 40, 0}, {40, 70, 1}, {70, 100, 1}, {100, 130, 1}};
  const auto at = [&](std::size_t i) { return runs[i]; };
  std::vector<KindColumn> got;
  KindColumns(runs.size(), 2, at).columns(at, 0, 130, 1, got);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, 1);
  EXPECT_EQ(got[0].kind_ns, 90);
}

}  // namespace
}  // namespace gtv::ui
