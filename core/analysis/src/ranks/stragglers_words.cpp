// The sentences of the straggler analysis: who the others waited for, how long, on which collectives, and how far
// the clocks can be trusted for it.
#include <algorithm>
#include <cctype>
#include <map>

#include "gtv/analysis/format.h"
#include "gtv/model/collectives.h"
#include "ranks/stragglers_parts.h"

namespace gtv::analysis::detail {
namespace {

std::string rank_name(std::int64_t rank) { return "rank " + std::to_string(rank); }

// "+30.0 s", "-2.00 us".
std::string signed_text(TimeNs ns) {
  return (ns < 0 ? "-" : "+") + format_duration(ns < 0 ? saturating_sub(0, ns) : ns);
}

// "all-reduces" when every collective counted is one kind, else "collectives (38 all-reduces, 2 broadcasts)".
std::string plural_of(const std::vector<const CollectiveArrivals*>& collectives) {
  std::map<std::string, std::size_t> kinds;
  for (const CollectiveArrivals* c : collectives) ++kinds[c->kind];
  if (kinds.size() == 1) return collective_words(kinds.begin()->first) + "s";
  std::string out = "collectives (";
  std::size_t i = 0;
  for (const auto& [kind, count] : kinds) out += (i++ == 0 ? "" : ", ") + collective_count(kind, count);
  return out + ")";
}

// Whom the others waited for, said as the collectives make it: arriving last at collectives that end together;
// being waited for when some had a root.
std::string headline_of(const Stragglers& s, const std::vector<const CollectiveArrivals*>& analysed) {
  const std::string what = plural_of(analysed);
  const bool all_together =
      std::all_of(analysed.begin(), analysed.end(), [](const CollectiveArrivals* c) { return ends_together(c->kind); });
  const RankWaits* top = &s.per_rank[0];
  for (const RankWaits& w : s.per_rank)
    if (w.caused_ns > top->caused_ns) top = &w;
  const std::size_t waited_at = static_cast<std::size_t>(std::count_if(
      analysed.begin(), analysed.end(), [](const CollectiveArrivals* c) { return c->wait_caused_ns > 0; }));
  const std::string of = std::to_string(top->arrived_last) + " of " + std::to_string(analysed.size()) + " " + what;
  if (waited_at == 0 && s.clock_inconsistent > 0) {
    const std::int64_t off = s.clock.misaligned_rank();
    return "Who waited for whom at the " + std::to_string(analysed.size()) + " " + what +
           " is unknown: the ranks' clocks contradict them" +
           (off < 0 ? std::string(".")
                    : " (" + rank_name(s.per_rank[static_cast<std::size_t>(off)].rank) + "'s reads " +
                          signed_text(s.per_rank[static_cast<std::size_t>(off)].clock_offset_ns) + " against " +
                          rank_name(s.per_rank[0].rank) + "'s); merge with --clock collectives.");
  }
  if (waited_at == 0) return "No rank waited for another at the " + std::to_string(analysed.size()) + " " + what + ".";
  if (top->arrived_last * 2 <= waited_at)
    return std::string(all_together ? "No rank arrived last at most " : "No rank kept the others waiting at most ") +
           what + " (" + rank_name(top->rank) + " at " + std::to_string(top->arrived_last) + " of " +
           std::to_string(analysed.size()) + "): no single straggler.";
  const std::string caused = "; the others waited " + format_duration(top->caused_ns) + " in total for it.";
  if (all_together) return "Rank " + std::to_string(top->rank) + " arrived last at " + of + caused;
  return "Rank " + std::to_string(top->rank) + " kept the others waiting at " + of + caused;
}

// The headline names its window: the matched collectives of the whole trace, warm-up steps included.
std::string over_whole_trace(std::string sentence) {
  if (sentence.size() > 1 && std::isupper(static_cast<unsigned char>(sentence[0])) &&
      std::islower(static_cast<unsigned char>(sentence[1])))
    sentence[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(sentence[0])));
  return "Over the whole trace, " + sentence;
}

// The basis of the waits, and what a rooted collective waits for.
std::string basis_of(const Stragglers& s) {
  const bool host =
      std::any_of(s.collectives.begin(), s.collectives.end(), [](const CollectiveArrivals& c) { return !c.on_gpu; });
  std::string basis = std::string("A rank arrives at a collective when ") +
                      (host ? "its Gloo range starts on its host (Gloo runs collectives there)"
                            : "its collective kernel starts on its GPU") +
                      "; collectives are matched across ranks by " + s.match_basis +
                      ". At an all-reduce (all-gather, reduce-scatter, barrier) every rank waits for the last "
                      "arrival";
  const bool rooted = std::any_of(s.collectives.begin(), s.collectives.end(), [](const CollectiveArrivals& c) {
    return root_sends(c.kind) || root_receives(c.kind);
  });
  if (rooted)
    basis += "; a broadcast's root waits for nobody and the others wait for it; a reduce's root waits for the others";
  return basis + ". Only waits that happened count: the rank's part still ran when the one it needed arrived.";
}

// How far the clocks can be trusted for these waits: offsets +/- uncertainty from the collectives that end
// together, and the advice when one is far beyond its error bar.
std::vector<std::string> clock_lines(const std::string& clock_method, const Stragglers& s) {
  std::vector<std::string> out;
  if (s.clock.collectives == 0) {
    out.push_back(
        "Clock uncertainty: unknown; no all-reduce, all-gather, reduce-scatter or barrier to measure it on "
        "(broadcasts and reduces do not end together), so waits across ranks carry the clocks' unknown "
        "offset (" +
        clock_method + ").");
    return out;
  }
  std::string line =
      "Clock uncertainty: from the ends of " + s.clock.basis_words() + " as merged (" + clock_method + "), ";
  TimeNs widest = 0;
  for (std::size_t r = 1; r < s.per_rank.size(); ++r) {
    const RankWaits& w = s.per_rank[r];
    widest = std::max(widest, w.clock_uncertainty_ns);
    line += (r == 1 ? "" : ", ") + rank_name(w.rank) + "'s clock reads " + (w.clock_offset_ns < 0 ? "-" : "+") +
            format_duration(w.clock_offset_ns < 0 ? saturating_sub(0, w.clock_offset_ns) : w.clock_offset_ns) +
            " +/- " + format_duration(w.clock_uncertainty_ns);
  }
  out.push_back(line + " against " + rank_name(s.per_rank[0].rank) + "'s: differences of arrivals below " +
                format_duration(widest) + " are within it.");
  const std::int64_t off = s.clock.misaligned_rank();
  if (off >= 0)
    out.push_back("The clocks disagree: " + rank_name(s.per_rank[static_cast<std::size_t>(off)].rank) +
                  "'s offset is far beyond its uncertainty, so waits across ranks are off by as much; merge with "
                  "--clock collectives.");
  if (s.clock_inconsistent > 0)
    out.push_back("At " + std::to_string(s.clock_inconsistent) +
                  " collective(s) a rank's part ended before the rank it needed arrived: impossible on one clock, so "
                  "those waits are not counted" +
                  (off >= 0 ? "." : " (clock offsets beyond what the collectives measure?)."));
  return out;
}

}  // namespace

