#pragma once
// The per-rank files of one torch.distributed run as one trace: ranks from each file's distributedInfo (else the
// order of the files), checked against each other; GPU ids and host pids renumbered where ranks repeat them (ranks
// on several hosts, or each seeing its GPU as cuda:0); every rank's times put on one clock by an explicit method
// whose basis and residual are recorded in TraceMetadata::clock.
//
// Clocks. Kineto writes times on the host's wall clock (baseTimeNanoseconds + ts), gtv on CLOCK_REALTIME: ranks
// of one host share it exactly. Hosts differ by their clocks' offset (NTP keeps it near a millisecond). A
// collective ends at nearly the same moment on every rank (the last data a rank receives completes it everywhere),
// so the ends of matched collectives measure the offset: ClockMethod::Collectives moves each rank by the median of
// (rank's end - first rank's end) over them. Either way the residual, the largest spread of one matched
// collective's ends after alignment, says how well the clocks agree.
#include <map>
#include <span>
#include <string>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/model/trace.h"

namespace gtv {

struct RankFile {
  const Trace* trace = nullptr;
  std::string source;  // the file's name, for messages and RankInfo::source
};

enum class ClockMethod : std::uint8_t { WallClock, Collectives };

struct RankMergeOptions {
  ClockMethod clock = ClockMethod::WallClock;
  std::map<std::int64_t, TimeNs> manual_shift_ns;  // by rank, added after the method's alignment
  // Files whose recordings start further apart than this are refused as different runs unless allowed.
  TimeNs max_start_gap_ns = 3600LL * 1000 * 1000 * 1000;
  bool allow_far_apart = false;
  std::vector<std::string> notes;  // added to the merged trace's notes (what the caller knows about the run)
};

struct RankMerge {
  Trace trace;
  std::vector<std::string> warnings;  // one line each: ranks missing, ranks numbered by file order, ...
};

// Errors (one line, naming the files): fewer than two files, a rank twice, world sizes that disagree, a rank
// outside its world, a file that is already a merged run, some files with distributedInfo and some without,
// recordings hours apart, clock alignment on collectives without matched collectives.
[[nodiscard]] Expected<RankMerge> merge_ranks(std::span<const RankFile> files, const RankMergeOptions& options = {});

}  // namespace gtv
