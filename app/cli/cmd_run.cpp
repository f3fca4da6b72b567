// gtv-cli run SCENARIO ... -o FILE: run an experiment under tracing and save what really happened.
#include <ostream>

#include "command.h"
#include "gtv/config.h"
#include "no_torch.h"
#if GTV_WITH_TORCH
#include <unistd.h>

#include "gtv/experiments/runner.h"
#include "gtv/io/trace_file.h"
#include "run_options.h"
#endif

namespace gtv::cli {
namespace {

#if GTV_WITH_TORCH
// One progress line on a terminal (rewritten in place); one line per step when stderr is a file or pipe.
class ProgressLine {
 public:
  explicit ProgressLine(std::ostream& err) : err_(err), tty_(isatty(STDERR_FILENO) == 1) {}
  ~ProgressLine() { finish(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(std::string_view text) {
    if (tty_) {
      const std::size_t pad = last_length_ > text.size() ? last_length_ - text.size() : 0;
      err_ << "\rgtv-cli run: " << text << std::string(pad, ' ') << std::flush;
      last_length_ = text.size();
    } else {
      err_ << "gtv-cli run: " << text << "\n" << std::flush;
    }
  }
  void finish() {
    if (tty_ && last_length_ > 0) err_ << "\n";
    last_length_ = 0;
  }

 private:
  std::ostream& err_;
  bool tty_;
  std::size_t last_length_ = 0;
};

int run_run(const ParsedArgs& args, Io io) {
  const CommandSpec& spec = run_command().spec;
  Expected<exp::RunConfig> config = run_config_from_args(args);
  if (!config) return usage_error(spec, config.error().message, io);
  if (!exp::find_scenario(config->scenario)) {
    io.err << "gtv-cli run: unknown scenario '" << config->scenario << "'; the scenarios are:\n";
    print_scenarios(io.err);
    return kExitUsage;
  }
  const std::string out_path = *args.value("--output");
  exp::RunResult result;
  {
    ProgressLine progress(io.err);
    result = exp::run_scenario(*config, [&progress](std::string_view line) { progress.update(line); });
  }
  bool written = false;
  if (result.trace) {
    const Status status = io::write_trace(*result.trace, out_path);
    if (!status) io.err << "gtv-cli run: " << status.error().message << "\n";
    written = status.ok();
  }
  if (!result.status) {
    io.err << "gtv-cli run: " << result.status.error().message << "\n";
    if (written) io.err << "gtv-cli run: the trace of what ran so far is in " << out_path << "\n";
    return kExitBadInput;
  }
  if (!written)
    return input_error(result.trace ? "run: the trace could not be written" : "run: no trace came back", io);
  io.err << "wrote " << out_path << " (" << result.trace->event_count() << " events)\n";
  return kExitOk;
}
#else
int run_run(const ParsedArgs& /*args*/, Io io) { return input_error(kNoTorchMessage, io); }
#endif

}  // namespace

const Command& run_command() {
  static const Command command{
      CommandSpec{
          .name = "run",
          .summary = "run an experiment scenario under tracing and write its trace (needs a LibTorch build)",
          .positionals = "SCENARIO",
          .min_positionals = 1,
          .max_positionals = 1,
          .options = {value_option("--output", "FILE", "trace to write (.json, or .json.gz for gzip); required", 'o'),
                      value_option("--models", "N", "number of models (default 3)"),
                      value_option("--hidden", "H", "hidden layer width (default 10000 on a GPU, 512 on the CPU)"),
                      value_option("--batch", "B", "batch size (default 100)"),
                      value_option("--iters", "K", "timed iterations (default 10)"),
                      value_option("--devices", "LIST", "GPU of each model, e.g. 0,1,0 (default round-robin)"),
                      flag_option("--no-warmup", "skip the warm-up pass"),
                      flag_option("--all-api", "keep noisy CUDA API calls (cudaGetDevice ...) in the trace")},
          .details = "`gtv-cli list` shows the scenarios; an unknown name prints the list and exits 2. Progress "
                     "goes to stderr. If the run fails part way (e.g. out of GPU memory), the trace of what ran so "
                     "far is still written and the exit code is 1. Without a GPU the scenario runs on the CPU.",
      },
      &run_run};
  return command;
}

}  // namespace gtv::cli
