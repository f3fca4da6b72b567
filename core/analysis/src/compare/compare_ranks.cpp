// The comparison's note on ranks: two files that are ranks of one distributed run are not two runs to compare.
#include "gtv/analysis/compare.h"

namespace gtv::analysis {
namespace {

// Absolute [start, end] of a trace's recording, in Unix ns.
std::pair<TimeNs, TimeNs> absolute_span(const Trace& t) {
  const TimeNs origin = t.metadata().origin_unix_ns;
  return {saturating_add(origin, t.start_ns()), saturating_add(origin, t.end_ns())};
}

}  // namespace

std::optional<std::string> same_run_warning(const Trace& a, const Trace& b, const std::string& label_a,
                                            const std::string& label_b) {
  const DistributedInfo& da = a.metadata().distributed;
  const DistributedInfo& db = b.metadata().distributed;
  if (da.rank < 0 || db.rank < 0 || da.rank == db.rank || da.world_size != db.world_size) return std::nullopt;
  const auto [a_start, a_end] = absolute_span(a);
  const auto [b_start, b_end] = absolute_span(b);
  if (a_start > b_end || b_start > a_end) return std::nullopt;  // recorded at different times: two runs
  return label_a + " and " + label_b + " are ranks " + std::to_string(da.rank) + " and " + std::to_string(db.rank) +
         " of one run (world size " + std::to_string(da.world_size) +
         ", recorded at the same time): their difference is what one rank waited for the other, not a speedup; "
         "merge the two files (gtv-cli merge) to see who waited for whom.";
}

}  // namespace gtv::analysis
