#include "gtv/analysis/stragglers.h"

#include <algorithm>

#include "gtv/model/collectives.h"
#include "ranks/stragglers_parts.h"

namespace gtv::analysis {
namespace {

std::string rank_name(std::int64_t rank) { return "rank " + std::to_string(rank); }

// The latest arrival among the ranks other than `self` (index; one past the last: among all), the first of equals;
// -1 with one rank.
std::int64_t latest_other(const CollectiveArrivals& c, std::size_t self) {
  std::int64_t best = -1;
  for (std::size_t q = 0; q < c.arrival_ns.size(); ++q)
    if (q != self && (best < 0 || c.arrival_ns[q] > c.arrival_ns[static_cast<std::size_t>(best)]))
      best = static_cast<std::int64_t>(q);
  return best;
}

// Rank r waited for the rank (index) `peer` to arrive: the wait happened only when r's part was still running when
// the peer arrived; a part that ended before says the clocks disagree.
void wait_for(CollectiveArrivals& c, std::size_t r, std::int64_t peer) {
  const TimeNs awaited = peer < 0 ? c.arrival_ns[r] : c.arrival_ns[static_cast<std::size_t>(peer)];
  if (c.end_ns[r] < awaited) {
    c.clock_inconsistent = true;
    return;
  }
  c.wait_ns[r] = std::max<TimeNs>(0, awaited - c.arrival_ns[r]);
  c.transfer_ns[r] = c.end_ns[r] - std::max(awaited, c.arrival_ns[r]);
}

// The root's index: the rank the trace names, else for NCCL kernels the one whose part ended first (a broadcast's
// root only sends) or last (a reduce's root receives everything); -1 for Gloo's host ranges, whose ends do not
// keep that order (in the 4-rank CPU recording the parameter broadcasts from rank 0 ended first on rank 2).
std::int64_t root_of(CollectiveArrivals& c, std::int64_t root_rank, std::span<const std::int64_t> ranks, bool sends) {
  for (std::size_t r = 0; r < ranks.size(); ++r)
    if (ranks[r] == root_rank) return static_cast<std::int64_t>(r);
  if (!c.on_gpu) return -1;
  c.root_inferred = true;
  const auto it =
      sends ? std::min_element(c.end_ns.begin(), c.end_ns.end()) : std::max_element(c.end_ns.begin(), c.end_ns.end());
  return it - c.end_ns.begin();
}

void compute_waits(CollectiveArrivals& c, std::int64_t root_rank, std::span<const std::int64_t> ranks) {
  const std::size_t n = c.arrival_ns.size();
  c.wait_ns.assign(n, 0);
  c.transfer_ns.assign(n, 0);
  if (ends_together(c.kind)) {
    // latest_other for every rank from the two latest arrivals: one pass, not one per rank (1,024 ranks).
    const std::int64_t latest = latest_other(c, n);
    const std::int64_t runner_up = n > 1 ? latest_other(c, static_cast<std::size_t>(latest)) : -1;
    for (std::size_t r = 0; r < n; ++r) wait_for(c, r, static_cast<std::int64_t>(r) == latest ? runner_up : latest);
  } else if (root_sends(c.kind)) {
    c.root = root_of(c, root_rank, ranks, true);
    if (c.root < 0) {
      c.analysed = false;
      return;
    }
    for (std::size_t r = 0; r < n; ++r) wait_for(c, r, r == static_cast<std::size_t>(c.root) ? -1 : c.root);
  } else if (root_receives(c.kind)) {
    c.root = root_of(c, root_rank, ranks, false);
    if (c.root < 0) {
      c.analysed = false;
      return;
    }
    for (std::size_t r = 0; r < n; ++r) wait_for(c, r, r == static_cast<std::size_t>(c.root) ? latest_other(c, r) : -1);
  } else {
    c.analysed = false;
    return;
  }
  for (std::size_t r = 0; r < n; ++r) c.wait_caused_ns = saturating_add(c.wait_caused_ns, c.wait_ns[r]);
  if (c.wait_caused_ns == 0) return;
  // Whom the waits were for: the last arrival, a broadcast's root, the last of a reduce's senders.
  if (root_sends(c.kind))
    c.culprit = c.root;
  else if (root_receives(c.kind))
    c.culprit = latest_other(c, static_cast<std::size_t>(c.root));
  else
    c.culprit = static_cast<std::int64_t>(c.last);
}

CollectiveArrivals arrivals_of(const MatchedCollective& m, std::span<const std::span<const Collective>> per_rank,
                               std::span<const TimeNs> shift_ns, std::span<const std::int64_t> ranks) {
  CollectiveArrivals c;
  c.kind = m.kind;
  c.ordinal = m.ordinal;
  c.seq = m.seq;
  const Collective& first = per_rank[0][m.index[0]];
  c.on_gpu = first.on_gpu;
  std::int64_t root_rank = -1;
  c.arrival_ns.reserve(per_rank.size());
  c.end_ns.reserve(per_rank.size());
  c.refs.reserve(per_rank.size());
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    const Collective& own = per_rank[r][m.index[r]];
    const TimeNs shift = shift_ns.empty() ? 0 : shift_ns[r];
    c.arrival_ns.push_back(saturating_add(own.start_ns, shift));
    c.end_ns.push_back(saturating_add(own.end_ns, shift));
    c.refs.push_back(own.ref);
    if (own.root >= 0) root_rank = own.root;
  }
  c.last = static_cast<std::size_t>(std::max_element(c.arrival_ns.begin(), c.arrival_ns.end()) - c.arrival_ns.begin());
  c.spread_ns = c.arrival_ns[c.last] - *std::min_element(c.arrival_ns.begin(), c.arrival_ns.end());
  compute_waits(c, root_rank, ranks);
  return c;
}

}  // namespace

