// balanced-ranks: the straggler rank's work before each collective that ends together takes the median of the
// other ranks' work there. Predicted from the collectives' arrivals (gtv/analysis/stragglers.h), not by replaying the
// graph, so that it also holds for Gloo, whose collectives run on host threads the graph does not join.
//
// Per rank r and collective k (in arrival order): A[k][r] its arrival, E[k][r] its end, T[k][r] = E[k][r] - max over
// ranks of A[k] its transfer after the last arrival. An arrival after the previous end (A[k] >= E[k-1]) waited for
// it: its work W[k][r] = A[k][r] - E[k-1][r], and D[k][r], the rank's own work during [A[k-1], E[k-1]) (DDP's
// backward goes on while an all-reduce waits), must fit before it too: A'[k] = max(E'[k-1], A'[k-1] + D[k]) + W[k].
// An arrival before the previous end was queued behind it (NCCL's all-reduces back to back): W[k][r] =
// A[k][r] - A[k-1][r] and A'[k] = A'[k-1] + W[k]. E'[k][r] = max over ranks of A'[k] + T[k][r]. Only the straggler's
// W changes, to the other ranks' median (never more than it was). Each rank's work after its last collective keeps
// its length. No prediction goes below the longest own work of one thread or GPU of another rank.
#include "balanced_ranks.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gtv/analysis/stragglers.h"
#include "gtv/model/collectives.h"
#include "gtv/whatif/balanced_ranks.h"
#include "gtv/whatif/rank_work.h"
#include "plan.h"

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
  // `rank_end_ns`: each rank's end in the window, indexed as every collective's arrival_ns; `own_work`: per
  // collective of `order`, each rank's own work between its arrival and its end, what it did while it waited.
  RankReplay(std::vector<const analysis::CollectiveArrivals*> order, std::vector<const std::vector<TimeNs>*> own_work,
             std::size_t straggler, std::vector<TimeNs> rank_end_ns, TimeNs window_start_ns)
      : order_(std::move(order)),
        own_work_(std::move(own_work)),
        straggler_(straggler),
        rank_end_ns_(std::move(rank_end_ns)),
        window_start_ns_(window_start_ns) {}

  [[nodiscard]] std::size_t collectives() const { return order_.size(); }

  // `shortest_transfer`: every transfer as short as the shortest one of the window (the band's lower end).
  [[nodiscard]] Replay run(Target target, bool shortest_transfer = false) const {
    Replay out;
    const Segments seg = segments(target, shortest_transfer, out);
    replay(seg, out);
    return out;
  }

 private:
  // Per collective and rank: the work before the arrival (the straggler's changed), the own work done during the
  // wait at the previous collective, whether the arrival came after the previous end, and the transfer after the
  // last arrival.
  struct Segments {
    std::vector<std::vector<TimeNs>> work, during, transfer;
    std::vector<std::vector<bool>> after_end;
  };

  [[nodiscard]] Segments segments(Target target, bool shortest_transfer, Replay& out) const {
    const std::size_t ranks = rank_end_ns_.size();
    const std::size_t k_count = order_.size();
    Segments seg{std::vector<std::vector<TimeNs>>(k_count, std::vector<TimeNs>(ranks)),
                 std::vector<std::vector<TimeNs>>(k_count, std::vector<TimeNs>(ranks, 0)),
                 std::vector<std::vector<TimeNs>>(k_count, std::vector<TimeNs>(ranks)),
                 std::vector<std::vector<bool>>(k_count, std::vector<bool>(ranks, true))};
    auto& work = seg.work;
    auto& during = seg.during;
    auto& transfer = seg.transfer;
    auto& after_end = seg.after_end;
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
        transfer[k][r] = shortest_transfer ? shortest : std::max<TimeNs>(0, c.end_ns[r] - last_arrival);
        if (k == 0) {
          work[k][r] = std::max<TimeNs>(0, c.arrival_ns[r] - window_start_ns_);
          continue;
        }
        const analysis::CollectiveArrivals& prev = *order_[k - 1];
        after_end[k][r] = c.arrival_ns[r] >= prev.end_ns[r];
        if (after_end[k][r]) {
          work[k][r] = c.arrival_ns[r] - prev.end_ns[r];
          during[k][r] = (*own_work_[k - 1])[r];
        } else {
          // Queued behind a collective still waiting (NCCL's all-reduces back to back): everything since the
          // previous arrival was work, done while that one waited.
          work[k][r] = std::max<TimeNs>(0, c.arrival_ns[r] - prev.arrival_ns[r]);
        }
      }
      const TimeNs was = work[k][straggler_];
      const TimeNs goal = target_work(work[k], target);
      if (goal < was) {
        work[k][straggler_] = goal;
        ++out.shortened;
        out.straggler_saved_ns += was - goal;
      }
    }
    return seg;
  }

  void replay(const Segments& seg, Replay& out) const {
    const std::size_t ranks = rank_end_ns_.size();
    const std::size_t k_count = order_.size();
    const auto& work = seg.work;
    const auto& during = seg.during;
    const auto& transfer = seg.transfer;
    const auto& after_end = seg.after_end;
    // The replay: A'[k][r] = A'[k-1][r] + work after a queued arrival; max(E'[k-1][r], A'[k-1][r] + during) +
    // work after one that followed the previous end; E'[k][r] = max over ranks of A'[k] + transfer.
    std::vector<TimeNs> arrival(ranks, window_start_ns_), end(ranks, window_start_ns_);
    std::vector<std::vector<bool>> via_own(k_count, std::vector<bool>(ranks, true));
    std::vector<std::size_t> last(k_count, 0);
    for (std::size_t k = 0; k < k_count; ++k) {
      for (std::size_t r = 0; r < ranks; ++r) {
        TimeNs from = arrival[r];
        if (k == 0) {
          from = window_start_ns_;
        } else if (after_end[k][r]) {
          const TimeNs own = arrival[r] + during[k][r];
          via_own[k][r] = own > end[r];
          from = std::max(end[r], own);
        }
        arrival[r] = from + work[k][r];
      }
      for (std::size_t r = 1; r < ranks; ++r)
        if (arrival[r] > arrival[last[k]]) last[k] = r;
      for (std::size_t r = 0; r < ranks; ++r) end[r] = arrival[last[k]] + transfer[k][r];
    }
    // Each rank's work after its last collective keeps its length, and its work during that collective's wait.
    std::size_t ending = 0;
    bool ending_via_own = false;
    for (std::size_t r = 0; r < ranks; ++r) {
      const TimeNs own = arrival[r] + (*own_work_.back())[r];
      const TimeNs e = std::max(end[r], own) + std::max<TimeNs>(0, rank_end_ns_[r] - order_.back()->end_ns[r]);
      if (r == 0 || e > out.end_ns) {
        out.end_ns = e;
        ending = r;
        ending_via_own = own > end[r];
      }
    }
    // The critical path, from the window's end back: own work on a rank, or the transfer after a collective's
    // last arrival and the last arriver's work before it.
    TimeNs transfer_total = 0;
    std::size_t r = ending;
    bool own_step = ending_via_own;
    for (std::size_t k = k_count; k-- > 0;) {
      if (!own_step) {
        transfer_total += transfer[k][r];
        r = last[k];
      }
      own_step = k > 0 && (!after_end[k][r] || via_own[k][r]);
    }
    out.end_ns = std::max(out.end_ns, window_start_ns_);
    const TimeNs total = out.end_ns - window_start_ns_;
    out.path.push_back({"the ranks' own work (on the rank that arrived last at each collective)",
                        std::max<TimeNs>(0, total - transfer_total)});
    out.path.push_back({"collective transfer after the last arrival", transfer_total});
    std::sort(out.path.begin(), out.path.end(), [](const PathShare& a, const PathShare& b) { return a.ns > b.ns; });
  }

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
  std::vector<const std::vector<TimeNs>*> own_work_;
  std::size_t straggler_;
  std::vector<TimeNs> rank_end_ns_;
  TimeNs window_start_ns_;
};

