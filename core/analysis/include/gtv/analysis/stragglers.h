#pragma once
// Who made whom wait, in a run merged from per-rank files. Collectives are matched across the ranks by sequence
// number, else by process group, kind, size and order (gtv/model/collectives.h). A rank arrives at a collective when
// its collective kernel starts on its GPU (its stream reached it: the rank's own work before it is done) or, on
// Gloo, when its range starts on the host. What a rank then waits for depends on the collective:
//   all-reduce, all-gather, reduce-scatter, barrier, all-to-all: every rank waits for the last rank to arrive;
//   broadcast, scatter: the root only sends and waits for nobody; the others wait for the root;
//   reduce, gather: the root receives and waits for the last of the others; the others wait for nobody.
// Per collective and rank: the arrival, the wait for peers (only a wait that happened: the rank's part was still
// running when the one it needed arrived), the transfer after that, the skew of arrivals; the culprit (the rank
// the others waited for) and its victims. A rank's part that ended before the rank it needs arrived says the
// clocks disagree: its wait is unknown and not counted. Clock offsets and their error bars come from the
// collectives that end together (gtv/model/collective_clock.h).
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "gtv/analysis/intervals.h"
#include "gtv/model/collective_clock.h"
#include "gtv/model/trace.h"

namespace gtv::analysis {

struct CollectiveArrivals {
  std::string kind;                 // "AllReduce"
  std::size_t ordinal = 0;          // k-th of its kind on the first rank, from 0
  std::int64_t seq = -1;            // its sequence number, when matched by one
  bool on_gpu = true;               // NCCL kernels; false: Gloo ranges on the hosts
  std::vector<TimeNs> arrival_ns;   // per rank (in the order of Stragglers::ranks): its kernel's start
  std::vector<TimeNs> end_ns;       // and end
  std::vector<EventRef> refs;       // and the kernel or range
  std::vector<TimeNs> wait_ns;      // the wait for peers that happened (0: none, or unknown)
  std::vector<TimeNs> transfer_ns;  // from the later of its arrival and what it waited for, to its end
  std::int64_t root = -1;           // broadcast, reduce...: the root (index); -1 for other kinds
  bool root_inferred = false;       // the trace does not say the root: the rank that ended first (a broadcast's)
                                    // or last (a reduce's)
  bool analysed = true;             // false: a kind whose waits gtv cannot tell (send/receive, unknown NCCL)
  std::size_t last = 0;             // the rank (index) that arrived last
  TimeNs spread_ns = 0;             // skew: last arrival - first arrival
  std::int64_t culprit = -1;        // the rank (index) the others waited for; -1 when nobody waited
  TimeNs wait_caused_ns = 0;        // the sum of the waits that happened
  bool clock_inconsistent = false;  // some rank's part ended before the rank it needs arrived
};

struct RankWaits {
  std::int64_t rank = 0;
  std::size_t arrived_last = 0;  // collectives at which the others waited for it
  TimeNs caused_ns = 0;          // the others' wait at those
  TimeNs waited_ns = 0;          // its own wait, over all matched collectives
  // What the collectives that end together say of its clock against the first rank's, as merged: offset
  // +/- uncertainty; uncertainty -1 when none measures it.
  TimeNs clock_offset_ns = 0;
  TimeNs clock_uncertainty_ns = -1;
};

struct Stragglers {
  std::vector<std::int64_t> ranks;  // ranks of the run that ran collectives, by rank
  std::vector<CollectiveArrivals> collectives;
  std::vector<RankWaits> per_rank;
  std::vector<std::string> count_differences;  // kinds whose counts differ between ranks
  bool by_sequence = false;                    // matched by sequence number
  std::string match_basis;                     // what matched them (collectives.h match_basis)
  ClockEstimate clock;                         // from the collectives that end together
  TimeNs clock_residual_ns = -1;               // TraceMetadata::clock's
  std::size_t clock_inconsistent = 0;          // collectives whose waits the clocks contradict
  std::string headline;                        // names the straggler; empty when there is none to name
  std::vector<std::string> lines;              // empty when the trace is not a merged run with matched collectives
};

[[nodiscard]] Stragglers analyze_stragglers(const Trace& trace);

// The same from each rank's collectives, without the trace: ranks[i] is the rank whose collectives (on the run's
// one clock, in start order) are per_rank[i], in rank order, ranks without collectives left out; clock is how the
// run's clocks were put on that one clock (TraceMetadata::clock). What a reduction of rank summaries computes;
// analyze_stragglers is this on the collectives it finds in the trace.
[[nodiscard]] Stragglers stragglers_of(std::vector<std::int64_t> ranks, std::vector<std::vector<Collective>> per_rank,
                                       const ClockAlignment& clock);
// The same with the collectives already matched (match_collectives of per_rank, ranks named "rank R"): moving a
// rank's times keeps their order, so a match made before the clocks were aligned still holds.
[[nodiscard]] Stragglers stragglers_of(std::vector<std::int64_t> ranks, std::vector<std::vector<Collective>> per_rank,
                                       const ClockAlignment& clock, const CollectiveMatch& match);
// The same on lists held elsewhere (rank summaries), each on its rank's own clock: shift_ns[i] moves ranks[i]'s
// times onto the run's (saturating), without copying the lists. match: as above, or null to match them here.
[[nodiscard]] Stragglers stragglers_of(std::vector<std::int64_t> ranks,
                                       std::span<const std::span<const Collective>> per_rank,
                                       std::span<const TimeNs> shift_ns, const ClockAlignment& clock,
                                       const CollectiveMatch* match);

// When each rank waited at a matched collective for the rank it waited for (the last arrival, or the root): per
// (rank, awaited rank), the merged intervals [its arrival, its arrival + the wait that happened). Collectives whose
// clocks disagree, or whose waits gtv cannot tell, are left out.
using PeerWaitIntervals = std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Interval>>;
[[nodiscard]] PeerWaitIntervals peer_wait_intervals(const Stragglers& stragglers);
// The time of `waits` inside [start_ns, end_ns), and how many of the intervals reach into it.
[[nodiscard]] TimeNs wait_within(const std::vector<Interval>& waits, TimeNs start_ns, TimeNs end_ns,
                                 std::size_t* count = nullptr);

// "all-reduce" for "AllReduce", "send/receive" for "SendRecv"; the kind itself for kinds it does not know.
[[nodiscard]] std::string collective_words(const std::string& kind);

}  // namespace gtv::analysis
