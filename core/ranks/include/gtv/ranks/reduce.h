#pragma once
// The cross-rank report from rank summaries alone: the ranks checked to be one run, their clocks put on one time axis
// and their collectives matched (the same functions as merging the rank files: gtv/model/rank_alignment.h), and who
// made whom wait with the clock offsets and their error bars (gtv/analysis/stragglers.h). Equal, field by field, to
// the cross-rank part of the analysis of the merged run; it reads no trace.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/analysis/format.h"
#include "gtv/analysis/stragglers.h"
#include "gtv/analysis/summary.h"
#include "gtv/model/rank_merge.h"
#include "gtv/ranks/step_paths.h"
#include "gtv/ranks/summary.h"
#include "gtv/whatif/predict.h"

namespace gtv::ranks {

struct RankReport {
  // As the merged run's summary has them: distributed (rank -1, the world size, the backend), ranks (pids left
  // empty: a summary does not keep host processes), clock, origin_unix_ns, start_ns and end_ns. Nothing else.
  analysis::TraceSummary summary;
  analysis::Stragglers stragglers;
  std::vector<std::string> warnings;  // what merging the files would warn of: ranks missing, clocks off, ...
  // Each step's critical path across the ranks (step_paths.h), from the stragglers' collectives and the ranks'
  // steps: beyond what the analysis of the merged run reports.
  StepPaths step_paths;
  // The balanced-ranks prediction on the run's window (gtv/whatif/balanced_ranks.h, the model `gtv-cli whatif
  // MERGED --change balanced-ranks` runs, from the same values): set when it applies, else why not in
  // balanced_ranks_error ("balanced-ranks: no rank made the others wait ..."); neither for a lone rank.
  std::optional<whatif::Prediction> balanced_ranks;
  std::string balanced_ranks_error;
};

// Summaries of the ranks of one run: each a rank's own file (then options align their clocks, as for a merge), or
// all the ranks of one merged run (then the merge's alignment stands and options must be the defaults). One
// summary of a rank's own file has nothing across ranks: an empty report. Errors (one line, naming the files):
// no summaries, a rank twice, world sizes that disagree, a rank outside its world, summaries of rank files mixed
// with those of a merged run or of two merged runs, recordings far apart, collectives alignment without matched
// collectives, times that leave the trace time range.
[[nodiscard]] Expected<RankReport> reduce(std::span<const RankSummary> summaries, const RankMergeOptions& options = {});

// What a reduction is computed from, and where the rest of the analysis is: the report's basis.
inline constexpr std::string_view kReducedBasis =
    "Computed from the ranks' summaries (what `gtv-cli summarize` keeps of each rank: its clock anchor, GPUs, "
    "collectives and steps), not from their traces: the cross-rank analysis only. Each rank's own report: `gtv-cli "
    "analyze RANK_FILE`; the whole run's, its ranks merged into one trace: `gtv-cli analyze --merged FILE...`.";

// The report as `gtv-cli analyze --merged` writes the cross-rank part of a merged run (analysis::format_ranks) with
// kReducedBasis as its basis, followed by the critical path across ranks (its section in text and Markdown,
// "critical_path_across_ranks" in JSON) when the report has one, then the balanced-ranks prediction as `gtv-cli whatif`
// writes it ("balanced_ranks" in JSON) or why it does not apply: with neither, exactly
// format_ranks(the merged run's report, format, listing, kReducedBasis).
[[nodiscard]] std::string format_rank_report(const RankReport& report, analysis::Format format,
                                             analysis::Listing listing = analysis::Listing::Capped);

}  // namespace gtv::ranks
