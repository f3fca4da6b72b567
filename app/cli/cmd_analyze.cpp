// gtv-cli analyze FILE... [--format text|markdown|json] [--all] [--merged] [--jobs N]: the verdict in words and
// numbers. One file: its whole report. Several, the ranks of one run: each summarized, the summaries reduced into
// the cross-rank report (as `gtv-cli summarize` of each and `gtv-cli reduce` print it); --merged: the ranks merged
// into one trace in memory and its whole report.
#include <ostream>
#include <string>

#include "command.h"
#include "gtv/analysis/analysed_trace.h"
#include "load.h"
#include "rank_summaries.h"

namespace gtv::cli {
namespace {

// As `gtv-cli merge` takes: the whole run in one process's memory.
constexpr std::size_t kMaxMergedFiles = 4096;

Expected<unsigned> parse_jobs(const ParsedArgs& args) {
  const std::optional<std::string> text = args.value("--jobs");
  if (!text) return default_summary_jobs();
  if (args.has("--merged"))
    return Error{"--jobs sets how many rank files are summarized at once; --merged reads them all"};
  const Expected<long long> jobs = parse_count("--jobs", *text);
  if (!jobs) return jobs.error();
  if (*jobs < 1 || *jobs > 1024) return Error{"--jobs: between 1 and 1024 files at once, got " + *text};
  return static_cast<unsigned>(*jobs);
}

int run_analyze(const ParsedArgs& args, Io io) {
  const auto format = analysis::format_from_string(args.value("--format").value_or("text"));
  if (!format) return usage_error(analyze_command().spec, format.error().message, io);
  const Expected<RankMergeOptions> merge_options = parse_rank_merge_options(args);
  if (!merge_options) return usage_error(analyze_command().spec, merge_options.error().message, io);
  const Expected<unsigned> jobs = parse_jobs(args);
  if (!jobs) return usage_error(analyze_command().spec, jobs.error().message, io);
  const auto listing = args.has("--all") ? analysis::Listing::All : analysis::Listing::Capped;
  if (args.has("--merged") && args.positionals.size() > kMaxMergedFiles)
    return usage_error(analyze_command().spec,
                       "--merged: at most " + std::to_string(kMaxMergedFiles) + " files in one trace (given " +
                           std::to_string(args.positionals.size()) + "); without --merged their summaries are reduced",
                       io);
  if (args.positionals.size() >= 2 && !args.has("--merged")) {
    const std::optional<RankFiles> files =
        summarize_files_or_report(args.positionals, *jobs, args.has("--per-rank"), io);
    if (!files) return kExitBadInput;
    return print_reduction(files->summaries, *merge_options, *format, listing, io, files->verdicts);
  }
  if (args.has("--per-rank"))
    return usage_error(analyze_command().spec,
                       args.positionals.size() == 1 ? "--per-rank gives each rank's own verdict; one file was given"
                                                    : "--per-rank adds each rank's own verdict to the summaries' "
                                                      "report; --merged reports every rank in full",
                       io);
  std::optional<Trace> trace = load_run_or_report(args.positionals, *merge_options, io);
  if (!trace) return kExitBadInput;
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
      "every GPU, stream, measurement and finding. "
      "Several FILEs are the ranks of one run. Each is read and summarized (as `gtv-cli summarize` does; --jobs "
      "at once, so memory holds that many ranks, not the run) and the summaries are reduced into the cross-rank "
      "report, the one `gtv-cli reduce` prints of them: the ranks and their clock alignment with error bars, who "
      "arrived last at which collective and the waits that happened, each step's critical path across the ranks and "
      "its bounding rank. It says it was computed from the summaries; it has no per-GPU analysis. --per-rank also "
      "analyzes each file on its own (its whole analysis, on the same threads) and ends the report with each rank's "
      "own verdict, the first lines of what `gtv-cli analyze RANK_FILE` says (--all: all of it). A file that "
      "cannot be read, or ranks that are not one run, stop it with one line naming the file and exit status 1. "
      "--merged instead merges the files into one trace in memory (as `gtv-cli merge` does, the whole run at once) "
      "and prints that trace's whole report, the cross-rank section among the rest: the same as `gtv-cli merge "
      "FILE... -o run.json && gtv-cli analyze run.json`; it takes at most 4096 files, the summaries' way a million.";
  static const Command command{
      CommandSpec{
          .name = "analyze",
          .summary = "report GPU overlap, warm-up, host blocking, launch latency, timing truth, kernel stats",
          .positionals = "FILE...",
          .min_positionals = 1,
          .max_positionals = 1'000'000,
          .options = with_rank_merge_options(
              {value_option("--format", "FMT", "text (default), markdown or json"),
               flag_option("--all", "list every row of every table and list (text and markdown)"),
               flag_option("--merged", "with several files, merge them into one trace and report all of it"),
               flag_option("--per-rank",
                           "with several files, also analyze each on its own and give its verdict after the "
                           "cross-rank report (costs each file's whole analysis)"),
               value_option("--jobs", "N",
                            "with several files, summarize this many at once (default: the machine's cores, at "
                            "most 8)")}),
          .details = details,
      },
      &run_analyze};
  return command;
}

}  // namespace gtv::cli
