#pragma once
// The checks that make several ranks one run, and their clocks put on one axis: what merging the rank files
// (rank_merge.h) and reducing their summaries (gtv/ranks/reduce.h) both do, from what each rank tells of itself
// (its distributedInfo, clock anchor, recorded range and collectives), with the same errors, warnings and words.
//
// First check_rank_run: ranks from each side's distributedInfo (else the order of the sides), no rank twice, one
// world size, no rank outside it, shifts by hand only for ranks present, recordings not far apart; the collectives
// matched across the ranks. Then align_rank_clocks: every rank moved onto the earliest origin, then by the clock
// method, then by hand; the result checked to stay inside the trace time range; the residual and the basis of the
// alignment in words; on the wall clock, a warning when some rank's collectives say its clock is off.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/model/collectives.h"
#include "gtv/model/rank_merge.h"
#include "gtv/model/trace.h"

namespace gtv {

// One rank as it tells of itself.
struct RankSide {
  std::string name;             // what errors call it: the file the user gave
  std::string source;           // the trace it is of (warnings of backends, the time range error)
  DistributedInfo distributed;  // rank -1 when the file does not say
  TimeNs origin_unix_ns = 0;    // its time 0 on its host's wall clock
  TimeNs start_ns = 0;          // its first and last recorded activity, on its own clock
  TimeNs end_ns = 0;
  std::span<const Collective> collectives;  // in start order, on its own clock
};

// The sides of one run in rank order, checked, with their collectives matched.
struct RankRun {
  std::int64_t world_size = 0;
  std::vector<std::size_t> side;  // per rank: the index of its side among those given
  std::vector<std::int64_t> rank;
  // The ranks' collectives (in rank order, on their own clocks), matched across ranks named "rank R": moving a
  // rank's times keeps their order, so the match holds for every alignment.
  CollectiveMatch match;
};

// Errors (one line, naming the sides): a rank twice, some sides with distributedInfo and some without, world sizes
// that disagree, a rank outside its world, a shift by hand for a rank that no side holds, recordings far apart.
// Warnings: ranks numbered by the order of the sides, backends that differ, ranks missing from the world, why
// the sequence numbers did not match the collectives.
[[nodiscard]] Expected<RankRun> check_rank_run(std::span<const RankSide> sides, const RankMergeOptions& options,
                                               std::vector<std::string>& warnings);

struct RankClocks {
  TimeNs origin_unix_ns = 0;            // the run's time 0: the earliest origin
  std::vector<TimeNs> shift_ns;         // per rank (in rank order): added to its times to put them on the run's clock
  std::vector<TimeNs> clock_offset_ns;  // of which the clock method's alignment and the shift by hand
  ClockAlignment clock;                 // method, basis in words, residual, collectives checked
};

// Errors: collectives alignment without a matched collective that ends together, a rank moved outside the trace
// time range. Warning, on the wall clock: the rank whose collectives say its clock is off.
[[nodiscard]] Expected<RankClocks> align_rank_clocks(std::span<const RankSide> sides, const RankRun& run,
                                                     const RankMergeOptions& options,
                                                     std::vector<std::string>& warnings);

}  // namespace gtv
