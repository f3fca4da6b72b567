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

// Selection, not sorting: the estimate runs once per rank over every measuring collective.
Wide median_of(std::vector<Wide>& v) {
  const std::size_t n = v.size();
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (n % 2 == 1) return *mid;
  const Wide below = *std::max_element(v.begin(), mid);
  return below + (*mid - below) / 2;
}

// The deviation that 95% of `deviations` do not exceed (the largest when there are fewer than 20).
Wide bound_of(std::vector<Wide>& deviations) {
  const std::size_t n = deviations.size();
  const std::size_t kept = n < 20 ? n : (n * 95 + 99) / 100;
  const auto at = deviations.begin() + static_cast<std::ptrdiff_t>(kept - 1);
  std::nth_element(deviations.begin(), at, deviations.end());
  return *at;
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
  // The gaps of a block of ranks at a time, collective by collective: each collective's positions (index[r]) are
  // read in order, not one rank across every collective's list (a thousand ranks of a thousand collectives would
  // touch a new cache line each time).
  constexpr std::size_t kBlock = 64;
  std::vector<Wide> gaps(kBlock * used.size()), sorted;
  for (std::size_t from = 1; from < per_rank.size(); from += kBlock) {
    const std::size_t to = std::min(per_rank.size(), from + kBlock);
    for (std::size_t k = 0; k < used.size(); ++k) {
      const Wide reference = end_of(0, *used[k]);
      for (std::size_t r = from; r < to; ++r) gaps[(r - from) * used.size() + k] = end_of(r, *used[k]) - reference;
    }
    for (std::size_t r = from; r < to; ++r) {
      const auto first = gaps.begin() + static_cast<std::ptrdiff_t>((r - from) * used.size());
      sorted.assign(first, first + static_cast<std::ptrdiff_t>(used.size()));
      offsets[r] = median_of(sorted);
      for (Wide& g : sorted) g = g > offsets[r] ? g - offsets[r] : offsets[r] - g;
      out.ranks[r].offset_ns = clamp_to_ns(offsets[r]);
      out.ranks[r].uncertainty_ns = std::max(kResolutionNs, clamp_to_ns(bound_of(sorted)));
    }
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
