#pragma once
// Rank summaries of a generated run with known answers, made directly (no trace): N ranks x C all-reduces with
// sequence numbers. Each rank arrives 1 ms after the step starts, +/- 50 us of per-rank noise; the planted
// straggler arrives delay_ns later at four collectives in five, a second rank 1.5 x delay_ns later at every
// seventh, and the eight ranks of one host from slow_host_rank on 0.5 x delay_ns later through the middle fifth of
// the run; the kernels end 200 us (+0-3 us) after the last arrival; clocks are off by up to +/-50 ms. Sources name
// rankN.json.gz. Each all-reduce ends a profiler step: rank r marks ProfilerStep#k from the end of its previous
// all-reduce (from the step's compute for the first) to the end of all-reduce k, its GPUs busy from the step's
// compute (which starts 400 us after the previous all-reduce's last arrival) to the all-reduce's end.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gtv/ranks/summary.h"

namespace gtv::ui::testing {

struct SummarySpec {
  int ranks = 1024;
  int collectives = 1000;
  int straggler = 517;
  int sometimes_late = 3;    // late at every seventh collective
  int slow_host_rank = 256;  // the first of eight ranks late through the middle fifth
  TimeNs delay_ns = 2'000'000;
  unsigned seed = 7;
  bool profiler_steps = true;
};

inline std::vector<ranks::RankSummary> generated_summaries(const SummarySpec& spec) {
  std::mt19937_64 random(spec.seed);
  auto uniform = [&](TimeNs lo, TimeNs hi) { return lo + static_cast<TimeNs>(random() % (hi - lo + 1)); };
  const auto n = static_cast<std::size_t>(spec.ranks);
  std::vector<ranks::RankSummary> out(n);
  std::vector<TimeNs> offset(n);
  for (std::size_t r = 0; r < n; ++r) {
    ranks::RankSummary& s = out[r];
    s.source = "rank" + std::to_string(r) + ".json.gz";
    s.source_tool = "PyTorch Profiler (Kineto)";
    s.distributed = {static_cast<std::int64_t>(r), spec.ranks, "nccl"};
    s.origin_unix_ns = 1'790'857'026'000'000'000;
    s.devices = {static_cast<std::int64_t>(r % 8)};
    offset[r] = uniform(-50'000'000, 50'000'000);
    s.collectives.reserve(static_cast<std::size_t>(spec.collectives));
  }
  TimeNs step = 100'000'000;
  std::vector<TimeNs> arrival(n);
  for (int c = 0; c < spec.collectives; ++c) {
    for (std::size_t r = 0; r < n; ++r) {
      const auto rank = static_cast<int>(r);
      const bool slow_host = rank >= spec.slow_host_rank && rank < spec.slow_host_rank + 8 &&
                             c >= 2 * spec.collectives / 5 && c < 3 * spec.collectives / 5;
      arrival[r] =
          step + 1'000'000 + uniform(-50'000, 50'000) + (rank == spec.straggler && c % 5 != 4 ? spec.delay_ns : 0) +
          (rank == spec.sometimes_late && c % 7 == 0 ? spec.delay_ns * 3 / 2 : 0) + (slow_host ? spec.delay_ns / 2 : 0);
    }
    const TimeNs last = *std::max_element(arrival.begin(), arrival.end());
    for (std::size_t r = 0; r < n; ++r) {
      Collective k;
      k.kind = "AllReduce";
      k.group = "0";
      k.seq = c;
      k.elements = 25'000'000;
      k.start_ns = arrival[r] + offset[r];
      k.end_ns = last + 200'000 + uniform(0, 3'000) + offset[r];
      out[r].collectives.push_back(k);
      if (spec.profiler_steps) {
        std::vector<ranks::StepWork>& steps = out[r].steps;
        const TimeNs start = steps.empty() ? step + offset[r] : out[r].collectives[steps.size() - 1].end_ns;
        steps.push_back({"ProfilerStep#" + std::to_string(c), start, k.end_ns, k.end_ns - (step + offset[r]),
                         k.end_ns - k.start_ns});
      }
    }
    step = last + 400'000;
  }
  for (ranks::RankSummary& s : out) {
    s.start_ns = s.collectives.front().start_ns - 1'000'000;
    if (!s.steps.empty()) s.start_ns = std::min(s.start_ns, s.steps.front().start_ns);
    s.end_ns = s.collectives.back().end_ns;
  }
  return out;
}

}  // namespace gtv::ui::testing
