// gtv-cli summarize FILE -o OUT.gtvsum: what the cross-rank analysis needs from the ranks a trace holds.
#include <sys/stat.h>

#include <ostream>

#include "command.h"
#include "gtv/analysis/format.h"
#include "gtv/io/output_file.h"
#include "gtv/ranks/summary_file.h"
#include "load.h"

namespace gtv::cli {
namespace {

std::int64_t file_bytes(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_size) : -1;
}

int run_summarize(const ParsedArgs& args, Io io) {
  const std::optional<std::string> out_path = args.value("--output");
  if (!out_path || out_path->empty()) return usage_error(summarize_command().spec, "summarize needs -o OUT", io);
  const std::string& in_path = args.positionals[0];
  struct stat in {
  }, out{};
  if (::stat(in_path.c_str(), &in) == 0 && ::stat(out_path->c_str(), &out) == 0 && in.st_dev == out.st_dev &&
      in.st_ino == out.st_ino)
    return usage_error(summarize_command().spec, "-o " + *out_path + " names the input: give a new file", io);
  const std::optional<Trace> trace = load_trace_or_report(in_path, io);
  if (!trace) return kExitBadInput;
  const std::vector<ranks::RankSummary> summaries = ranks::summarize(*trace, in_path);
  const std::string bytes = ranks::summary_file_bytes(summaries);
  if (const Status written = io::write_output_file(*out_path, bytes); !written)
    return input_error(written.error().message, io);
  std::size_t collectives = 0;
  for (const ranks::RankSummary& s : summaries) collectives += s.collectives.size();
  const std::int64_t trace_bytes = file_bytes(in_path);
  io.err << "wrote " << *out_path << " (" << summaries.size() << (summaries.size() == 1 ? " rank, " : " ranks, ")
         << collectives << " collectives, " << bytes.size() << " bytes";
  if (trace_bytes > 0)
    io.err << ": " << analysis::percent(static_cast<double>(bytes.size()) / static_cast<double>(trace_bytes), 2)
           << " of the trace file's " << trace_bytes << " bytes";
  io.err << ")\n";
  return kExitOk;
}

}  // namespace

const Command& summarize_command() {
  static const Command command{
      CommandSpec{
          .name = "summarize",
          .summary = "write what the cross-rank analysis needs from a rank's trace (.gtvsum) for `reduce`",
          .positionals = "FILE",
          .min_positionals = 1,
          .max_positionals = 1,
          .options = {value_option("--output", "OUT", "the summary (.gtvsum)", 'o')},
          .details =
              "FILE is one rank's trace (PyTorch profiler / Kineto JSON, gtv, Nsight Systems SQLite), or a run "
              "merged from rank files (then OUT holds every rank, with the merge's clock alignment). OUT keeps the "
              "rank and world size, the clock anchor, the GPUs, every collective (process group, kind, size, "
              "sequence number, arrival, end) and FILE's path; it grows with the number of collectives only. "
              "docs/summary-format.md describes it. `gtv-cli reduce` turns the summaries of a run into its "
              "cross-rank report without loading any trace.",
      },
      &run_summarize};
  return command;
}

}  // namespace gtv::cli
