#include "gtv/analysis/stragglers.h"

#include <algorithm>
#include <map>

#include "gtv/analysis/format.h"
#include "gtv/model/collectives.h"

namespace gtv::analysis {
namespace {

std::string rank_name(std::int64_t rank) { return "rank " + std::to_string(rank); }

// "all-reduces" when every matched collective is one kind, else "collectives".
std::string plural_of(const std::vector<CollectiveArrivals>& collectives) {
  const bool one_kind = std::all_of(collectives.begin(), collectives.end(),
                                    [&](const CollectiveArrivals& c) { return c.kind == collectives[0].kind; });
  return one_kind ? collective_words(collectives[0].kind) + "s" : "collectives";
}

void write_lines(const Trace& trace, Stragglers& s) {
  const std::string what = plural_of(s.collectives);
  const RankWaits* top = &s.per_rank[0];
  for (const RankWaits& w : s.per_rank)
    if (w.caused_ns > top->caused_ns) top = &w;
  if (top->caused_ns > 0 && top->arrived_last * 2 > s.collectives.size()) {
    TimeNs others_ns = 0;
    for (const CollectiveArrivals& c : s.collectives)
      if (s.ranks[c.last] == top->rank) others_ns = saturating_add(others_ns, c.wait_caused_ns);
    s.headline = "Rank " + std::to_string(top->rank) + " arrived last at " + std::to_string(top->arrived_last) +
                 " of " + std::to_string(s.collectives.size()) + " " + what + "; the others waited " +
                 format_duration(others_ns) + " in total for it.";
  } else if (s.per_rank.size() > 1) {
    s.headline = "No rank arrived last at most " + what + " (" + rank_name(top->rank) + " at " +
                 std::to_string(top->arrived_last) + " of " + std::to_string(s.collectives.size()) +
                 "): no single straggler.";
  }
  if (!s.headline.empty()) s.lines.push_back(s.headline);
  for (const RankWaits& w : s.per_rank)
    s.lines.push_back(rank_name(w.rank) + ": last at " + std::to_string(w.arrived_last) + " of " +
                      std::to_string(s.collectives.size()) + " " + what + ", the others waited " +
                      format_duration(w.caused_ns) + " for it; it waited " + format_duration(w.waited_ns) +
                      " for the others.");
  for (const std::string& d : s.count_differences) s.lines.push_back("Counts differ: " + d + ".");
  const bool host =
      std::any_of(s.collectives.begin(), s.collectives.end(), [](const CollectiveArrivals& c) { return !c.on_gpu; });
  std::string basis = std::string("A rank arrives at a collective when ") +
                      (host ? "its Gloo range starts on its host (Gloo runs collectives there)"
                            : "its collective kernel starts on its GPU") +
                      "; the k-th collective of each kind is matched across ranks; a rank's wait is the last "
                      "arrival minus its own.";
  if (s.clock_residual_ns >= 0)
    basis += " Clock: " + trace.metadata().clock.method + ", ends of one collective within " +
             format_duration(s.clock_residual_ns) + " of each other: smaller differences are within its uncertainty.";
  s.lines.push_back(std::move(basis));
}

}  // namespace

std::string collective_words(const std::string& kind) {
  static const std::map<std::string, std::string, std::less<>> words{
      {"AllReduce", "all-reduce"}, {"AllGather", "all-gather"}, {"ReduceScatter", "reduce-scatter"},
      {"Broadcast", "broadcast"},  {"Reduce", "reduce"},        {"SendRecv", "send/receive"},
      {"AllToAll", "all-to-all"},  {"Gather", "gather"},        {"Scatter", "scatter"},
      {"NCCL", "NCCL kernel"}};
  const auto it = words.find(kind);
  return it == words.end() ? kind : it->second;
}

Stragglers analyze_stragglers(const Trace& trace) {
  Stragglers s;
  const TraceMetadata& meta = trace.metadata();
  if (meta.ranks.size() < 2) return s;
  std::vector<std::vector<Collective>> per_rank;
  std::vector<std::string> names;
  std::vector<std::vector<Collective>> all = collectives_by_rank(trace);
  for (std::size_t i = 0; i < meta.ranks.size(); ++i) {
    if (all[i].empty()) continue;
    s.ranks.push_back(meta.ranks[i].rank);
    names.push_back(rank_name(meta.ranks[i].rank));
    per_rank.push_back(std::move(all[i]));
  }
  const CollectiveMatch match = match_collectives(per_rank, names);
  s.count_differences = match.count_differences;
  if (match.matched.empty()) return s;
  s.clock_residual_ns = meta.clock.residual_ns;
  s.per_rank.resize(s.ranks.size());
  for (std::size_t r = 0; r < s.ranks.size(); ++r) s.per_rank[r].rank = s.ranks[r];
  for (const MatchedCollective& m : match.matched) {
    CollectiveArrivals c;
    c.kind = m.kind;
    c.ordinal = m.ordinal;
    c.on_gpu = per_rank[0][m.index[0]].on_gpu;
    for (std::size_t r = 0; r < per_rank.size(); ++r) {
      c.arrival_ns.push_back(per_rank[r][m.index[r]].start_ns);
      c.end_ns.push_back(per_rank[r][m.index[r]].end_ns);
      c.refs.push_back(per_rank[r][m.index[r]].ref);
    }
    c.last =
        static_cast<std::size_t>(std::max_element(c.arrival_ns.begin(), c.arrival_ns.end()) - c.arrival_ns.begin());
    c.spread_ns = c.arrival_ns[c.last] - *std::min_element(c.arrival_ns.begin(), c.arrival_ns.end());
    for (std::size_t r = 0; r < per_rank.size(); ++r) {
      const TimeNs wait = c.arrival_ns[c.last] - c.arrival_ns[r];
      c.wait_caused_ns = saturating_add(c.wait_caused_ns, wait);
      s.per_rank[r].waited_ns = saturating_add(s.per_rank[r].waited_ns, wait);
    }
    ++s.per_rank[c.last].arrived_last;
    s.per_rank[c.last].caused_ns = saturating_add(s.per_rank[c.last].caused_ns, c.wait_caused_ns);
    s.collectives.push_back(std::move(c));
  }
  write_lines(trace, s);
  return s;
}

}  // namespace gtv::analysis
