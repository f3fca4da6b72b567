// gtv-cli compare A B [--format text|markdown|json]: two runs side by side.
#include <ostream>

#include "command.h"
#include "gtv/analysis/format.h"
#include "load.h"

namespace gtv::cli {
namespace {

int run_compare(const ParsedArgs& args, Io io) {
  const auto format = analysis::format_from_string(args.value("--format").value_or("text"));
  if (!format) return usage_error(compare_command().spec, format.error().message, io);
  const std::optional<Trace> a = load_trace_or_report(args.positionals[0], io);
  if (!a) return kExitBadInput;
  const std::optional<Trace> b = load_trace_or_report(args.positionals[1], io);
  if (!b) return kExitBadInput;
  return input_error("compare: the comparison report is not in this build yet", io);
}

}  // namespace

const Command& compare_command() {
  static const Command command{
      CommandSpec{
          .name = "compare",
          .summary = "compare two traces: wall time, GPU busy, overlap, speedup, per-kernel differences",
          .positionals = "A B",
          .min_positionals = 2,
          .max_positionals = 2,
          .options = {value_option("--format", "FMT", "text (default), markdown or json")},
          .details = "A is the reference run; B is the run compared with it.",
      },
      &run_compare};
  return command;
}

}  // namespace gtv::cli
