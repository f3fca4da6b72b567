// Waits for a peer rank on the critical path of a merged run: where the path comes back to a rank through a
// collective's transfer after running on another rank, that rank waited for the other at the collective. The time
// the path ran there since it last left the waiting rank is not that wait: the waiting rank did its own work, off
// the path, until it arrived; what it waited is the collectives' arrivals' (stragglers.h), said beside it.
#include <algorithm>
#include <map>
#include <utility>

#include "causes/critical_path_parts.h"
#include "gtv/analysis/format.h"

namespace gtv::analysis::detail {
namespace {

const RankInfo* rank_of(const Trace& trace, const PathSegment& s) {
  if (!s.has_event) return nullptr;
  const Lane& lane = trace.lane(s.event.lane);
  return lane.is_gpu() ? trace.rank_of_device(lane.device()) : trace.rank_of_pid(lane.key.pid);
}

struct PeerWait {
  std::size_t collectives = 0;
  TimeNs path_ns = 0;  // path time on the awaited rank before the path came back
  TimeNs wait_ns = 0;  // the waiting rank's waits for the awaited rank in that time
  std::size_t waits = 0;
};

}  // namespace

std::vector<std::string> peer_wait_lines(const Trace& trace, const CriticalPathAnalysis& a,
                                         const Stragglers* stragglers) {
  std::vector<std::string> out;
  if (trace.metadata().ranks.size() < 2) return out;
  std::map<std::pair<std::int64_t, std::int64_t>, PeerWait> waits;  // (waiting rank, awaited rank)
  const PeerWaitIntervals intervals = stragglers != nullptr ? peer_wait_intervals(*stragglers) : PeerWaitIntervals{};
  bool waits_known = false;
  if (stragglers != nullptr)
    for (const CollectiveArrivals& c : stragglers->collectives)
      waits_known = waits_known || (c.analysed && !c.clock_inconsistent);
  const RankInfo* current = nullptr;  // the rank the path is on
  TimeNs on_current_ns = 0;           // since it came there
  TimeNs came_ns = 0;                 // when it came there
  for (const PathSegment& s : a.segments) {
    const RankInfo* r = rank_of(trace, s);
    if (r == nullptr) {
      on_current_ns += s.length_ns();
      continue;
    }
    if (current != nullptr && r != current && s.kind == causal::SegmentKind::Communication) {
      PeerWait& w = waits[{r->rank, current->rank}];
      ++w.collectives;
      w.path_ns = saturating_add(w.path_ns, on_current_ns);
      if (const auto it = intervals.find({r->rank, current->rank}); it != intervals.end()) {
        std::size_t n = 0;
        w.wait_ns += wait_within(it->second, came_ns, s.start_ns, &n);
        w.waits += n;
      }
    }
    if (r != current) on_current_ns = 0, came_ns = s.start_ns;
    current = r;
    on_current_ns = saturating_add(on_current_ns, s.length_ns());
  }
  for (const auto& [ranks, w] : waits) {
    const std::string rank = std::to_string(ranks.first), peer = std::to_string(ranks.second);
    std::string line = "Waiting for rank ";
    line += peer;
    line += ": the path comes back to rank ";
    line += rank;
    line += " through ";
    line += std::to_string(w.collectives);
    line += " collective(s) after ";
    line += format_duration(w.path_ns);
    line += " on rank ";
    line += peer;
    line += " (";
    line += percent(safe_ratio(double(w.path_ns), double(a.length_ns)));
    line += " of the path): rank ";
    line += rank;
    line += " waited there for rank ";
    line += peer;
    line += " to arrive";
    if (waits_known) {
      line += "; in that time it waited for rank ";
      line += peer;
      line += ' ';
      line += format_duration(w.wait_ns);
      line += " (at ";
      line += std::to_string(w.waits);
      line += " collective(s)) and was not waiting for it the other ";
      line += format_duration(std::max<TimeNs>(0, w.path_ns - w.wait_ns));
    }
    line += '.';
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace gtv::analysis::detail
