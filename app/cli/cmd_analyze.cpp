// gtv-cli analyze FILE [--format text|markdown|json]: the verdict in words and numbers.
#include <ostream>

#include "command.h"
#include "gtv/analysis/report.h"
#include "load.h"

namespace gtv::cli {
namespace {

int run_analyze(const ParsedArgs& args, Io io) {
  const auto format = analysis::format_from_string(args.value("--format").value_or("text"));
  if (!format) return usage_error(analyze_command().spec, format.error().message, io);
  const std::optional<Trace> trace = load_trace_or_report(args.positionals[0], io);
  if (!trace) return kExitBadInput;
  io.out << analysis::format_report(analysis::analyze(*trace), *format);
  return kExitOk;
}

}  // namespace

const Command& analyze_command() {
  static const Command command{
      CommandSpec{
          .name = "analyze",
          .summary = "report GPU overlap, warm-up, host blocking, launch latency, timing truth, kernel stats",
          .positionals = "FILE",
          .min_positionals = 1,
          .max_positionals = 1,
          .options = {value_option("--format", "FMT", "text (default), markdown or json")},
          .details = "The text report puts the verdict first, then the numbers.",
      },
      &run_analyze};
  return command;
}

}  // namespace gtv::cli
