#pragma once
// The parts of the warm-up analysis, one file each: first-use host calls, slow first kernel runs, first
// iteration against the steady ones, and the shared bookkeeping they need (which host call launched what).
#include <cstdint>
#include <vector>

#include "gtv/analysis/warmup.h"

namespace gtv::analysis::detail {

// Calls of one cause closer than this on one thread (or first kernel runs on one stream) form one finding.
inline constexpr TimeNs kWarmUpGroupGapNs = 1 * kNsPerMs;

// A host call with a flow to GPU work: lane index of the call and the GPU activity it launched.
struct LaunchLink {
  std::uint32_t index = 0;  // of the host call in its lane
  EventRef to;
};

// Per lane (indexed like trace.lanes()), the launches made from it, in start order.
struct LaneLaunches {
  std::vector<std::vector<LaunchLink>> all;      // any GPU activity
  std::vector<std::vector<LaunchLink>> kernels;  // kernels only
};
[[nodiscard]] LaneLaunches launches_by_lane(const Trace& trace);

// Grows findings from spans given in start order: one open finding per (cause, device), closed when the next
// span starts more than kWarmUpGroupGapNs after its end. Spans are merged as they come.
class FindingGrower {
 public:
  FindingGrower(std::int64_t pid, std::int64_t tid, bool on_gpu) : pid_(pid), tid_(tid), on_gpu_(on_gpu) {}
  // The open finding for cause and device whose last span ended at most kWarmUpGroupGapNs before start_ns.
  [[nodiscard]] const WarmUpFinding* open_near(WarmUpCause cause, std::int64_t device, TimeNs start_ns) const;
  void add(WarmUpCause cause, std::int64_t device, TimeNs start_ns, TimeNs end_ns, std::string_view name,
           TimeNs cost_ns = -1);  // cost_ns < 0: the union of the spans
  void close_all(std::vector<WarmUpFinding>& out);

 private:
  std::int64_t pid_, tid_;
  bool on_gpu_;
  std::vector<WarmUpFinding> open_;
  std::vector<WarmUpFinding> closed_;
};

[[nodiscard]] std::vector<WarmUpFinding> find_first_use_calls(const Trace& trace, const LaneLaunches& launches);
[[nodiscard]] std::vector<WarmUpFinding> find_slow_first_kernels(const Trace& trace);
[[nodiscard]] std::vector<IterationWarmUp> compare_first_iterations(const Trace& trace, const LaneLaunches& launches);
// Per GPU with a memory counter, its growth before the steady part (the region when measured, else the iterations
// after the first of the loop with the most) and inside it.
[[nodiscard]] std::vector<MemoryGrowth> find_memory_growth(const Trace& trace, const Region& region,
                                                           const std::vector<IterationWarmUp>& iterations);
// Sets first_use_ns: the thread's first-use work inside each first iteration.
void add_first_use_inside(std::vector<IterationWarmUp>& iterations, const std::vector<WarmUpFinding>& findings);

// Sentences.
[[nodiscard]] std::vector<std::string> warmup_lines(const Trace& trace, const WarmUp& w);
[[nodiscard]] std::string warmup_headline(const Trace& trace, const WarmUp& w);

}  // namespace gtv::analysis::detail
