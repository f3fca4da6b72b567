// gtv-cli analyze FILE [--format text|markdown|json] [--all]: the verdict in words and numbers.
#include <ostream>
#include <string>

#include "command.h"
#include "gtv/analysis/analysed_trace.h"
#include "load.h"

namespace gtv::cli {
namespace {

int run_analyze(const ParsedArgs& args, Io io) {
  const auto format = analysis::format_from_string(args.value("--format").value_or("text"));
  if (!format) return usage_error(analyze_command().spec, format.error().message, io);
  const Expected<RankMergeOptions> merge_options = parse_rank_merge_options(args);
  if (!merge_options) return usage_error(analyze_command().spec, merge_options.error().message, io);
  std::optional<Trace> trace = load_run_or_report(args.positionals, *merge_options, io);
  if (!trace) return kExitBadInput;
  const auto listing = args.has("--all") ? analysis::Listing::All : analysis::Listing::Capped;
  const auto analysed = analysis::AnalysedTrace::make(std::move(*trace));
  io.out << analysis::format_report(analysed->report(), *format, listing);
  return kExitOk;
}

}  // namespace

const Command& analyze_command() {
  static const std::string details =
      "The text report puts the verdict first, then the numbers. Text and markdown show the first " +
      std::to_string(analysis::kMaxListedEntries) +
      " entries of each list of GPUs, streams, measurements or findings and the top " +
      std::to_string(analysis::kMaxTableRows) +
      " rows of each ranked table (kernels, blocking calls, idle causes), then how many more there are; json lists "
      "every GPU, stream, measurement and finding. Several FILEs are the ranks of one run, merged as `gtv-cli "
      "merge` does.";
  static const Command command{
      CommandSpec{
          .name = "analyze",
          .summary = "report GPU overlap, warm-up, host blocking, launch latency, timing truth, kernel stats",
          .positionals = "FILE...",
          .min_positionals = 1,
          .max_positionals = 4096,
          .options = with_rank_merge_options(
              {value_option("--format", "FMT", "text (default), markdown or json"),
               flag_option("--all", "list every row of every table and list (text and markdown)")}),
          .details = details,
      },
      &run_analyze};
  return command;
}

}  // namespace gtv::cli
