#pragma once
// Loading a trace for a command: on failure the reader's one-line error (which names the file) goes to stderr.
// Several files are the ranks of one run, merged into one trace (gtv/model/rank_merge.h).
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "gtv/model/rank_merge.h"
#include "gtv/model/trace.h"

namespace gtv::cli {

[[nodiscard]] std::optional<Trace> load_trace_or_report(const std::string& path, Io io);

// The options of commands that merge rank files: --clock, --shift, --allow-far-apart.
[[nodiscard]] std::vector<OptionSpec> rank_merge_options();
// options followed by those.
[[nodiscard]] std::vector<OptionSpec> with_rank_merge_options(std::vector<OptionSpec> options);
// Their values; a usage error names the option.
[[nodiscard]] Expected<RankMergeOptions> parse_rank_merge_options(const ParsedArgs& args);

// One file as it is; several merged as the ranks of one run, the merge's warnings on stderr.
[[nodiscard]] std::optional<Trace> load_run_or_report(const std::vector<std::string>& paths,
                                                      const RankMergeOptions& options, Io io);

}  // namespace gtv::cli