std::string ms_text(TimeNs ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", double(ns) / 1e6);
  return buf;
}

// Ranks that name the same GPU (each its cuda:0) may share one, or run on hosts of their own: the files do not say,
// unless the run is over NCCL, which refuses two ranks on one GPU. The prediction takes a GPU each, as the merge
// shows them. If they share one, their GPU work takes turns once the straggler no longer keeps them apart: the
// balanced run can then be longer by up to the GPU work of the other ranks sharing with the one that shares with
// the most. The warning says so and the band's upper end takes that case; returns that time (0: none).
TimeNs shared_gpu_work(const analysis::Stragglers& s, const BalancedRanksInput& in, Prediction& out) {
  // Each GPU id: how many ranks name it and their GPU work (a rank counted once per id). A rank of one GPU id shares
  // with the others of its id; a rank of several is compared with every other rank (rare: ranks of one GPU each are
  // the rule), so thousands of ranks take one pass.
  struct Named {
    std::size_t ranks = 0;
    TimeNs work_ns = 0;
  };
  std::unordered_map<std::int64_t, Named> by_id;
  std::vector<std::vector<std::int64_t>> ids(in.ranks.size());
  for (std::size_t r = 0; r < in.ranks.size(); ++r) {
    ids[r] = in.ranks[r].local_devices;
    std::sort(ids[r].begin(), ids[r].end());
    ids[r].erase(std::unique(ids[r].begin(), ids[r].end()), ids[r].end());
    for (const std::int64_t id : ids[r]) {
      Named& n = by_id[id];
      ++n.ranks;
      n.work_ns = saturating_add(n.work_ns, in.ranks[r].gpu_work_ns);
    }
  }
  const auto shares = [&](std::size_t a, std::size_t b) {
    return std::find_first_of(ids[a].begin(), ids[a].end(), ids[b].begin(), ids[b].end()) != ids[a].end();
  };
  TimeNs most_ns = 0;
  std::size_t sharing_ranks = 0;
  for (std::size_t r = 0; r < in.ranks.size(); ++r) {
    if (std::none_of(ids[r].begin(), ids[r].end(), [&](std::int64_t id) { return by_id[id].ranks > 1; })) continue;
    ++sharing_ranks;
    TimeNs others_ns = 0;
    if (ids[r].size() == 1) {
      others_ns = saturating_sub(by_id[ids[r][0]].work_ns, in.ranks[r].gpu_work_ns);
    } else {
      for (std::size_t q = 0; q < in.ranks.size(); ++q)
        if (q != r && shares(r, q)) others_ns = saturating_add(others_ns, in.ranks[q].gpu_work_ns);
    }
    most_ns = std::max(most_ns, others_ns);
  }
  if (sharing_ranks == 0 || most_ns == 0) return 0;
  if (in.backend == "nccl") {
    out.assumptions.push_back(std::to_string(sharing_ranks) + " of the " + std::to_string(s.ranks.size()) +
                              " ranks name the same GPU as another rank; over NCCL, which refuses two ranks on one "
                              "GPU, they are GPUs of different hosts");
    return 0;
  }
  out.warnings.push_back(
      std::to_string(sharing_ranks) + " of the " + std::to_string(s.ranks.size()) +
      " ranks name the same GPU as another rank (each its cuda:0, say), and the files do not say whether that is one "
      "GPU shared by ranks of one host: the estimate takes a GPU each; if they share one, their GPU work takes turns "
      "once the ranks arrive together, and the balanced run can be longer by up to the other sharing ranks' GPU "
      "work in " +
      out.window + " (" + format_duration(most_ns) + "), which the band's upper end takes");
  return most_ns;
}

}  // namespace

