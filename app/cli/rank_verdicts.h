#pragma once
// Each rank's own verdict after the cross-rank report of `gtv-cli analyze --per-rank RANK_FILE...`: what `gtv-cli
// analyze RANK_FILE` says first, from that file alone, rank by rank.
#include <span>
#include <string>
#include <vector>

#include "gtv/analysis/format.h"
#include "gtv/ranks/reduce.h"

namespace gtv::cli {

// A rank file's own verdict: the report's verdict of the file alone (analysis::Report::verdict).
struct FileVerdict {
  std::string source;  // the file, as given (the summary's source)
  std::vector<std::string> lines;
};

// Verdict lines shown per rank in text and Markdown unless Listing::All.
inline constexpr std::size_t kRankVerdictLines = 2;

// report_text (format_rank_report of report) followed by the "Each rank's own verdict" section (text, Markdown:
// the ranks in rank order, the first kRankVerdictLines lines of each and the first kMaxListedEntries ranks unless
// Listing::All), or with "ranks_own_verdict" as the JSON object's last field (every rank, every line).
[[nodiscard]] std::string with_rank_verdicts(const std::string& report_text, const ranks::RankReport& report,
                                             std::span<const FileVerdict> verdicts, analysis::Format format,
                                             analysis::Listing listing);

}  // namespace gtv::cli
