// gtv-cli convert IN OUT: any readable trace to gtv's Kineto-compatible format.
#include <ostream>

#include "command.h"
#include "gtv/io/trace_file.h"
#include "load.h"

namespace gtv::cli {
namespace {

int run_convert(const ParsedArgs& args, Io io) {
  const std::string& in_path = args.positionals[0];
  const std::string& out_path = args.positionals[1];
  const std::optional<Trace> trace = load_trace_or_report(in_path, io);
  if (!trace) return kExitBadInput;
  const Status written = io::write_trace(*trace, out_path);
  if (!written) return input_error(written.error().message, io);
  io.err << "wrote " << out_path << " (" << trace->event_count() << " events)\n";
  return kExitOk;
}

}  // namespace

const Command& convert_command() {
  static const Command command{
      CommandSpec{
          .name = "convert",
          .summary = "rewrite a trace in gtv's Kineto-compatible format (gzip if OUT ends in .gz)",
          .positionals = "IN OUT",
          .min_positionals = 2,
          .max_positionals = 2,
          .options = {},
          .details =
              "IN is any trace gtv reads. A regular OUT is replaced atomically (temporary file, then rename) and "
              "keeps its mode; a symlink's target is written; a FIFO or device (/dev/stdout) is written into; "
              "a directory is refused. Interrupted or failed writes leave OUT as it was.",
      },
      &run_convert};
  return command;
}

}  // namespace gtv::cli
