#pragma once
// Where each event goes in the written file. Chrome viewers reject partially overlapping complete events on one
// thread, so events that overlap without nesting are moved to sibling tracks (extra tids named
// "<lane> (overlap N)") and carry args.gtv_tid so gtv reads them back into their own lane. Ranges get their own
// tracks ("gtv ranges") for the same reason.
#include <cstdint>
#include <vector>

#include "gtv/model/trace.h"

namespace gtv::io {

struct LaneLayout {
  std::vector<std::uint32_t> track;      // per event; 0 = the lane's own tid
  std::vector<std::int64_t> track_tids;  // tid written for each track; track_tids[0] = the lane's tid
};

struct RangeTrack {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
};

struct WriteLayout {
  std::vector<LaneLayout> lanes;         // per lane of the trace
  std::vector<std::int64_t> range_tids;  // per range
  std::vector<RangeTrack> range_tracks;  // distinct (pid, tid) of range tracks
};

[[nodiscard]] WriteLayout plan_layout(const Trace& trace);

}  // namespace gtv::io
