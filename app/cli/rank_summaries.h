#pragma once
// The ranks of one run analysed from their summaries: each rank file read, summarized and let go (several at once,
// on threads of their own), then the summaries reduced into the cross-rank report. Memory holds at most `jobs`
// traces at a time, not the run; `gtv-cli analyze` of several files and `gtv-cli reduce` print the same report.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "command.h"
#include "gtv/analysis/format.h"
#include "gtv/model/rank_merge.h"
#include "gtv/ranks/summary.h"
#include "rank_verdicts.h"

namespace gtv::cli {

// Most rank files read at once by default; with more, the memory of traces in flight grows and the disk is the limit.
inline constexpr unsigned kMaxDefaultJobs = 8;

// The machine's cores, at most kMaxDefaultJobs.
[[nodiscard]] unsigned default_summary_jobs();

struct RankFiles {
  std::vector<ranks::RankSummary> summaries;  // in the files' order (gtv/ranks/summary.h: one per rank a file holds)
  std::vector<FileVerdict> verdicts;          // one per file, in the files' order, when asked for; else empty
};

// Each file read and summarized (with verdicts: also analysed on its own, which costs that file's whole analysis).
// Each file's reader warnings go to io.err in the files' order; a file that cannot be read stops the rest: its
// one-line error (naming it) on io.err, and nullopt. With several unreadable files the first of them in the given
// order is named.
[[nodiscard]] std::optional<RankFiles> summarize_files_or_report(const std::vector<std::string>& paths, unsigned jobs,
                                                                 bool with_verdicts, Io io);

// Reduces the summaries and prints the report (io.out), the reduction's warnings and notes (io.err); kExitOk or,
// when they do not reduce (one line naming the files), kExitBadInput. With verdicts, the report ends with each
// rank's own verdict (with_rank_verdicts).
int print_reduction(std::span<const ranks::RankSummary> summaries, const RankMergeOptions& options,
                    analysis::Format format, analysis::Listing listing, Io io,
                    std::span<const FileVerdict> verdicts = {});

}  // namespace gtv::cli