std::string window_name(std::span<const std::string> measurement_names) {
  std::vector<std::string> names;  // in the order they first come
  std::unordered_set<std::string_view> seen;
  for (const std::string& name : measurement_names)
    if (seen.insert(name).second) names.push_back(name);
  if (names.empty()) return "the whole trace";
  if (names.size() == 1) return "the measured '" + names[0] + "'";
  return "the span of the " + std::to_string(names.size()) + " measurements from '" + names.front() + "' to '" +
         names.back() + "'";
}

Expected<Ok> predict_balanced_ranks(const analysis::Stragglers& s, const BalancedRanksInput& in, Prediction& out) {
  if (s.ranks.size() < 2 || in.ranks.size() != s.ranks.size() || in.own_work_ns.size() != s.collectives.size())
    return Error{"fewer than two ranks ran collectives: there is no rank to balance"};
  const causal::WindowTimes window{in.window_start_ns, in.window_end_ns};
  std::vector<const analysis::CollectiveArrivals*> order;
  std::vector<const std::vector<TimeNs>*> own_work;
  std::size_t other_collectives = 0, contradicted = 0;
  for (std::size_t i = 0; i < s.collectives.size(); ++i) {
    const analysis::CollectiveArrivals& c = s.collectives[i];
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
    if (in.own_work_ns[i].size() != s.ranks.size())
      return Error{"the ranks' own work is missing at a collective: there is no rank to balance"};
    order.push_back(&c);
  }
  if (order.empty())
    return Error{"no collective that every rank waits for (all-reduce, all-gather, reduce-scatter, barrier) lies in " +
                 out.window + ": nothing to balance"};
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return *std::min_element(a->arrival_ns.begin(), a->arrival_ns.end()) <
           *std::min_element(b->arrival_ns.begin(), b->arrival_ns.end());
  });
  own_work.reserve(order.size());
  for (const analysis::CollectiveArrivals* c : order)
    own_work.push_back(&in.own_work_ns[static_cast<std::size_t>(c - s.collectives.data())]);
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
  // Each rank's end in the window: its last measurement's end, else its last collective's end. The longest own work
  // of one thread or GPU of any rank but the straggler: no balancing makes the window shorter.
  std::vector<TimeNs> rank_end(s.ranks.size());
  TimeNs bound_ns = 0;
  std::string bound_what;
  for (std::size_t r = 0; r < s.ranks.size(); ++r) {
    rank_end[r] = std::max(order.back()->end_ns[r], in.ranks[r].last_measurement_end_ns);
    if (r != straggler && in.ranks[r].bound_ns > bound_ns) {
      bound_ns = in.ranks[r].bound_ns;
      bound_what = "rank " + std::to_string(s.ranks[r]) + "'s " + in.ranks[r].bound_what;
    }
  }
  const RankReplay replay(std::move(order), std::move(own_work), straggler, rank_end, window.start_ns);
  const TimeNs recorded_end = *std::max_element(rank_end.begin(), rank_end.end());
  // The ranks' ends in the window may fall short of the window's end (GPU work after the last measurement):
  // that tail is kept.
  const TimeNs tail = std::max<TimeNs>(0, window.end_ns - recorded_end);
  const std::size_t n_order = replay.collectives();
  const Replay point = replay.run(Target::Median);
  const Replay low = replay.run(Target::Fastest, true);
  const Replay high = replay.run(Target::Slowest);
  const std::string who = "rank " + std::to_string(s.ranks[straggler]);
  out.replayed_ns = out.recorded_ns;
  out.predicted_ns = std::max(bound_ns, point.end_ns + tail - window.start_ns);
  out.low_ns = std::max(bound_ns, std::min(low.end_ns, point.end_ns) + tail - window.start_ns);
  out.high_ns = std::max(out.predicted_ns, std::max(high.end_ns, point.end_ns) + tail - window.start_ns);
  out.path = point.path;
  if (tail > 0) out.path.push_back({"GPU work after the ranks' last measurement", tail});
  out.applied.push_back(
      who + ", the rank the others waited for at " + std::to_string(late[straggler]) + " of " +
      std::to_string(n_order) + " collectives in " + out.window +
      ", does the other ranks' median work before each of them: " + ms_text(point.straggler_saved_ns) + " less, at " +
      std::to_string(point.shortened) + " collectives");
  if (bound_ns > 0 && bound_ns >= point.end_ns + tail - window.start_ns)
    out.applied.push_back("the arrivals alone give " + ms_text(point.end_ns + tail - window.start_ns) + ", less than " +
                          bound_what + " in " + out.window + " (" + ms_text(bound_ns) +
                          "), which no balancing shortens: the prediction is " + ms_text(bound_ns));
  out.assumptions.push_back(
      "predicted from the collectives' arrivals, not by replaying the graph: at a collective that ends together every "
      "rank leaves after the last arrival plus its own transfer time as recorded");
  out.assumptions.push_back(
      "a rank's work before a collective runs from its end of the previous one to its arrival (from the window's "
      "start before the first), or from its previous arrival when it arrived before the previous one ended (queued "
      "behind a collective still waiting); the own work it did while it waited at the previous one (its threads' "
      "recorded ops and calls, waits left out) stays, so it arrives no earlier than that work allows; only " +
      who + "'s work before each collective changes, to the median of the other ranks' (never more than it was)");
  if (bound_ns > 0)
    out.assumptions.push_back(
        "no prediction goes below the longest own work of one thread or GPU of a rank other "
        "than " +
        who + " in " + out.window + ": " + bound_what + ", " + ms_text(bound_ns));
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
  out.high_ns = saturating_add(out.high_ns, shared_gpu_work(s, in, out));
  out.low_ns = std::max<TimeNs>(0, saturating_sub(out.low_ns, clamped_ns(double(out.low_ns) * kRunToRun)));
  out.high_ns = saturating_add(out.high_ns, clamped_ns(double(out.high_ns) * kRunToRun));
  out.assumptions.push_back("the band adds 1% each way for the spread between recordings of one run");
  if (out.whole_trace) out.assumptions.push_back("the trace has no timed measurement: the whole trace is predicted");
  return Ok{};
}

