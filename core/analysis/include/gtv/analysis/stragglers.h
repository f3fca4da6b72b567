#pragma once
// Who made whom wait, in a run merged from per-rank files: the k-th collective of each kind is matched across the
// ranks (gtv/model/collectives.h); a rank arrives at it when its collective kernel starts on its GPU (the stream
// reached it: the rank's own work before it is done); the kernel then waits inside for the last rank to arrive.
// Per collective: each rank's arrival, the last rank, and the wait it caused the others (the sum over them of last
// arrival - their arrival). Per rank: how often it arrived last, the wait it caused and the wait it spent. Times are
// on the merged clock, so differences below its residual (TraceMetadata::clock) are within its uncertainty.
#include <cstdint>
#include <string>
#include <vector>

#include "gtv/model/trace.h"

namespace gtv::analysis {

struct CollectiveArrivals {
  std::string kind;                // "AllReduce"
  std::size_t ordinal = 0;         // k-th of its kind, from 0
  bool on_gpu = true;              // NCCL kernels; false: Gloo ranges on the hosts
  std::vector<TimeNs> arrival_ns;  // per rank (in the order of Stragglers::ranks): its kernel's start
  std::vector<TimeNs> end_ns;      // and end
  std::vector<EventRef> refs;      // and the kernel or range
  std::size_t last = 0;            // the rank (index) that arrived last
  TimeNs spread_ns = 0;            // last arrival - first arrival
  TimeNs wait_caused_ns = 0;       // sum over the other ranks of (last arrival - their arrival)
};

struct RankWaits {
  std::int64_t rank = 0;
  std::size_t arrived_last = 0;  // collectives at which it was last
  TimeNs caused_ns = 0;          // the others' wait at those
  TimeNs waited_ns = 0;          // its own wait, over all matched collectives
};

struct Stragglers {
  std::vector<std::int64_t> ranks;  // ranks of the run that ran collectives, by rank
  std::vector<CollectiveArrivals> collectives;
  std::vector<RankWaits> per_rank;
  std::vector<std::string> count_differences;  // kinds whose counts differ between ranks
  TimeNs clock_residual_ns = -1;
  std::string headline;            // names the straggler; empty when there is none to name
  std::vector<std::string> lines;  // empty when the trace is not a merged run with matched collectives
};

[[nodiscard]] Stragglers analyze_stragglers(const Trace& trace);

// "all-reduce" for "AllReduce", "send/receive" for "SendRecv"; the kind itself for kinds it does not know.
[[nodiscard]] std::string collective_words(const std::string& kind);

}  // namespace gtv::analysis
