// gtv-cli merge A B ... -o OUT: the per-rank files of one torch.distributed run as one trace.
#include <sys/stat.h>

#include <ostream>

#include "command.h"
#include "gtv/io/trace_file.h"
#include "load.h"

namespace gtv::cli {
namespace {

// The input that OUT names (through links too), if any: the merged trace would replace one of its own inputs.
std::optional<std::string> input_named_by(const std::string& out_path, const std::vector<std::string>& inputs) {
  struct stat out {};
  if (::stat(out_path.c_str(), &out) != 0) return std::nullopt;
  for (const std::string& input : inputs) {
    struct stat in {};
    if (::stat(input.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino) return input;
  }
  return std::nullopt;
}

int run_merge(const ParsedArgs& args, Io io) {
  const std::optional<std::string> out_path = args.value("--output");
  if (!out_path || out_path->empty()) return usage_error(merge_command().spec, "merge needs -o OUT", io);
  if (const std::optional<std::string> input = input_named_by(*out_path, args.positionals))
    return usage_error(merge_command().spec,
                       "-o " + *out_path + " names the input " + *input + ": give a new file for the merged trace", io);
  const Expected<RankMergeOptions> options = parse_rank_merge_options(args);
  if (!options) return usage_error(merge_command().spec, options.error().message, io);
  const std::optional<Trace> trace = load_run_or_report(args.positionals, *options, io);
  if (!trace) return kExitBadInput;
  const Status written = io::write_trace(*trace, *out_path);
  if (!written) return input_error(written.error().message, io);
  io.err << "wrote " << *out_path << " (" << trace->metadata().ranks.size() << " ranks, " << trace->event_count()
         << " events; clock: " << trace->metadata().clock.method << ")\n";
  return kExitOk;
}

}  // namespace

const Command& merge_command() {
  static const Command command{
      CommandSpec{
          .name = "merge",
          .summary = "merge the per-rank trace files of one distributed run into one trace",
          .positionals = "FILE FILE...",
          .min_positionals = 2,
          .max_positionals = 4096,
          .options = with_rank_merge_options({value_option("--output", "OUT", "the merged trace", 'o')}),
          .details =
              "Each FILE is one rank's trace (PyTorch profiler / Kineto JSON, gtv, Nsight Systems SQLite). The "
              "rank and world size come from each file's distributedInfo, else from the order of the files. Lanes "
              "are named \"rank R · GPU G · stream S\"; GPU ids that several ranks share (each rank sees its GPU "
              "as cuda:0) are renumbered, the rank's own id kept in the name. The clock method, its basis and the "
              "residual (how far apart the ends of one collective still are) are written into OUT and shown by "
              "info and analyze. Refused: a rank twice, a rank outside its world size, world sizes that disagree, "
              "files that start more than an hour apart (unless --allow-far-apart), times that the clock alignment "
              "would move outside [-2^62, 2^62) ns, OUT naming one of the FILEs, more than 4096 files; a missing "
              "rank is a warning.",
      },
      &run_merge};
  return command;
}

}  // namespace gtv::cli
