// Waits for a peer rank on the critical path of a merged run: where the path comes back to a rank through a
// collective's transfer after running on another rank, that rank waited for the other at the collective, for as
// long as the path ran there since it last left the waiting rank.
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
};

}  // namespace

std::vector<std::string> peer_wait_lines(const Trace& trace, const CriticalPathAnalysis& a) {
  std::vector<std::string> out;
  if (trace.metadata().ranks.size() < 2) return out;
  std::map<std::pair<std::int64_t, std::int64_t>, PeerWait> waits;  // (waiting rank, awaited rank)
  const RankInfo* current = nullptr;                                // the rank the path is on
  TimeNs on_current_ns = 0;                                         // since it came there
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
    }
    if (r != current) on_current_ns = 0;
    current = r;
    on_current_ns = saturating_add(on_current_ns, s.length_ns());
  }
  for (const auto& [ranks, w] : waits)
    out.push_back("Waiting for rank " + std::to_string(ranks.second) + ": the path comes back to rank " +
                  std::to_string(ranks.first) + " through " + std::to_string(w.collectives) + " collective(s) after " +
                  format_duration(w.path_ns) + " on rank " + std::to_string(ranks.second) + " (" +
                  percent(safe_ratio(double(w.path_ns), double(a.length_ns))) + " of the path): rank " +
                  std::to_string(ranks.first) + " waited there for rank " + std::to_string(ranks.second) +
                  " to arrive.");
  return out;
}

}  // namespace gtv::analysis::detail
