// gtv-cli info FILE [--json]: what is in a trace, at a glance.
#include <ostream>

#include "command.h"
#include "gtv/analysis/summary.h"
#include "load.h"

namespace gtv::cli {
namespace {

int run_info(const ParsedArgs& args, Io io) {
  const std::optional<Trace> trace = load_trace_or_report(args.positionals[0], io);
  if (!trace) return kExitBadInput;
  const analysis::TraceSummary summary = analysis::summarize(*trace);
  io.out << (args.has("--json") ? analysis::format_summary_json(summary) : analysis::format_summary_text(summary));
  return kExitOk;
}

}  // namespace

const Command& info_command() {
  static const Command command{
      CommandSpec{
          .name = "info",
          .summary = "show what a trace holds: source, span, processes, GPUs, streams, counts, busy time",
          .positionals = "FILE",
          .min_positionals = 1,
          .max_positionals = 1,
          .options = {flag_option("--json", "print JSON instead of text")},
          .details = "FILE is a Chrome/Kineto trace (.json or .json.gz; gzip is detected by content).",
      },
      &run_info};
  return command;
}

}  // namespace gtv::cli
