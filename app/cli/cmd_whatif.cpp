// gtv-cli whatif TRACE --change C [--change C2] [--format text|markdown|json]: predict a change from one recording.
#include <ostream>
#include <vector>

#include "command.h"
#include "gtv/analysis/analysed_trace.h"
#include "gtv/whatif/change.h"
#include "gtv/whatif/predict.h"
#include "load.h"

namespace gtv::cli {
namespace {

int run_whatif(const ParsedArgs& args, Io io) {
  const std::string format_text = args.value("--format").value_or("text");
  whatif::Format format = whatif::Format::Text;
  if (format_text == "markdown") {
    format = whatif::Format::Markdown;
  } else if (format_text == "json") {
    format = whatif::Format::Json;
  } else if (format_text != "text") {
    return usage_error(whatif_command().spec, "unknown format '" + format_text + "' (text, markdown or json)", io);
  }
  const std::vector<std::string> texts = args.all("--change");
  if (texts.empty()) return usage_error(whatif_command().spec, "at least one --change is needed", io);
  std::vector<whatif::Change> changes;
  changes.reserve(texts.size());
  for (const std::string& t : texts) {
    Expected<whatif::Change> c = whatif::parse_change(t);
    if (!c) return usage_error(whatif_command().spec, c.error().message, io);
    changes.push_back(std::move(c).value());
  }
  if (Expected<Ok> ok = whatif::check_compatible(changes); !ok)
    return usage_error(whatif_command().spec, ok.error().message, io);
  whatif::Options options;
  options.owners = args.value("--owners").value_or("");
  if (args.value("--owners") && options.owners.empty())
    return usage_error(whatif_command().spec, "--owners needs a pattern ('model *', 'nn.Module: Linear_*')", io);
  std::optional<Trace> trace = load_trace_or_report(args.positionals[0], io);
  if (!trace) return kExitBadInput;
  const auto analysed = analysis::AnalysedTrace::make(std::move(*trace));
  Expected<whatif::Prediction> p = whatif::predict(*analysed, changes, options);
  if (!p) return input_error(args.positionals[0] + ": " + p.error().message, io);
  io.out << whatif::format_prediction(*p, changes, format);
  return kExitOk;
}

}  // namespace

const Command& whatif_command() {
  static const std::string change_help =
      "a change, repeatable: " + std::string(whatif::change_names(whatif::ChangeList::Replayed));
  static const Command command{
      CommandSpec{
          .name = "whatif",
          .summary = "predict a change (streams, pinned, graphs, ...) from one recording: time, band, assumptions",
          .positionals = "TRACE",
          .min_positionals = 1,
          .max_positionals = 1,
          .options = {value_option("--change", "C", change_help),
                      value_option("--owners", "PATTERN",
                                   "the ranges that name whose work is whose (streams, placement, graphs): "
                                   "record_function, NVTX, nn.Module or gtv ranges whose names match; '*' matches "
                                   "any characters ('nn.Module: Linear_*'), else a name containing PATTERN"),
                      value_option("--format", "FMT", "text (default), markdown or json")},
          .details = "Applies the changes to the recording's happens-before graph and replays it (balanced-ranks, on "
                     "a run merged from ranks, is computed from the collectives' arrivals instead). Prints the timed "
                     "region's recorded and predicted length with a band, the predicted critical path and every "
                     "assumption made. Work owners come from gtv's \"model N forward\" ranges, else record_function or "
                     "NVTX ranges named \"model N\", or from --owners. Exits 1 when a change does not apply to the "
                     "trace, 2 on usage errors.",
      },
      &run_whatif};
  return command;
}

}  // namespace gtv::cli
