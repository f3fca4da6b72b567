#pragma once
// Generated per-rank recordings with known answers: N ranks whose clocks are off by up to +/-50 ms, one rank delayed
// before every step's all-reduce, broadcasts from rank 0 every fifth step. Each step: every rank computes 1 ms +/-
// 50 us (the straggler delay_ns more), then all-reduces: the kernels start at the ranks' arrivals and end 200 us
// after the last arrival, plus 0-3 us of per-rank jitter.
#include <algorithm>
#include <random>
#include <vector>

#include "../analysis/trace_helpers.h"

namespace gtv::ranks::testing {

inline constexpr TimeNs kUs = 1000;

struct RunSpec {
  int ranks = 8;
  int steps = 60;
  int straggler = 3;
  TimeNs delay_ns = 2000 * kUs;
  unsigned seed = 1;
  bool say_ranks = true;  // the files carry distributedInfo
};

struct GeneratedRun {
  std::vector<Trace> files;
  std::vector<TimeNs> offset_ns;  // how far each rank's clock reads ahead of the truth
};

inline GeneratedRun generate_run(const RunSpec& spec) {
  constexpr TimeNs kOrigin = 1'790'857'026'000'000'000;
  constexpr const char* kAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
  constexpr const char* kBroadcast = "ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
  std::mt19937_64 random(spec.seed);
  auto uniform = [&](TimeNs lo, TimeNs hi) { return lo + static_cast<TimeNs>(random() % (hi - lo + 1)); };
  GeneratedRun g;
  std::vector<TraceBuilder> builders(static_cast<std::size_t>(spec.ranks));
  for (int r = 0; r < spec.ranks; ++r) {
    g.offset_ns.push_back(uniform(-50'000 * kUs, 50'000 * kUs));
    builders[r].metadata().origin_unix_ns = kOrigin;
    if (spec.say_ranks) builders[r].metadata().distributed = {r, spec.ranks, "nccl"};
  }
  TimeNs step_start = 100'000 * kUs;
  for (int s = 0; s < spec.steps; ++s) {
    if (s % 5 == 0) {
      const TimeNs root = step_start + uniform(0, 20 * kUs);
      for (int r = 0; r < spec.ranks; ++r) {
        const TimeNs arrive = r == 0 ? root : step_start + uniform(0, 20 * kUs);
        const TimeNs end = r == 0 ? root + 50 * kUs : std::max(arrive, root) + 60 * kUs;
        gtv::analysis::testing::kernel(builders[r], r, 7, kBroadcast, arrive + g.offset_ns[r], end - arrive);
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
      gtv::analysis::testing::kernel(builders[r], r, 7, "sm90_gemm", step_start + g.offset_ns[r],
                                     arrivals[r] - step_start);
      gtv::analysis::testing::kernel(builders[r], r, 7, kAllReduce, arrivals[r] + g.offset_ns[r], end - arrivals[r]);
    }
    step_start = last + 400 * kUs;
  }
  for (TraceBuilder& b : builders) g.files.push_back(gtv::analysis::testing::build(b));
  return g;
}

}  // namespace gtv::ranks::testing
