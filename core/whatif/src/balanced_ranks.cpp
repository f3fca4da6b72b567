// balanced-ranks: the straggler rank's work before each collective that ends together takes the median of the
// other ranks' work there. Predicted from the collectives' arrivals (gtv/analysis/stragglers.h), not by replaying the
// graph, so that it also holds for Gloo, whose collectives run on host threads the graph does not join.
//
// Per rank r and collective k (in arrival order): A[k][r] its arrival, E[k][r] its end. Its work before k is
// W[k][r] = A[k][r] - E[k-1][r] (from the window's start before the first), its transfer after the last arrival
// T[k][r] = E[k][r] - max over ranks of A[k]. The replay keeps every W and T except the straggler's W, which
// becomes the other ranks' median (never more than it was): A'[k][r] = E'[k-1][r] + W'[k][r], E'[k][r] = max A'[k] +
// T[k][r]. Each rank's work after its last collective keeps its length, so its end moves by E'[K][r] - E[K][r].
#include "balanced_ranks.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gtv/analysis/stragglers.h"
#include "gtv/model/collectives.h"

namespace gtv::whatif {
namespace {

// Which value the straggler's work takes: the median of the other ranks' (the estimate), the fastest other
// rank's (the band's lower end) or the slowest other rank's (its upper end).
enum class Target : std::uint8_t { Median, Fastest, Slowest };

TimeNs median(std::vector<TimeNs> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

struct Replay {
  TimeNs end_ns = 0;              // the window's predicted end
  std::vector<PathShare> path;    // along the last arrivals, from the window's end back to its start
  std::size_t shortened = 0;      // collectives where the straggler's work got shorter
  TimeNs straggler_saved_ns = 0;  // the straggler's work taken away, over the window
};

class RankReplay {
 public:
  // `rank_end_ns`: each rank's end in the window, indexed as every collective's arrival_ns.
  RankReplay(std::vector<const analysis::CollectiveArrivals*> order, std::size_t straggler,
             std::vector<TimeNs> rank_end_ns, TimeNs window_start_ns)
      : order_(std::move(order)),
        straggler_(straggler),
        rank_end_ns_(std::move(rank_end_ns)),
        window_start_ns_(window_start_ns) {}

  // `shortest_transfer`: every transfer as short as the shortest one of the window (the band's lower end).
  [[nodiscard]] Replay run(Target target, bool shortest_transfer = false) const {
    const std::size_t ranks = rank_end_ns_.size();
    const std::size_t k_count = order_.size();
    std::vector<TimeNs> prev_end(ranks, window_start_ns_), new_prev_end(ranks, window_start_ns_);
    std::vector<std::size_t> last(k_count);
    std::vector<std::vector<TimeNs>> work(k_count, std::vector<TimeNs>(ranks));
    std::vector<std::vector<TimeNs>> transfer(k_count, std::vector<TimeNs>(ranks));
    Replay out;
    TimeNs shortest = -1;
    for (const analysis::CollectiveArrivals* c : order_) {
      const TimeNs last_arrival = *std::max_element(c->arrival_ns.begin(), c->arrival_ns.end());
      for (const TimeNs end : c->end_ns)
        if (shortest < 0 || end - last_arrival < shortest) shortest = std::max<TimeNs>(0, end - last_arrival);
    }
    for (std::size_t k = 0; k < k_count; ++k) {
      const analysis::CollectiveArrivals& c = *order_[k];
      const TimeNs last_arrival = *std::max_element(c.arrival_ns.begin(), c.arrival_ns.end());
      for (std::size_t r = 0; r < ranks; ++r) {
        work[k][r] = std::max<TimeNs>(0, c.arrival_ns[r] - prev_end[r]);
        transfer[k][r] = shortest_transfer ? shortest : std::max<TimeNs>(0, c.end_ns[r] - last_arrival);
      }
      const TimeNs was = work[k][straggler_];
      const TimeNs goal = target_work(work[k], target);
      if (goal < was) {
        work[k][straggler_] = goal;
        ++out.shortened;
        out.straggler_saved_ns += was - goal;
      }
      TimeNs new_last = 0;
      for (std::size_t r = 0; r < ranks; ++r) {
        const TimeNs arrival = new_prev_end[r] + work[k][r];
        if (r == 0 || arrival > new_last) {
          new_last = arrival;
          last[k] = r;
        }
      }
      for (std::size_t r = 0; r < ranks; ++r) {
        prev_end[r] = c.end_ns[r];
        new_prev_end[r] = new_last + transfer[k][r];
      }
    }
    std::size_t ending = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
      const TimeNs end = rank_end_ns_[r] + (new_prev_end[r] - prev_end[r]);
      if (r == 0 || end > out.end_ns) {
        out.end_ns = end;
        ending = r;
      }
    }
    // The critical path: the ending rank's work after its last collective, then per collective backwards the
    // transfer after the last arrival and the last arriver's work before it.
    TimeNs rank_work = std::max<TimeNs>(0, rank_end_ns_[ending] - prev_end[ending]);
    TimeNs transfer_total = 0;
    std::size_t r = ending;
    for (std::size_t k = k_count; k-- > 0;) {
      transfer_total += transfer[k][r];
      r = last[k];
      rank_work += work[k][r];
    }
    // Before the first collective the path runs from the window's start: its work was counted from there.
    out.path.push_back({"the ranks' own work (on the rank that arrived last at each collective)", rank_work});
    out.path.push_back({"collective transfer after the last arrival", transfer_total});
    std::sort(out.path.begin(), out.path.end(), [](const PathShare& a, const PathShare& b) { return a.ns > b.ns; });
    return out;
  }

 private:
  [[nodiscard]] TimeNs target_work(const std::vector<TimeNs>& work, Target target) const {
    if (target == Target::Median) {
      std::vector<TimeNs> others;
      others.reserve(work.size());
      for (std::size_t r = 0; r < work.size(); ++r)
        if (r != straggler_) others.push_back(work[r]);
      return median(std::move(others));
    }
    TimeNs best = -1;
    for (std::size_t r = 0; r < work.size(); ++r) {
      if (r == straggler_) continue;
      if (best < 0 || (target == Target::Fastest ? work[r] < best : work[r] > best)) best = work[r];
    }
    return best;
  }

  std::vector<const analysis::CollectiveArrivals*> order_;
  std::size_t straggler_;
  std::vector<TimeNs> rank_end_ns_;
  TimeNs window_start_ns_;
};

std::string ms_text(TimeNs ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", double(ns) / 1e6);
  return buf;
}

}  // namespace

Expected<Ok> predict_balanced_ranks(const Trace& trace, const causal::Window& window, Prediction& out) {
  const analysis::Stragglers s = analysis::analyze_stragglers(trace);
  const auto& ranks = trace.metadata().ranks;
  if (ranks.size() < 2 || s.ranks.size() < 2)
    return Error{"this trace is not a run merged from several ranks: there is no rank to balance"};
  std::vector<const analysis::CollectiveArrivals*> order;
  std::size_t other_collectives = 0, contradicted = 0;
  for (const analysis::CollectiveArrivals& c : s.collectives) {
    const TimeNs first = *std::min_element(c.arrival_ns.begin(), c.arrival_ns.end());
    const TimeNs last_end = *std::max_element(c.end_ns.begin(), c.end_ns.end());
    if (first < window.start_ns || last_end > window.end_ns) continue;
    if (!c.analysed || !ends_together(c.kind)) {
      ++other_collectives;
      continue;
    }
    if (c.clock_inconsistent) {
      ++contradicted;
      continue;
    }
    order.push_back(&c);
  }
  if (order.empty())
    return Error{"no collective that every rank waits for (all-reduce, all-gather, reduce-scatter, barrier) lies in " +
                 out.window + ": nothing to balance"};
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return *std::min_element(a->arrival_ns.begin(), a->arrival_ns.end()) <
           *std::min_element(b->arrival_ns.begin(), b->arrival_ns.end());
  });
  // The straggler: the rank the others waited for at the most of these collectives, then the longest in total.
  std::vector<std::size_t> late(s.ranks.size(), 0);
  std::vector<TimeNs> caused(s.ranks.size(), 0);
  for (const auto* c : order)
    if (c->culprit >= 0) {
      ++late[static_cast<std::size_t>(c->culprit)];
      caused[static_cast<std::size_t>(c->culprit)] += c->wait_caused_ns;
    }
  std::size_t straggler = 0;
  for (std::size_t r = 1; r < late.size(); ++r)
    if (late[r] > late[straggler] || (late[r] == late[straggler] && caused[r] > caused[straggler])) straggler = r;
  if (late[straggler] == 0)
    return Error{"no rank made the others wait at a collective in " + out.window + ": nothing to balance"};
  // Each rank's end in the window: its last measurement's end, else its last collective's end.
  std::vector<TimeNs> rank_end(s.ranks.size());
  for (std::size_t r = 0; r < s.ranks.size(); ++r) {
    rank_end[r] = order.back()->end_ns[r];
    const RankInfo* info = nullptr;
    for (const RankInfo& ri : ranks)
      if (ri.rank == s.ranks[r]) info = &ri;
    if (!info) continue;
    for (const Measurement& m : trace.measurements())
      if (std::find(info->pids.begin(), info->pids.end(), m.pid) != info->pids.end() && m.host_end_ns <= window.end_ns)
        rank_end[r] = std::max(rank_end[r], m.host_end_ns);
  }
  const RankReplay replay(order, straggler, rank_end, window.start_ns);
  const TimeNs recorded_end = *std::max_element(rank_end.begin(), rank_end.end());
  // The ranks' ends in the window may fall short of the window's end (GPU work after the last measurement):
  // that tail is kept.
  const TimeNs tail = std::max<TimeNs>(0, window.end_ns - recorded_end);
  const Replay point = replay.run(Target::Median);
  const Replay low = replay.run(Target::Fastest, true);
  const Replay high = replay.run(Target::Slowest);
  const std::string who = "rank " + std::to_string(s.ranks[straggler]);
  out.replayed_ns = out.recorded_ns;
  out.predicted_ns = point.end_ns + tail - window.start_ns;
  out.low_ns = std::min(low.end_ns, point.end_ns) + tail - window.start_ns;
  out.high_ns = std::max(high.end_ns, point.end_ns) + tail - window.start_ns;
  out.path = point.path;
  if (tail > 0) out.path.push_back({"GPU work after the ranks' last measurement", tail});
  out.applied.push_back(
      who + ", the rank the others waited for at " + std::to_string(late[straggler]) + " of " +
      std::to_string(order.size()) + " collectives in " + out.window +
      ", does the other ranks' median work before each of them: " + ms_text(point.straggler_saved_ns) + " less, at " +
      std::to_string(point.shortened) + " collectives");
  out.assumptions.push_back(
      "predicted from the collectives' arrivals, not by replaying the graph: at a collective that ends together every "
      "rank leaves after the last arrival plus its own transfer time as recorded");
  out.assumptions.push_back(
      "a rank's work before a collective runs from its end of the previous one (from the window's start before the "
      "first) to its arrival; only " +
      who + "'s changes, to the median of the other ranks' (never more than it was); the others' stays as recorded");
  out.assumptions.push_back(
      "the band's lower end: " + who +
      " as fast as the fastest other rank before each collective, and every transfer after the last arrival as short "
      "as the shortest one of the window; its upper end: as slow as the slowest other rank");
  out.assumptions.push_back("each rank's work after its last collective in the window keeps its length");
  out.warnings.push_back(
      "the estimate keeps each transfer after the last arrival as recorded, but a straggler can lengthen them (Gloo "
      "runs of two ranks on two shared cores took up to 13 ms after a straggler's arrival, under 1.7 ms mostly when "
      "balanced): the balanced run can be as fast as the band's lower end");
  if (other_collectives > 0)
    out.assumptions.push_back(std::to_string(other_collectives) +
                              " other collectives in the window (broadcasts, reduces, sends), whose waits do not "
                              "hold every rank, count as the ranks' own work");
  if (contradicted > 0)
    out.warnings.push_back(std::to_string(contradicted) +
                           " collectives whose waits the clocks contradict were left out (their time counts as the "
                           "ranks' own work)");
  return Ok{};
}

}  // namespace gtv::whatif
