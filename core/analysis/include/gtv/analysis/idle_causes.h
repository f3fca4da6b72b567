#pragma once
// Why were the GPUs not busy? Inside the region of interest, every idle instant of every GPU that did work is given
// the cause that bounded the region at that instant: the stretch of its critical path (critical_path.h) running
// then. While a GPU idles, the region waits for whatever is on its critical path: another GPU's work (then this GPU
// had nothing to do: the work's placement), the host launching, the host's own work, a wait, lazy loading, tracing
// overhead, another rank. A wait is blamed only for as much time as removing it gives back (a replay of the run
// without it); the rest of the GPU work the host waited for is that work's own time.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/analysis/busy.h"
#include "gtv/analysis/critical_path.h"
#include "gtv/analysis/region.h"
#include "gtv/analysis/stragglers.h"
#include "gtv/base/enum_table.h"

namespace gtv::analysis {

enum class IdleCause : std::uint8_t {
  HostBlocked,          // the host waited in a call (detail names it), for as long as removing the wait gives back
  HostLaunching,        // the host was launching work (detail: for which GPU)
  HostBusy,             // the host's own work between calls, or a CUDA call that does not wait
  OtherGpuBound,        // another GPU's work bounded the region: nothing was placed on this GPU to run meanwhile
  WaitingOnDependency,  // this GPU's queued work was held by an event wait
  WarmUp,               // first-use work on the host: lazy module loading, first-use calls
  PeerRank,             // another rank's work bounded the region, or a collective's transfer
  Unknown,              // no recorded input explains the time (GPU work without a launch, a path cut short)
  QueuedGap,            // this GPU's own queued work had not started: launch latency or the gap behind finished work
  TracingOverhead,      // the tracer's own work on the host thread the region waited for (CUPTI buffer requests)
};
inline constexpr std::array<EnumEntry<IdleCause>, 10> kIdleCauses{{
    {IdleCause::HostBlocked, "host_blocked", "host blocked"},
    {IdleCause::HostLaunching, "host_launching", "host launching work"},
    {IdleCause::HostBusy, "host_busy", "host busy"},
    {IdleCause::OtherGpuBound, "other_gpu_bound", "another GPU's work bounded the region"},
    {IdleCause::WaitingOnDependency, "waiting_on_dependency", "waiting on another stream or event"},
    {IdleCause::WarmUp, "warm_up", "warm-up"},
    {IdleCause::PeerRank, "peer_rank", "waiting for a peer rank"},
    {IdleCause::Unknown, "unknown", "unknown"},
    {IdleCause::QueuedGap, "queued_gap", "queued work not started yet"},
    {IdleCause::TracingOverhead, "tracing_overhead", "tracing overhead"},
}};
static_assert(in_enum_order(kIdleCauses));
inline constexpr int kIdleCauseCount = static_cast<int>(kIdleCauses.size());
[[nodiscard]] std::string_view to_string(IdleCause cause);       // "host blocked", "host launching work", ...
[[nodiscard]] std::string_view idle_cause_key(IdleCause cause);  // stable JSON key: "host_blocked", ...

struct IdleInterval {
  std::int64_t device = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  IdleCause cause = IdleCause::Unknown;
  std::string detail;  // "cudaMemcpyAsync to pageable memory", "lazy module loading", "GPU 0 holds 2 of the 3 models"
};

struct IdleCauseTotal {
  std::int64_t device = 0;
  IdleCause cause = IdleCause::Unknown;
  std::string detail;  // the detail of the largest share of this total
  TimeNs total_ns = 0;
  std::size_t intervals = 0;
  // A cause that can be removed (a wait, lazy loading, tracing overhead, the host's own work, launches): how much
  // shorter the region would be without it (CauseSaving::saving_ns); -1 for causes with no removal (placement).
  TimeNs saving_ns = -1;
};

struct GpuIdle {
  std::int64_t device = 0;
  TimeNs busy_ns = 0;  // inside the region
  TimeNs idle_ns = 0;
  std::string label;  // "GPU 1"; "rank 1 · GPU 0" in a merged run
};

struct IdleCauses {
  Region region;
  std::vector<GpuIdle> gpus;            // by device: GPUs with GPU activity of non-zero length in the trace
  std::vector<IdleCauseTotal> totals;   // by device, then total (largest first)
  std::vector<IdleInterval> intervals;  // by device, then start; adjacent pieces with one cause are merged
  std::vector<std::string> lines;       // one per GPU, plain words
  std::string headline;                 // the largest cause of the most idle GPU; empty when nothing is idle
};

// Every idle nanosecond of every GPU inside the region gets exactly one cause: the pieces of one GPU tile its idle
// time. `critical` is the region's critical path (analyze_critical_path over the same region). In a merged run,
// `stragglers` (analyze_stragglers of the trace) says when each rank waited at a collective for another: a GPU's idle
// time is "waiting for rank N" only then, for that is all that removing rank N's lateness gives back; without it,
// all the idle time in which the path ran on rank N before coming back to the GPU's rank is.
[[nodiscard]] IdleCauses analyze_idle_causes(const Trace& trace, const Region& region,
                                             const CriticalPathAnalysis& critical,
                                             const Stragglers* stragglers = nullptr);

}  // namespace gtv::analysis
