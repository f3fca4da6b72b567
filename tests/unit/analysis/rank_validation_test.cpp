// Validation against generated runs with known answers: N ranks whose clocks are off by up to +/-50 ms, one rank
// delayed by a known amount before every step's all-reduce, broadcasts from rank 0 mixed in. Merged on the
// collectives, the offsets must come back within 20 us, the delayed rank must be named at 95% of the steps or
// more, and each rank's wait must be the injected one within 5% or 20 us.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gtv/analysis/stragglers.h"
#include "gtv/model/rank_merge.h"
#include "trace_helpers.h"

namespace gtv::analysis {
namespace {

using testing::build;
using testing::kernel;

constexpr TimeNs kUs = 1000;
constexpr TimeNs kOrigin = 1'790'857'026'000'000'000;
constexpr const char* kAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
constexpr const char* kBroadcast = "ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

struct Spec {
  int ranks = 8;
  int steps = 60;
  int straggler = 3;
  TimeNs delay_ns = 2000 * kUs;
  unsigned seed = 1;
};

// The truth of one generated run: per rank its clock offset, per step and rank its arrival at the all-reduce.
struct Generated {
  std::vector<Trace> files;
  std::vector<TimeNs> offset_ns;                // how far each rank's clock reads ahead of the truth
  std::vector<std::vector<TimeNs>> arrival_ns;  // [step][rank], true times
};

// Each step: every rank computes 1 ms +/- 50 us (the straggler delay_ns more), then all-reduces: the kernels start
// at the ranks' arrivals and end 200 us after the last arrival, plus 0-3 us of per-rank jitter. Every fifth step
// starts with a broadcast from rank 0 (its part 50 us, the others' 60 us after the later of their and its arrival).
Generated generate(const Spec& spec) {
  std::mt19937_64 random(spec.seed);
  auto uniform = [&](TimeNs lo, TimeNs hi) { return lo + static_cast<TimeNs>(random() % (hi - lo + 1)); };
  Generated g;
  std::vector<TraceBuilder> builders(static_cast<std::size_t>(spec.ranks));
  for (int r = 0; r < spec.ranks; ++r) {
    g.offset_ns.push_back(uniform(-50'000 * kUs, 50'000 * kUs));
    builders[r].metadata().origin_unix_ns = kOrigin;
    builders[r].metadata().distributed = {r, spec.ranks, "nccl"};
  }
  TimeNs step_start = 100'000 * kUs;
  for (int s = 0; s < spec.steps; ++s) {
    if (s % 5 == 0) {
      const TimeNs root = step_start + uniform(0, 20 * kUs);
      for (int r = 0; r < spec.ranks; ++r) {
        const TimeNs arrive = r == 0 ? root : step_start + uniform(0, 20 * kUs);
        const TimeNs end = r == 0 ? root + 50 * kUs : std::max(arrive, root) + 60 * kUs;
        kernel(builders[r], r, 7, kBroadcast, arrive + g.offset_ns[r], end - arrive);
      }
      step_start += 100 * kUs;
    }
    std::vector<TimeNs> arrivals;
    for (int r = 0; r < spec.ranks; ++r)
      arrivals.push_back(step_start + 1000 * kUs + uniform(-50 * kUs, 50 * kUs) +
                         (r == spec.straggler ? spec.delay_ns : 0));
    const TimeNs last = *std::max_element(arrivals.begin(), arrivals.end());
    for (int r = 0; r < spec.ranks; ++r) {
      const TimeNs end = last + 200 * kUs + uniform(0, 3 * kUs);
      kernel(builders[r], r, 7, "sm90_gemm", step_start + g.offset_ns[r], arrivals[r] - step_start);
      kernel(builders[r], r, 7, kAllReduce, arrivals[r] + g.offset_ns[r], end - arrivals[r]);
    }
    g.arrival_ns.push_back(arrivals);
    step_start = last + 400 * kUs;
  }
  for (TraceBuilder& b : builders) g.files.push_back(build(b));
  return g;
}

void check(const Spec& spec) {
  const Generated g = generate(spec);
  std::vector<RankFile> files;
  for (int r = 0; r < spec.ranks; ++r) files.push_back({&g.files[r], "rank" + std::to_string(r) + ".json"});
  RankMergeOptions options;
  options.clock = ClockMethod::Collectives;
  const Expected<RankMerge> m = merge_ranks(files, options);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const TraceMetadata& meta = m->trace.metadata();
  for (int r = 1; r < spec.ranks; ++r) {
    // Moved by minus its clock's lead over rank 0's.
    const TimeNs expected = -(g.offset_ns[r] - g.offset_ns[0]);
    EXPECT_LE(std::llabs(meta.ranks[r].clock_offset_ns - expected), 20 * kUs) << "rank " << r;
  }
  const Stragglers s = analyze_stragglers(m->trace);
  std::size_t named = 0, steps = 0;
  for (const CollectiveArrivals& c : s.collectives) {
    if (c.kind != "AllReduce") continue;
    const std::vector<TimeNs>& truth = g.arrival_ns[c.ordinal];
    const TimeNs last = *std::max_element(truth.begin(), truth.end());
    ++steps;
    if (c.culprit == spec.straggler) ++named;
    for (int r = 0; r < spec.ranks; ++r) {
      const TimeNs true_wait = last - truth[r];
      const TimeNs tolerance = std::max<TimeNs>(20 * kUs, true_wait / 20);
      EXPECT_LE(std::llabs(c.wait_ns[r] - true_wait), tolerance) << "step " << c.ordinal << " rank " << r;
    }
  }
  EXPECT_EQ(steps, static_cast<std::size_t>(spec.steps));
  EXPECT_GE(named * 100, steps * 95) << named << " of " << steps;
  EXPECT_EQ(s.clock_inconsistent, 0u);
  EXPECT_EQ(s.headline.rfind(
                "Over the whole trace, rank " + std::to_string(spec.straggler) + " kept the others waiting at ", 0),
            0u)
      << s.headline;
}

TEST(RankValidation, EightRanksWithADelayOf200Us) { check({.delay_ns = 200 * kUs, .seed = 7}); }
TEST(RankValidation, EightRanksWithADelayOf2Ms) { check({.delay_ns = 2000 * kUs, .seed = 8}); }
TEST(RankValidation, EightRanksWithADelayOf20Ms) { check({.delay_ns = 20'000 * kUs, .seed = 9}); }
TEST(RankValidation, ThirtyTwoRanks) { check({.ranks = 32, .steps = 20, .straggler = 30, .seed = 10}); }

}  // namespace
}  // namespace gtv::analysis
