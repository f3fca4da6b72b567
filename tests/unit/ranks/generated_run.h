#pragma once
// Generated per-rank recordings with known answers: N ranks whose clocks are off by up to +/-50 ms, one rank delayed
// before every step's all-reduce, broadcasts from rank 0 every fifth step. Each step: every rank computes 1 ms +/-
// 50 us (the straggler delay_ns more), then all-reduces: the kernels start at the ranks' arrivals and end 200 us
// after the last arrival, plus 0-3 us of per-rank jitter. Optionally a second rank is late instead at every third
// step, and each rank's host thread marks its steps ("ProfilerStep#N" annotations, as PyTorch's profiler does) from
// 50 us before the step's broadcast or compute to 10 us after its all-reduce ends. The run's answers: per step the
// rank that was late and every rank's wait at the step's collectives.
#include <algorithm>
#include <random>
#include <string>
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
  bool say_ranks = true;        // the files carry distributedInfo
  int second_straggler = -1;    // when >= 0: late instead of straggler at every third step (s % 3 == 2)
  bool profiler_steps = false;  // the host threads mark ProfilerStep#N
};

struct GeneratedRun {
  std::vector<Trace> files;
  std::vector<TimeNs> offset_ns;  // how far each rank's clock reads ahead of the truth
  std::vector<int> late_rank;     // per step: the rank that was late before the all-reduce
  // Per step and rank: its wait at the step's collectives (for the last arrival at the all-reduce, and for the
  // broadcast's root, until then), and the others' wait for it (the sum of their waits where it was awaited).
  std::vector<std::vector<TimeNs>> wait_ns;
  std::vector<std::vector<TimeNs>> caused_ns;
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
  const auto n = static_cast<std::size_t>(spec.ranks);
  TimeNs step_start = 100'000 * kUs;
  for (int s = 0; s < spec.steps; ++s) {
    const TimeNs marked_from = step_start - 50 * kUs;
    std::vector<TimeNs> wait(n, 0), caused(n, 0);
    if (s % 5 == 0) {
      const TimeNs root = step_start + uniform(0, 20 * kUs);
      for (int r = 0; r < spec.ranks; ++r) {
        const TimeNs arrive = r == 0 ? root : step_start + uniform(0, 20 * kUs);
        const TimeNs end = r == 0 ? root + 50 * kUs : std::max(arrive, root) + 60 * kUs;
        gtv::analysis::testing::kernel(builders[r], r, 7, kBroadcast, arrive + g.offset_ns[r], end - arrive);
        wait[static_cast<std::size_t>(r)] = std::max<TimeNs>(0, root - arrive);
        caused[0] += wait[static_cast<std::size_t>(r)];
      }
      step_start += 100 * kUs;
    }
    const int late = spec.second_straggler >= 0 && s % 3 == 2 ? spec.second_straggler : spec.straggler;
    std::vector<TimeNs> arrivals;
    for (int r = 0; r < spec.ranks; ++r)
      arrivals.push_back(step_start + 1000 * kUs + uniform(-50 * kUs, 50 * kUs) + (r == late ? spec.delay_ns : 0));
    const TimeNs last = *std::max_element(arrivals.begin(), arrivals.end());
    const auto last_rank =
        static_cast<std::size_t>(std::max_element(arrivals.begin(), arrivals.end()) - arrivals.begin());
    for (int r = 0; r < spec.ranks; ++r) {
      const TimeNs end = last + 200 * kUs + uniform(0, 3 * kUs);
      gtv::analysis::testing::kernel(builders[r], r, 7, "sm90_gemm", step_start + g.offset_ns[r],
                                     arrivals[r] - step_start);
      gtv::analysis::testing::kernel(builders[r], r, 7, kAllReduce, arrivals[r] + g.offset_ns[r], end - arrivals[r]);
      const TimeNs all_reduce_wait = last - arrivals[static_cast<std::size_t>(r)];
      wait[static_cast<std::size_t>(r)] += all_reduce_wait;
      caused[last_rank] += all_reduce_wait;
      if (spec.profiler_steps)
        gtv::analysis::testing::host_call(builders[r], r, 1, "ProfilerStep#" + std::to_string(s),
                                          marked_from + g.offset_ns[r], end + 10 * kUs - marked_from,
                                          EventKind::Annotation);
    }
    g.late_rank.push_back(late);
    g.wait_ns.push_back(std::move(wait));
    g.caused_ns.push_back(std::move(caused));
    step_start = last + 400 * kUs;
  }
  for (TraceBuilder& b : builders) g.files.push_back(gtv::analysis::testing::build(b));
  return g;
}

}  // namespace gtv::ranks::testing