std::string collective_words(const std::string& kind) { return gtv::collective_words(kind); }

PeerWaitIntervals peer_wait_intervals(const Stragglers& s) {
  PeerWaitIntervals out;
  for (const CollectiveArrivals& c : s.collectives) {
    if (!c.analysed || c.clock_inconsistent || c.culprit < 0) continue;
    const std::int64_t awaited = s.ranks[std::size_t(c.culprit)];
    for (std::size_t i = 0; i < c.wait_ns.size() && i < s.ranks.size(); ++i)
      if (c.wait_ns[i] > 0) out[{s.ranks[i], awaited}].push_back({c.arrival_ns[i], c.arrival_ns[i] + c.wait_ns[i]});
  }
  for (auto& [ranks, waits] : out) merge_in_place(waits);
  return out;
}

TimeNs wait_within(const std::vector<Interval>& waits, TimeNs start_ns, TimeNs end_ns, std::size_t* count) {
  TimeNs total = 0;
  std::size_t n = 0;
  for (const Interval& w : waits) {
    const TimeNs a = std::max(w.start_ns, start_ns), b = std::min(w.end_ns, end_ns);
    if (a < b) total += b - a, ++n;
  }
  if (count != nullptr) *count = n;
  return total;
}

Stragglers analyze_stragglers(const Trace& trace) {
  const TraceMetadata& meta = trace.metadata();
  if (meta.ranks.size() < 2) return {};
  std::vector<std::int64_t> ranks;
  std::vector<std::vector<Collective>> per_rank;
  std::vector<std::vector<Collective>> all = collectives_by_rank(trace);
  for (std::size_t i = 0; i < meta.ranks.size(); ++i) {
    if (all[i].empty()) continue;
    ranks.push_back(meta.ranks[i].rank);
    per_rank.push_back(std::move(all[i]));
  }
  return stragglers_of(std::move(ranks), std::move(per_rank), meta.clock);
}

Stragglers stragglers_of(std::vector<std::int64_t> ranks, std::vector<std::vector<Collective>> per_rank,
                         const ClockAlignment& clock) {
  return stragglers_of(std::move(ranks), collective_views(per_rank), {}, clock, nullptr);
}

Stragglers stragglers_of(std::vector<std::int64_t> ranks, std::vector<std::vector<Collective>> per_rank,
                         const ClockAlignment& clock, const CollectiveMatch& match) {
  return stragglers_of(std::move(ranks), collective_views(per_rank), {}, clock, &match);
}

Stragglers stragglers_of(std::vector<std::int64_t> ranks, std::span<const std::span<const Collective>> per_rank,
                         std::span<const TimeNs> shift_ns, const ClockAlignment& clock, const CollectiveMatch* given) {
  CollectiveMatch matched_here;
  if (given == nullptr) {
    std::vector<std::string> names;
    names.reserve(ranks.size());
    for (std::int64_t rank : ranks) names.push_back(rank_name(rank));
    matched_here = match_collectives(per_rank, names);
  }
  const CollectiveMatch& match = given == nullptr ? matched_here : *given;
  Stragglers s;
  s.ranks = std::move(ranks);
  s.count_differences = match.count_differences;
  s.by_sequence = match.by_sequence;
  s.match_basis = gtv::match_basis(match);
  if (match.matched.empty()) return s;
  s.clock_residual_ns = clock.residual_ns;
  s.clock = estimate_clocks(per_rank, match, shift_ns);
  s.per_rank.resize(s.ranks.size());
  for (std::size_t r = 0; r < s.ranks.size(); ++r) {
    s.per_rank[r].rank = s.ranks[r];
    s.per_rank[r].clock_offset_ns = s.clock.ranks[r].offset_ns;
    s.per_rank[r].clock_uncertainty_ns = s.clock.ranks[r].uncertainty_ns;
  }
  s.collectives.reserve(match.matched.size());
  for (const MatchedCollective& m : match.matched) {
    CollectiveArrivals c = arrivals_of(m, per_rank, shift_ns, s.ranks);
    for (std::size_t r = 0; r < s.ranks.size(); ++r)
      s.per_rank[r].waited_ns = saturating_add(s.per_rank[r].waited_ns, c.wait_ns.empty() ? 0 : c.wait_ns[r]);
    if (c.culprit >= 0) {
      RankWaits& w = s.per_rank[static_cast<std::size_t>(c.culprit)];
      ++w.arrived_last;
      w.caused_ns = saturating_add(w.caused_ns, c.wait_caused_ns);
    }
    if (c.clock_inconsistent) ++s.clock_inconsistent;
    s.collectives.push_back(std::move(c));
  }
  detail::write_straggler_lines(clock.method, s);
  return s;
}

}  // namespace gtv::analysis
