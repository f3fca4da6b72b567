// gtv-cli reduce A.gtvsum B.gtvsum ...: the cross-rank report of a run from its rank summaries.
#include <filesystem>
#include <ostream>
#include <system_error>

#include "command.h"
#include "gtv/io/output_file.h"
#include "gtv/ranks/summary_file.h"
#include "load.h"
#include "rank_summaries.h"

namespace gtv::cli {
namespace {

// A summary's source as a path that opens from anywhere: relative to its summary's folder where the file is there,
// else to the current folder where it is there; as it was otherwise.
std::string absolute_source(const ranks::RankSummary& s) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path source(s.source);
  if (s.source.empty() || source.is_absolute()) return s.source;
  const fs::path beside = fs::path(s.file).parent_path() / source;
  if (!s.file.empty() && fs::exists(beside, ec)) return fs::absolute(beside, ec).lexically_normal().string();
  if (fs::exists(source, ec)) return fs::absolute(source, ec).lexically_normal().string();
  return s.source;
}

// --gather OUT: the summaries of the run in one .gtvsum, sources made absolute.
int gather(std::vector<ranks::RankSummary> summaries, const std::string& out, const ParsedArgs& args, Io io) {
  std::error_code ec;
  for (const std::string& in : args.positionals)
    if (std::filesystem::equivalent(in, out, ec))
      return usage_error(reduce_command().spec, "--gather " + out + " names a summary read: give a new file", io);
  for (ranks::RankSummary& s : summaries) s.source = absolute_source(s);
  const std::string bytes = ranks::summary_file_bytes(summaries);
  if (const Status written = io::write_output_file(out, bytes); !written)
    return input_error(written.error().message, io);
  io.err << "wrote " << out << " (" << summaries.size() << " rank summaries, " << bytes.size() << " bytes)\n";
  return kExitOk;
}

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
  const auto listing = args.has("--all") ? analysis::Listing::All : analysis::Listing::Capped;
  if (const int status = print_reduction(summaries, *options, *format, listing, io); status != kExitOk) return status;
  if (const auto out = args.value("--gather")) return gather(std::move(summaries), *out, args, io);
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
          .options =
              with_rank_merge_options({value_option("--format", "FMT", "text (default), markdown or json"),
                                       flag_option("--all", "list every collective and step (text and markdown)"),
                                       value_option("--gather", "OUT",
                                                    "also write the summaries, gathered into one .gtvsum "
                                                    "(sources made absolute), for `gtv OUT`")}),
          .details =
              "Each SUMMARY is a .gtvsum that `gtv-cli summarize` wrote: the ranks of one run, from their own "
              "files (their clocks aligned as `merge` aligns them: --clock, --shift) or from one merged run. The "
              "report is what `gtv-cli analyze` of the rank files prints, the cross-rank part of `gtv-cli analyze "
              "--merged`'s report on the merged run: the ranks, the clock "
              "alignment, who arrived last at which collective, the waits that happened and the clock offsets "
              "with their error bars; then each step's critical path across the ranks (the chain through the rank each "
              "collective waited for), its bounding rank and that rank's share of the step. Refused: a damaged or "
              "unreadable summary, a summary of another version, a "
              "rank twice, world sizes that disagree, summaries far apart in time (unless --allow-far-apart) or of "
              "different merged runs. --gather OUT writes the run's summaries into one file, each rank's source made "
              "absolute where the file is found (beside its summary, else from here): `gtv OUT` opens it as the "
              "ranks overview and a click on a rank opens its trace; `gtv-cli reduce OUT` reduces it again.",
      },
      &run_reduce};
  return command;
}

}  // namespace gtv::cli