Expected<Ok> predict_balanced_ranks(const Trace& trace, const causal::Window& window, Prediction& out) {
  const analysis::Stragglers s = analysis::analyze_stragglers(trace);
  const auto& ranks = trace.metadata().ranks;
  if (ranks.size() < 2 || s.ranks.size() < 2)
    return Error{"this trace is not a run merged from several ranks: there is no rank to balance"};
  BalancedRanksInput in;
  in.window_start_ns = window.start_ns;
  in.window_end_ns = window.end_ns;
  in.backend = trace.metadata().distributed.backend;
  in.ranks.resize(s.ranks.size());
  in.own_work_ns.assign(s.collectives.size(), std::vector<TimeNs>(s.ranks.size(), 0));
  for (std::size_t r = 0; r < s.ranks.size(); ++r) {
    const RankInfo* info = nullptr;
    for (const RankInfo& ri : ranks)
      if (ri.rank == s.ranks[r]) info = &ri;
    if (!info) continue;
    BalancedRankWork& rw = in.ranks[r];
    for (const Measurement& m : trace.measurements())
      if (std::find(info->pids.begin(), info->pids.end(), m.pid) != info->pids.end() && m.host_end_ns <= window.end_ns)
        rw.last_measurement_end_ns = std::max(rw.last_measurement_end_ns, m.host_end_ns);
    const RankWork w = rank_work(trace, *info, host_collective_waits(s, r), {window.start_ns, window.end_ns});
    rw.bound_ns = w.bound_ns;
    rw.bound_what = w.bound_what;
    rw.gpu_work_ns = w.gpu_work_ns;
    rw.local_devices = info->local_devices;
    for (std::size_t i = 0; i < s.collectives.size(); ++i)
      in.own_work_ns[i][r] =
          analysis::length_within_ns(w.host_busy, s.collectives[i].arrival_ns[r], s.collectives[i].end_ns[r]);
  }
  return predict_balanced_ranks(s, in, out);
}

}  // namespace gtv::whatif
