// gtv-cli reduce A.gtvsum B.gtvsum ...: the cross-rank report of a run from its rank summaries.
#include <ostream>

#include "command.h"
#include "gtv/ranks/reduce.h"
#include "gtv/ranks/summary_file.h"
#include "load.h"

namespace gtv::cli {
namespace {

int run_reduce(const ParsedArgs& args, Io io) {
  const auto format = analysis::format_from_string(args.value("--format").value_or("text"));
  if (!format) return usage_error(reduce_command().spec, format.error().message, io);
  Expected<RankMergeOptions> options = parse_rank_merge_options(args);
  if (!options) return usage_error(reduce_command().spec, options.error().message, io);
  std::vector<ranks::RankSummary> summaries;
  for (const std::string& path : args.positionals) {
    Expected<std::vector<ranks::RankSummary>> read = ranks::read_summary_file(path);
    if (!read) return input_error(read.error().message, io);
    for (ranks::RankSummary& s : *read) summaries.push_back(std::move(s));
  }
  const Expected<ranks::RankReport> report = ranks::reduce(summaries, *options);
  if (!report) return input_error(report.error().message, io);
  for (const std::string& warning : report->warnings) io.err << "gtv-cli: warning: " << warning << "\n";
  if (report->summary.ranks.empty())
    io.err << "gtv-cli: note: " << summaries.front().source << " is one rank: nothing to compare across ranks\n";
  const auto listing = args.has("--all") ? analysis::Listing::All : analysis::Listing::Capped;
  io.out << ranks::format_rank_report(*report, *format, listing);
  return kExitOk;
}

}  // namespace

const Command& reduce_command() {
  static const Command command{
      CommandSpec{
          .name = "reduce",
          .summary = "the cross-rank report (stragglers, waits, clocks) from the ranks' summaries",
          .positionals = "SUMMARY...",
          .min_positionals = 1,
          .max_positionals = 1'000'000,
          .options = with_rank_merge_options({value_option("--format", "FMT", "text (default), markdown or json"),
                                              flag_option("--all", "list every collective (text and markdown)")}),
          .details =
              "Each SUMMARY is a .gtvsum that `gtv-cli summarize` wrote: the ranks of one run, from their own "
              "files (their clocks aligned as `merge` aligns them: --clock, --shift) or from one merged run. The "
              "report is the cross-rank part of `gtv-cli analyze` of the merged run: the ranks, the clock "
              "alignment, who arrived last at which collective, the waits that happened and the clock offsets "
              "with their error bars. Refused: a damaged or unreadable summary, a summary of another version, a "
              "rank twice, world sizes that disagree, summaries far apart in time (unless --allow-far-apart) or of "
              "different merged runs.",
      },
      &run_reduce};
  return command;
}

}  // namespace gtv::cli
