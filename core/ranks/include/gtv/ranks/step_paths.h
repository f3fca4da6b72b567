#pragma once
// Each step's critical path across the ranks of a run: the chain through the rank each collective waited for.
// Within a step, a rank that arrives at a collective holds every rank that waits for it, so the step's time runs
// along one chain: the rank the others waited for at each collective (the culprit; the last to arrive where nobody
// waited), its work from where the chain stood (the end of the previous collective's part on the chain, or the
// step's start) to its arrival, then the collective until that rank's part ended (the transfer after the last arrival).
// A tail runs from the chain's last collective to the step's end. The links are contiguous: they add up to the step's
// length. The step's bounding rank is the rank with the most work on its chain.
//
// Steps are the profiler steps the ranks mark (StepWork, "ProfilerStep#N") when every rank marks the same number of
// them: step k runs from its earliest start on any rank to its latest end (or to the end of its chain, when GPU work
// outlasts the host's annotation), and holds the collectives whose chain arrival falls between its start and the
// next step's start. Otherwise a step ends at each collective every rank waits for (all-reduce, all-gather,
// reduce-scatter, barrier, all-to-all: every rank's part ends once the last has arrived), from the end of the one
// before (the first from the run's first recorded activity) to the latest end of that collective on any rank.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gtv/analysis/format.h"
#include "gtv/analysis/stragglers.h"
#include "gtv/ranks/summary.h"

namespace gtv::ranks {

enum class StepBasis {
  None,           // nothing across ranks: fewer than two ranks with matched collectives
  ProfilerSteps,  // the ranks' "ProfilerStep#N" annotations
  Collectives,    // the collectives every rank waits for
};

enum class LinkKind { Work, Collective, Tail };

struct PathLink {
  LinkKind kind = LinkKind::Work;
  std::int64_t rank = 0;  // whose time: the rank that worked, whose part of the collective ran, or ended the step
  TimeNs start_ns = 0;    // on the run's one clock
  TimeNs end_ns = 0;
  std::int64_t collective = -1;  // Collective links: the index into Stragglers::collectives; -1 otherwise
};

struct StepPath {
  std::string name;  // "ProfilerStep#3", or "step 4" for a step ended by a collective
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::vector<PathLink> links;  // from start_ns to end_ns, each starting where the one before ends
  // The matched collectives the step holds (indices into Stragglers::collectives, in order): those its chain runs
  // through, including any whose part on the chain is empty.
  std::vector<std::size_t> collectives;
  std::int64_t bounding_rank = -1;
  TimeNs bounding_work_ns = 0;  // the bounding rank's work on the chain
};

struct StepPaths {
  StepBasis basis = StepBasis::None;
  std::string basis_note;  // why the profiler steps were not used, when some rank marks them; empty otherwise
  std::vector<StepPath> steps;
};

// One rank's span and steps on the run's one clock, in the order of Stragglers::ranks.
struct RankSteps {
  TimeNs start_ns = 0;  // its first recorded activity
  std::vector<StepWork> steps;
};

[[nodiscard]] StepPaths step_paths(const analysis::Stragglers& stragglers, std::span<const RankSteps> ranks);

// The "Critical path across ranks" section (text or Markdown: appended to the report) and its JSON value
// (the report's "critical_path_across_ranks" object); empty strings when basis is None.
[[nodiscard]] std::string format_step_paths(const StepPaths& paths, const analysis::Stragglers& stragglers,
                                            analysis::Format format, analysis::Listing listing);

}  // namespace gtv::ranks
