// gtv-cli compare A B [--format text|markdown|json]: two runs side by side.
#include <filesystem>
#include <ostream>
#include <system_error>
#include <utility>

#include "command.h"
#include "gtv/analysis/analysed_trace.h"
#include "gtv/analysis/compare.h"
#include "gtv/analysis/report.h"
#include "gtv/io/readable_formats.h"
#include "load.h"

namespace gtv::cli {
namespace {

// The file name without directories and trace extensions names a run in the report ("streams" for
// traces/streams.json.gz), so the columns say which run is which; two files of one name are told apart by their
// folders ("r1/x", "r2/x").
std::pair<std::string, std::string> run_labels(const std::string& a, const std::string& b) {
  const auto absolute = [](const std::string& path) {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().generic_string();
  };
  return analysis::run_labels(absolute(a), io::trace_stem(a), absolute(b), io::trace_stem(b));
}

int run_compare(const ParsedArgs& args, Io io) {
  const auto format = analysis::format_from_string(args.value("--format").value_or("text"));
  if (!format) return usage_error(compare_command().spec, format.error().message, io);
  std::optional<Trace> a = load_trace_or_report(args.positionals[0], io);
  if (!a) return kExitBadInput;
  std::optional<Trace> b = load_trace_or_report(args.positionals[1], io);
  if (!b) return kExitBadInput;
  const auto [label_a, label_b] = run_labels(args.positionals[0], args.positionals[1]);
  const auto analysed_a = analysis::AnalysedTrace::make(std::move(*a));
  const auto analysed_b = analysis::AnalysedTrace::make(std::move(*b));
  const analysis::Report& ra = analysed_a->report();
  const analysis::Report& rb = analysed_b->report();
  analysis::Comparison comparison =
      analysis::compare(analysed_a->trace(), ra, analysed_b->trace(), rb, label_a, label_b);
  analysis::note_tracing_overhead(comparison, ra, rb);
  io.out << analysis::format_comparison(comparison, *format);
  return kExitOk;
}

}  // namespace

const Command& compare_command() {
  static const Command command{
      CommandSpec{
          .name = "compare",
          .summary = "compare two traces: speedup of the work both measured, wall time, GPU busy, overlap, kernels",
          .positionals = "A B",
          .min_positionals = 2,
          .max_positionals = 2,
          .options = {value_option("--format", "FMT", "text (default), markdown or json")},
          .details = "A is the reference run; B is the run compared with it. The speedup is of the measurements both "
                     "traces share, else of their timed windows, else of their steady parts (after warm-up), else "
                     "of the whole traces; the report says which. Traces that ran different numbers of iterations "
                     "of the same work are compared per iteration; a warning says when the kernels differ.",
      },
      &run_compare};
  return command;
}

}  // namespace gtv::cli