void write_straggler_lines(const std::string& clock_method, Stragglers& s) {
  std::vector<const CollectiveArrivals*> analysed;
  for (const CollectiveArrivals& c : s.collectives)
    if (c.analysed) analysed.push_back(&c);
  if (!analysed.empty()) {
    s.headline = over_whole_trace(headline_of(s, analysed));
    s.lines.push_back(s.headline);
    const std::string what = plural_of(analysed);
    for (const RankWaits& w : s.per_rank)
      s.lines.push_back(rank_name(w.rank) + ": the others waited for it at " + std::to_string(w.arrived_last) + " of " +
                        std::to_string(analysed.size()) + " " + what + ", " + format_duration(w.caused_ns) +
                        " in total; it waited " + format_duration(w.waited_ns) + " for the others.");
  }
  std::map<std::string, std::size_t> rootless, peerless;  // kinds whose waits are not counted, by why
  for (const CollectiveArrivals& c : s.collectives)
    if (!c.analysed) ++(root_sends(c.kind) || root_receives(c.kind) ? rootless : peerless)[c.kind];
  for (const auto& [kind, count] : rootless)
    s.lines.push_back(collective_count(kind, count) +
                      " on Gloo without a recorded root (whose host ranges do not end in the order that would tell "
                      "it): their waits are not counted.");
  for (const auto& [kind, count] : peerless)
    s.lines.push_back(collective_count(kind, count) +
                      ": whom each rank waited for is not in the trace (a send's peer, an unnamed NCCL kernel), so "
                      "their waits are not counted.");
  for (const std::string& d : s.count_differences) s.lines.push_back("Counts differ: " + d + ".");
  s.lines.push_back(basis_of(s));
  for (std::string& line : clock_lines(clock_method, s)) s.lines.push_back(std::move(line));
}

}  // namespace gtv::analysis::detail
