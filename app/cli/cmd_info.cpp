// gtv-cli info FILE [--json] [--all]: what is in a trace, at a glance.
#include <ostream>
#include <string>

#include "command.h"
#include "gtv/analysis/summary.h"
#include "load.h"

namespace gtv::cli {
namespace {

int run_info(const ParsedArgs& args, Io io) {
  const Expected<RankMergeOptions> merge_options = parse_rank_merge_options(args);
  if (!merge_options) return usage_error(info_command().spec, merge_options.error().message, io);
  const std::optional<Trace> trace = load_run_or_report(args.positionals, *merge_options, io);
  if (!trace) return kExitBadInput;
  const analysis::TraceSummary summary = analysis::summarize(*trace);
  const auto listing = args.has("--all") ? analysis::Listing::All : analysis::Listing::Capped;
  io.out << (args.has("--json") ? analysis::format_summary_json(summary)
                                : analysis::format_summary_text(summary, listing));
  return kExitOk;
}

}  // namespace

const Command& info_command() {
  static const std::string details =
      "FILE is a Chrome/Kineto trace (.json, .json.gz) or an Nsight Systems SQLite export (nsys export --type "
      "sqlite), plain or gzip: the format is detected by content. Several FILEs are the ranks of one run, merged as "
      "`gtv-cli merge` does. The text shows the first " +
      std::to_string(analysis::kMaxListedEntries) +
      " entries of each list (in pid, tid, index, stream or name order), then how many more there are.";
  static const Command command{
      CommandSpec{
          .name = "info",
          .summary = "show what a trace holds: source, span, processes, GPUs, streams, counts, busy time",
          .positionals = "FILE...",
          .min_positionals = 1,
          .max_positionals = 4096,
          .options = with_rank_merge_options(
              {flag_option("--json", "print JSON instead of text (it always lists every entry)"),
               flag_option("--all", "list every process, thread, GPU, stream and category")}),
          .details = details,
      },
      &run_info};
  return command;
}

}  // namespace gtv::cli
