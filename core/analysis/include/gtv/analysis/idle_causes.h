#pragma once
// Why were the GPUs not busy? Inside the region of interest, every idle interval of every GPU that did work is
// cut into pieces, each attributed to one cause read from the trace: the host blocked in a named call, the host
// busy launching work for another GPU, the host busy with other work, nothing more placed on this GPU, work
// launched but waiting on another stream or event, warm-up, a peer rank.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/analysis/busy.h"
#include "gtv/analysis/host_blocking.h"
#include "gtv/analysis/region.h"
#include "gtv/analysis/stragglers.h"
#include "gtv/analysis/warmup.h"

namespace gtv::analysis {

enum class IdleCause : std::uint8_t {
  HostBlocked,          // the launching thread was blocked in a call (detail names it)
  HostLaunchingOther,   // the launching thread was busy launching work for another GPU
  HostBusy,             // the launching thread had not launched the next work yet (other work, or nothing recorded)
  NothingPlaced,        // no more work was placed on this GPU in the region (imbalance)
  WaitingOnDependency,  // work queued before the GPU went idle, not behind its own stream's work, still not
                        // started: another stream or an event held it
  WarmUp,               // the launching thread was in first-use work (detail: the warm-up cause)
  PeerRank,             // the launching thread waited for a communication (NCCL) kernel: a collective with a peer
  Unknown,              // no launch recorded for the next work (no flows)
  QueuedGap,            // the next work was queued and nothing on this GPU ran: the GPU's own start-up after the
                        // launch returned, or its gap behind finished work of the same stream (an event wait
                        // recorded inside the stream looks the same in a trace)
};
inline constexpr int kIdleCauseCount = 9;
[[nodiscard]] std::string_view to_string(IdleCause cause);  // "host blocked", "host launching for another GPU", ...
[[nodiscard]] std::string_view idle_cause_key(IdleCause cause);  // stable JSON key: "host_blocked", ...

struct IdleInterval {
  std::int64_t device = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  IdleCause cause = IdleCause::Unknown;
  std::string detail;  // "cudaMemcpyAsync to pageable memory", "module loading", "GPU 0 holds 2 of the 3 models"
};

struct IdleCauseTotal {
  std::int64_t device = 0;
  IdleCause cause = IdleCause::Unknown;
  std::string detail;  // the detail of the largest share of this total
  TimeNs total_ns = 0;
  std::size_t intervals = 0;
};

struct GpuIdle {
  std::int64_t device = 0;
  TimeNs busy_ns = 0;  // inside the region
  TimeNs idle_ns = 0;
  std::string label;  // "GPU 1"; "rank 1 · GPU 0" in a merged run
};

struct IdleCauses {
  Region region;
  std::vector<GpuIdle> gpus;            // by device: GPUs with any GPU activity in the trace
  std::vector<IdleCauseTotal> totals;   // by device, then total (largest first)
  std::vector<IdleInterval> intervals;  // by device, then start; adjacent pieces with one cause are merged
  std::vector<std::string> lines;       // one per GPU, plain words
  std::string headline;                 // the largest cause of the most idle GPU; empty when nothing is idle
};

// Every idle nanosecond of every GPU inside the region gets exactly one cause: the pieces of one GPU tile its idle
// time. O(n log n) in events and flows.
// In a merged run, stragglers (when given) name the rank a thread waiting for a collective waited for.
[[nodiscard]] IdleCauses analyze_idle_causes(const Trace& trace, const Region& region, const HostBlocking& blocking,
                                             const WarmUp& warmup, const Stragglers* stragglers = nullptr);

}  // namespace gtv::analysis
