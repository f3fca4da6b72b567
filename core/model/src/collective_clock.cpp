#include "gtv/model/collective_clock.h"

#include <algorithm>
#include <limits>

namespace gtv {
namespace {

__extension__ using Wide = __int128;

// No offset is known better than Kineto's timestamps tell times apart (microseconds, written with 3 decimals but
// taken from a microsecond clock on many systems): a single collective, or ends that agree exactly, still leave
// this much.
constexpr TimeNs kResolutionNs = 1000;

TimeNs clamp_to_ns(Wide v) {
  if (v > std::numeric_limits<TimeNs>::max()) return std::numeric_limits<TimeNs>::max();
  if (v < std::numeric_limits<TimeNs>::min()) return std::numeric_limits<TimeNs>::min();
  return static_cast<TimeNs>(v);
}

Wide median_of(std::vector<Wide>& v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

// The deviation that 95% of `deviations` do not exceed (the largest when there are fewer than 20).
Wide bound_of(std::vector<Wide>& deviations) {
  std::sort(deviations.begin(), deviations.end());
  const std::size_t n = deviations.size();
  const std::size_t kept = n < 20 ? n : (n * 95 + 99) / 100;
  return deviations[kept - 1];
}

}  // namespace

std::string collective_words(std::string_view kind) {
  static const std::map<std::string, std::string, std::less<>> words{
      {"AllReduce", "all-reduce"}, {"AllGather", "all-gather"}, {"ReduceScatter", "reduce-scatter"},
      {"Broadcast", "broadcast"},  {"Reduce", "reduce"},        {"SendRecv", "send/receive"},
      {"AllToAll", "all-to-all"},  {"Gather", "gather"},        {"Scatter", "scatter"},
      {"Barrier", "barrier"},      {"NCCL", "NCCL kernel"}};
  const auto it = words.find(kind);
  return it == words.end() ? std::string(kind) : it->second;
}

std::string collective_count(std::string_view kind, std::size_t count) {
  return std::to_string(count) + " " + collective_words(kind) + (count == 1 ? "" : "s");
}

std::string ClockEstimate::basis_words() const {
  if (kinds.empty()) return "no all-reduce, all-gather, reduce-scatter or barrier";
  std::string out;
  std::size_t i = 0;
  for (const auto& [kind, count] : kinds) {
    out += (i == 0 ? "" : i + 1 == kinds.size() ? " and " : ", ") + collective_count(kind, count);
    ++i;
  }
  return out;
}

std::int64_t ClockEstimate::misaligned_rank() const {
  constexpr TimeNs kFloorNs = 100'000;
  std::int64_t worst = -1;
  double worst_ratio = 0;
  for (std::size_t r = 1; r < ranks.size(); ++r) {
    const RankClockEstimate& e = ranks[r];
    if (e.uncertainty_ns < 0) continue;
    const TimeNs offset = e.offset_ns < 0 ? saturating_sub(0, e.offset_ns) : e.offset_ns;
    const TimeNs limit = std::max(kFloorNs, saturating_add(saturating_add(e.uncertainty_ns, e.uncertainty_ns),
                                                           saturating_add(e.uncertainty_ns, e.uncertainty_ns)));
    if (offset <= limit) continue;
    const double ratio = static_cast<double>(offset) / static_cast<double>(limit);
    if (worst < 0 || ratio > worst_ratio) worst = static_cast<std::int64_t>(r), worst_ratio = ratio;
  }
  return worst;
}

ClockEstimate estimate_clocks(std::span<const std::vector<Collective>> per_rank, const CollectiveMatch& match,
                              std::span<const TimeNs> shift_ns) {
  return estimate_clocks(collective_views(per_rank), match, shift_ns);
}

ClockEstimate estimate_clocks(std::span<const std::span<const Collective>> per_rank, const CollectiveMatch& match,
                              std::span<const TimeNs> shift_ns) {
  ClockEstimate out;
  out.ranks.resize(per_rank.size());
  if (per_rank.empty()) return out;
  const auto end_of = [&](std::size_t r, const MatchedCollective& m) {
    return Wide{per_rank[r][m.index[r]].end_ns} + (shift_ns.empty() ? 0 : shift_ns[r]);
  };
  std::vector<const MatchedCollective*> used;
  for (const MatchedCollective& m : match.matched)
    if (measures_clocks(m.kind)) {
      used.push_back(&m);
      ++out.kinds[m.kind];
    }
  out.collectives = used.size();
  if (used.empty()) return out;
  out.ranks[0].uncertainty_ns = 0;
  std::vector<Wide> offsets(per_rank.size(), 0);
  std::vector<Wide> gaps;
  gaps.reserve(used.size());
  for (std::size_t r = 1; r < per_rank.size(); ++r) {
    gaps.clear();
    for (const MatchedCollective* m : used) gaps.push_back(end_of(r, *m) - end_of(0, *m));
    std::vector<Wide> sorted = gaps;
    offsets[r] = median_of(sorted);
    for (Wide& g : gaps) g = g > offsets[r] ? g - offsets[r] : offsets[r] - g;
    out.ranks[r].offset_ns = clamp_to_ns(offsets[r]);
    out.ranks[r].uncertainty_ns = std::max(kResolutionNs, clamp_to_ns(bound_of(gaps)));
  }
  Wide residual = 0;
  for (const MatchedCollective* m : used) {
    Wide lo = end_of(0, *m), hi = lo;
    for (std::size_t r = 1; r < per_rank.size(); ++r) {
      lo = std::min(lo, end_of(r, *m) - offsets[r]);
      hi = std::max(hi, end_of(r, *m) - offsets[r]);
    }
    residual = std::max(residual, hi - lo);
  }
  out.residual_ns = clamp_to_ns(residual);
  return out;
}

}  // namespace gtv
