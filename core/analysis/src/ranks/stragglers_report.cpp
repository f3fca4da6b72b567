#include <algorithm>
#include <numeric>

#include "report/report_document.h"

namespace gtv::analysis::detail {
namespace {

// The collectives whose waits cost most first, then by the spread of their arrivals.
std::vector<std::size_t> by_wait(const Stragglers& s) {
  std::vector<std::size_t> order(s.collectives.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const CollectiveArrivals& x = s.collectives[a];
    const CollectiveArrivals& y = s.collectives[b];
    return x.wait_caused_ns != y.wait_caused_ns ? x.wait_caused_ns > y.wait_caused_ns : x.spread_ns > y.spread_ns;
  });
  return order;
}

// "rank 1", "rank 0 (root)", "-" when nobody waited, "clocks disagree".
std::string waited_for(const Stragglers& s, const CollectiveArrivals& c) {
  if (!c.analysed) return "not known";
  if (c.culprit < 0) return c.clock_inconsistent ? "clocks disagree" : "nobody";
  std::string out = "rank " + std::to_string(s.ranks[static_cast<std::size_t>(c.culprit)]);
  if (c.culprit == c.root) out += c.root_inferred ? " (root, inferred)" : " (root)";
  return out;
}

// "rank 0 60.0 us" for each rank whose wait happened.
std::string victims(const Stragglers& s, const CollectiveArrivals& c) {
  std::string out;
  for (std::size_t r = 0; r < c.wait_ns.size(); ++r)
    if (c.wait_ns[r] > 0)
      out += (out.empty() ? "" : ", ") + std::string("rank ") + std::to_string(s.ranks[r]) + " " +
             format_duration(c.wait_ns[r]);
  return out.empty() ? "-" : out;
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
                                       : "No collective of one kind, size and process group ran on every rank: no "
                                         "arrivals to compare (matched by " +
                                             s.match_basis + ").");
    for (const std::string& d : s.count_differences) lines.push_back("Counts differ: " + d + ".");
    return Section{"Ranks and collectives", std::move(lines), {}};
  }
  lines.insert(lines.end(), s.lines.begin(), s.lines.end());
  Section section{"Ranks and collectives", std::move(lines), {}};
  Table table;
  table.header = {"collective", "first arrival at",    "skew of arrivals",
                  "waited for", "waits that happened", "longest transfer after"};
  table.right_aligned = {false, true, true, false, false, true};
  const std::vector<std::size_t> order = by_wait(s);
  const std::size_t shown = listing == Listing::All ? order.size() : std::min(order.size(), kMaxTableRows);
  for (std::size_t i = 0; i < shown; ++i) {
    const CollectiveArrivals& c = s.collectives[order[i]];
    const TimeNs transfer = c.transfer_ns.empty() ? 0 : *std::max_element(c.transfer_ns.begin(), c.transfer_ns.end());
    table.rows.push_back({collective_words(c.kind) + " #" + std::to_string(c.ordinal + 1) +
                              (c.seq >= 0 ? " (seq " + std::to_string(c.seq) + ")" : ""),
                          at(r, *std::min_element(c.arrival_ns.begin(), c.arrival_ns.end())),
                          format_duration(c.spread_ns), waited_for(s, c), victims(s, c),
                          c.analysed ? format_duration(transfer) : "-"});
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
        .field("clock_offset_ns", rank.clock_offset_ns)
        .field("clock_uncertainty_ns", rank.clock_uncertainty_ns)
        .end_object();
  w.end_array().key("collectives").begin_array();
  for (std::size_t i = 0; i < s.collectives.size() && i < kMaxJsonRows; ++i) {
    const CollectiveArrivals& c = s.collectives[i];
    w.begin_object().field("kind", c.kind).field("ordinal", U(c.ordinal)).key("arrival_ns").begin_array();
    for (TimeNs t : c.arrival_ns) w.value(t);
    w.end_array().key("end_ns").begin_array();
    for (TimeNs t : c.end_ns) w.value(t);
    w.end_array().key("wait_ns").begin_array();
    for (TimeNs t : c.wait_ns) w.value(t);
    w.end_array().key("transfer_ns").begin_array();
    for (TimeNs t : c.transfer_ns) w.value(t);
    w.end_array()
        .field("seq", c.seq)
        .field("last_rank", s.ranks[c.last])
        .field("root_rank", c.root < 0 ? std::int64_t{-1} : s.ranks[static_cast<std::size_t>(c.root)])
        .field("root_inferred", c.root_inferred)
        .field("culprit_rank", c.culprit < 0 ? std::int64_t{-1} : s.ranks[static_cast<std::size_t>(c.culprit)])
        .field("spread_ns", c.spread_ns)
        .field("wait_caused_ns", c.wait_caused_ns)
        .field("clock_inconsistent", c.clock_inconsistent)
        .end_object();
  }
  w.end_array();
  w.field("matched_by_sequence", s.by_sequence)
      .field("clock_collectives", U(s.clock.collectives))
      .field("clock_inconsistent", U(s.clock_inconsistent));
  json_strings(w, "count_differences", s.count_differences);
  json_strings(w, "lines", s.lines);
  w.end_object();
}

}  // namespace gtv::analysis::detail
