// Each step's chain through the collectives' bounding ranks, on the straggler analysis's matched collectives.
#include "gtv/ranks/step_paths.h"

#include <algorithm>
#include <map>

#include "gtv/model/collectives.h"

namespace gtv::ranks {
namespace {

using analysis::CollectiveArrivals;
using analysis::Stragglers;

// The rank (index) a collective waited for: its culprit, else the last to arrive.
std::size_t bounding_index(const CollectiveArrivals& c) {
  return c.culprit >= 0 ? static_cast<std::size_t>(c.culprit) : c.last;
}

void add_link(StepPath& step, LinkKind kind, std::int64_t rank, TimeNs start_ns, TimeNs end_ns,
              std::int64_t collective = -1) {
  if (end_ns > start_ns) step.links.push_back({kind, rank, start_ns, end_ns, collective});
}

// Extends the step's chain from t through the collectives (indices into s.collectives); returns where it ends.
TimeNs chain_through(const Stragglers& s, std::span<const std::size_t> collectives, StepPath& step, TimeNs t) {
  for (std::size_t i : collectives) {
    const CollectiveArrivals& c = s.collectives[i];
    const std::size_t b = bounding_index(c);
    const std::int64_t rank = s.ranks[b];
    const TimeNs arrival = std::max(t, c.arrival_ns[b]);
    add_link(step, LinkKind::Work, rank, t, arrival);
    const TimeNs end = std::max(arrival, c.end_ns[b]);
    add_link(step, LinkKind::Collective, rank, arrival, end, static_cast<std::int64_t>(i));
    t = end;
  }
  return t;
}

// Closes the step at end_ns (or where its chain ended, if later) and names its bounding rank.
void finish(StepPath& step, TimeNs t, TimeNs end_ns, std::int64_t end_rank) {
  step.end_ns = std::max(t, end_ns);
  add_link(step, LinkKind::Tail, end_rank, t, step.end_ns);
  std::map<std::int64_t, TimeNs> work;
  for (const PathLink& l : step.links)
    if (l.kind == LinkKind::Work) work[l.rank] = saturating_add(work[l.rank], l.end_ns - l.start_ns);
  for (const auto& [rank, ns] : work)
    if (ns > step.bounding_work_ns) {
      step.bounding_rank = rank;
      step.bounding_work_ns = ns;
    }
}

std::vector<StepPath> by_collectives(const Stragglers& s, std::span<const RankSteps> ranks) {
  std::vector<StepPath> out;
  TimeNs start = ranks[0].start_ns;
  for (const RankSteps& r : ranks) start = std::min(start, r.start_ns);
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < s.collectives.size(); ++i) {
    const CollectiveArrivals& c = s.collectives[i];
    if (!c.analysed) continue;
    pending.push_back(i);
    if (!ends_together(c.kind)) continue;
    StepPath step;
    step.name = "step " + std::to_string(out.size() + 1);
    step.start_ns = start;
    const TimeNs t = chain_through(s, pending, step, start);
    step.collectives = pending;
    const auto last = std::max_element(c.end_ns.begin(), c.end_ns.end());
    finish(step, t, *last, s.ranks[static_cast<std::size_t>(last - c.end_ns.begin())]);
    start = step.end_ns;
    out.push_back(std::move(step));
    pending.clear();
  }
  return out;
}

std::vector<StepPath> by_profiler_steps(const Stragglers& s, std::span<const RankSteps> ranks) {
  const std::size_t n = ranks[0].steps.size();
  std::vector<TimeNs> starts(n), ends(n);
  std::vector<std::int64_t> end_rank(n);
  for (std::size_t k = 0; k < n; ++k) {
    starts[k] = ranks[0].steps[k].start_ns;
    ends[k] = ranks[0].steps[k].end_ns;
    end_rank[k] = s.ranks[0];
    for (std::size_t r = 1; r < ranks.size(); ++r) {
      starts[k] = std::min(starts[k], ranks[r].steps[k].start_ns);
      if (ranks[r].steps[k].end_ns > ends[k]) {
        ends[k] = ranks[r].steps[k].end_ns;
        end_rank[k] = s.ranks[r];
      }
    }
  }
  // Each collective to the step its chain arrival falls in: from a step's start to the next one's (the last step's
  // end for the last).
  std::vector<std::vector<std::size_t>> in_step(n);
  for (std::size_t i = 0; i < s.collectives.size(); ++i) {
    const CollectiveArrivals& c = s.collectives[i];
    if (!c.analysed) continue;
    const TimeNs arrival = c.arrival_ns[bounding_index(c)];
    const auto next = std::upper_bound(starts.begin(), starts.end(), arrival);
    if (next == starts.begin()) continue;
    const auto k = static_cast<std::size_t>(next - starts.begin()) - 1;
    if (k + 1 == n && arrival > ends[k]) continue;
    in_step[k].push_back(i);
  }
  std::vector<StepPath> out;
  for (std::size_t k = 0; k < n; ++k) {
    StepPath step;
    step.name = ranks[0].steps[k].name;
    step.start_ns = starts[k];
    const TimeNs t = chain_through(s, in_step[k], step, starts[k]);
    finish(step, t, ends[k], end_rank[k]);
    step.collectives = std::move(in_step[k]);
    out.push_back(std::move(step));
  }
  return out;
}

}  // namespace

StepPaths step_paths(const Stragglers& stragglers, std::span<const RankSteps> ranks) {
  StepPaths out;
  if (stragglers.ranks.size() < 2 || ranks.size() != stragglers.ranks.size() || stragglers.collectives.empty())
    return out;
  const std::size_t n = ranks[0].steps.size();
  bool same = n > 0;
  bool any = false;
  for (const RankSteps& r : ranks) {
    same = same && r.steps.size() == n;
    any = any || !r.steps.empty();
  }
  if (same) {
    out.basis = StepBasis::ProfilerSteps;
    out.steps = by_profiler_steps(stragglers, ranks);
    return out;
  }
  if (any) {
    std::string counts;
    for (std::size_t r = 0; r < ranks.size(); ++r)
      counts += (r == 0 ? "" : ", ") + std::string("rank ") + std::to_string(stragglers.ranks[r]) + " " +
                std::to_string(ranks[r].steps.size());
    out.basis_note = "the ranks mark different numbers of profiler steps (" + counts + ")";
  }
  out.basis = StepBasis::Collectives;
  out.steps = by_collectives(stragglers, ranks);
  return out;
}

}  // namespace gtv::ranks
