#include <algorithm>
#include <numeric>

#include "report_document.h"

namespace gtv::analysis::detail {
namespace {

// The collectives with the largest spread of arrivals first.
std::vector<std::size_t> by_spread(const Stragglers& s) {
  std::vector<std::size_t> order(s.collectives.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return s.collectives[a].spread_ns > s.collectives[b].spread_ns;
  });
  return order;
}

}  // namespace

// Only merged runs have this section: the ranks, how their clocks were aligned, and who made whom wait.
Section ranks_section(const Report& r, Listing listing) {
  if (r.summary.ranks.empty()) return {};
  std::vector<std::string> lines{"Ranks: " + ranks_text(r.summary) + ".",
                                 "Clock: " + r.summary.clock.method + ". " + r.summary.clock.basis};
  const Stragglers& s = r.stragglers;
  if (s.collectives.empty()) {
    lines.emplace_back(s.ranks.empty() ? "No collectives in these files (no NCCL kernels, no Gloo ranges): no "
                                         "arrivals to compare."
                                       : "No collective kind ran on every rank: no arrivals to compare.");
    for (const std::string& d : s.count_differences) lines.push_back("Counts differ: " + d + ".");
    return Section{"Ranks and collectives", std::move(lines), {}};
  }
  lines.insert(lines.end(), s.lines.begin(), s.lines.end());
  Section section{"Ranks and collectives", std::move(lines), {}};
  Table table;
  table.header = {"collective", "first arrival at", "last rank", "spread of arrivals", "others waited"};
  table.right_aligned = {false, true, false, true, true};
  const std::vector<std::size_t> order = by_spread(s);
  const std::size_t shown = listing == Listing::All ? order.size() : std::min(order.size(), kMaxTableRows);
  for (std::size_t i = 0; i < shown; ++i) {
    const CollectiveArrivals& c = s.collectives[order[i]];
    table.rows.push_back({collective_words(c.kind) + " #" + std::to_string(c.ordinal + 1),
                          at(r, *std::min_element(c.arrival_ns.begin(), c.arrival_ns.end())),
                          "rank " + std::to_string(s.ranks[c.last]), format_duration(c.spread_ns),
                          format_duration(c.wait_caused_ns)});
  }
  table.note = more_rows_note(order.size(), shown, "collectives");
  section.tables.push_back(std::move(table));
  return section;
}

void ranks_json(JsonWriter& w, const Report& r) {
  if (r.summary.ranks.empty()) return;
  const Stragglers& s = r.stragglers;
  w.key("stragglers").begin_object().field("headline", s.headline).key("ranks").begin_array();
  for (const RankWaits& rank : s.per_rank)
    w.begin_object()
        .field("rank", rank.rank)
        .field("arrived_last", U(rank.arrived_last))
        .field("caused_ns", rank.caused_ns)
        .field("waited_ns", rank.waited_ns)
        .end_object();
  w.end_array().key("collectives").begin_array();
  for (std::size_t i = 0; i < s.collectives.size() && i < kMaxJsonRows; ++i) {
    const CollectiveArrivals& c = s.collectives[i];
    w.begin_object().field("kind", c.kind).field("ordinal", U(c.ordinal)).key("arrival_ns").begin_array();
    for (TimeNs t : c.arrival_ns) w.value(t);
    w.end_array().key("end_ns").begin_array();
    for (TimeNs t : c.end_ns) w.value(t);
    w.end_array()
        .field("last_rank", s.ranks[c.last])
        .field("spread_ns", c.spread_ns)
        .field("wait_caused_ns", c.wait_caused_ns)
        .end_object();
  }
  w.end_array();
  json_strings(w, "count_differences", s.count_differences);
  json_strings(w, "lines", s.lines);
  w.end_object();
}

}  // namespace gtv::analysis::detail
