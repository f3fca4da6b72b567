#pragma once
// A reduced run as the window opens it: the .gtvsum rank summaries of one run (a folder of them, the files
// themselves, or one file gathering a run's summaries), reduced into the cross-rank report (gtv/ranks/reduce.h),
// with where each rank's own trace is, how its clock sits on the run's, and its own steps.
#include <cstdint>
#include <string>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/ranks/reduce.h"

namespace gtv::ui {

struct RanksRun {
  std::string title;                       // the folder's or the first summary's name
  std::vector<std::string> summary_files;  // what was read, in the order read
  ranks::RankReport report;
  // Per rank of report.stragglers.ranks (the ranks that ran collectives, by rank): the rank's own trace file
  // (the summary's source, found beside the summary when it was given relative to another folder; empty when the
  // summary names none) and its clock's shift onto the run's (run time = own time + shift_ns).
  std::vector<std::string> rank_files;
  std::vector<TimeNs> shift_ns;
  // Per rank, likewise: its own steps ("ProfilerStep#N", the summary's), on its own clock; empty when it marks none.
  std::vector<std::vector<ranks::StepWork>> rank_steps;
};

// True for what opens as a reduced run: a folder, or a file named *.gtvsum.
[[nodiscard]] bool is_ranks_input(const std::string& path);

// Reads the summaries (every *.gtvsum of a folder, by name) and reduces them with options. Errors are one line:
// a folder without summaries, a summary that cannot be read (naming it), summaries that are not one run.
[[nodiscard]] Expected<RanksRun> load_ranks_run(const std::vector<std::string>& paths,
                                                const RankMergeOptions& options = {});

}  // namespace gtv::ui
