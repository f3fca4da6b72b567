// gtv-run: runs one experiment scenario under tracing and writes its trace. The only program that loads LibTorch
// and CUPTI: `gtv-cli run` becomes it (exec) after checking its arguments, and the desktop program's run panel
// starts it as a child process. It takes the arguments of `gtv-cli run`, plus --report-fd for a parent that wants
// progress as protocol lines (run_report.h).
#include <fcntl.h>
#include <unistd.h>

#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "args.h"
#include "gtv/config.h"
#include "gtv/experiments/runner.h"
#include "gtv/io/trace_file.h"
#include "run_options.h"
#include "run_report.h"

namespace {

using gtv::cli::CommandSpec;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

// The name this runner gives itself in messages: its argv[0] without the folder. gtv-cli starts it as
// "gtv-cli run", so `gtv-cli run` prints what it printed when it ran experiments itself.
std::string program_name(const char* argv0) {
  const std::string name = argv0 != nullptr && *argv0 != '\0' ? argv0 : "gtv-run";
  const std::size_t slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

const CommandSpec& runner_spec() {
  static const CommandSpec spec = [] {
    CommandSpec s = gtv::cli::run_command_spec();
    s.program = "gtv-run";
    s.name = "";
    s.summary = "run an experiment scenario under tracing and write its trace (what `gtv-cli run` starts)";
    s.options.push_back(gtv::cli::value_option(
        "--report-fd", "FD", "also write progress as protocol lines (progress, wrote, failed) to descriptor FD"));
    s.details =
        "The arguments are those of `gtv-cli run`; `gtv-cli list` shows the scenarios. Progress and messages go to "
        "stderr. `gtv-run --version` names the optional parts this runner was built with; `gtv-run --gpu-count` "
        "prints how many CUDA GPUs its LibTorch sees. The --report-fd protocol is described in docs/cli.md.";
    return s;
  }();
  return spec;
}

int usage_error(const std::string& name, std::string_view message) {
  std::cerr << name << ": " << message << "\n" << gtv::cli::usage_line(runner_spec()) << "\n";
  return kExitUsage;
}

// One progress line on a terminal (rewritten in place); one line per step when stderr is a file or pipe.
class ProgressLine {
 public:
  ProgressLine(std::ostream& err, std::string name)
      : err_(err), name_(std::move(name)), tty_(isatty(STDERR_FILENO) == 1) {}
  ~ProgressLine() { finish(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(std::string_view text) {
    if (tty_) {
      const std::size_t pad = last_length_ > text.size() ? last_length_ - text.size() : 0;
      err_ << "\r" << name_ << ": " << text << std::string(pad, ' ') << std::flush;
      last_length_ = text.size();
    } else {
      err_ << name_ << ": " << text << "\n" << std::flush;
    }
  }
  void finish() {
    if (tty_ && last_length_ > 0) err_ << "\n";
    last_length_ = 0;
  }

 private:
  std::ostream& err_;
  std::string name_;
  bool tty_;
  std::size_t last_length_ = 0;
};

// A rank of a run that a launcher such as torchrun started writes its own file (every rank gets the same command
// line): the output path with ".rankN" before the extension.
std::string output_path_of(const gtv::Trace& trace, const std::string& out_path) {
  const gtv::DistributedInfo& rank = trace.metadata().distributed;
  if (rank.rank >= 0 && rank.world_size > 1 && trace.metadata().ranks.empty())
    return gtv::io::rank_file_path(out_path, rank.rank);
  return out_path;
}

// The ranks this runner started itself: each rank's own file beside the merged run.
void write_rank_files(const std::string& name, const std::vector<gtv::Trace>& ranks, const std::string& out_path) {
  for (const gtv::Trace& rank : ranks) {
    const std::string path = gtv::io::rank_file_path(out_path, rank.metadata().distributed.rank);
    const gtv::Status status = gtv::io::write_trace(rank, path);
    if (status.ok())
      std::cerr << "wrote " << path << " (rank " << rank.metadata().distributed.rank << ", " << rank.event_count()
                << " events)\n";
    else
      std::cerr << name << ": " << status.error().message << "\n";
  }
}

int run(const std::string& name, const gtv::exp::RunConfig& config, const std::string& requested_path,
        const gtv::run::RunReport& report) {
  gtv::exp::RunResult result;
  {
    ProgressLine progress(std::cerr, name);
    result = gtv::exp::run_scenario(config, [&](std::string_view line) {
      progress.update(line);
      report.progress(line);
    });
  }
  bool written = false;
  std::string write_error;
  write_rank_files(name, result.rank_traces, requested_path);
  const std::string out_path = result.trace ? output_path_of(*result.trace, requested_path) : requested_path;
  if (result.trace) {
    const gtv::Status status = gtv::io::write_trace(*result.trace, out_path);
    written = status.ok();
    if (written) {
      report.wrote(result.trace->event_count(), out_path);
    } else {
      write_error = status.error().message;
      std::cerr << name << ": " << write_error << "\n";
    }
  }
  if (!result.status) {
    const std::string& message = result.status.error().message;
    std::cerr << name << ": " << message << "\n";
    if (written) std::cerr << name << ": the trace of what ran so far is in " << out_path << "\n";
    report.failed(message);
    return kExitFailed;
  }
  if (!written) {
    const std::string message = !result.trace ? "no trace came back" : write_error;
    if (!result.trace) std::cerr << name << ": " << message << "\n";
    report.failed(message);
    return kExitFailed;
  }
  std::cerr << "wrote " << out_path << " (" << result.trace->event_count() << " events)\n";
  return kExitOk;
}

int run_main(const std::string& name, const std::vector<std::string>& args) {
  if (args.size() == 1 && args[0] == "--version") {
    std::cout << "gtv-run " << GTV_VERSION << " (torch on, cupti " << (GTV_WITH_CUPTI ? "on" : "off") << ")\n";
    return kExitOk;
  }
  if (args.size() == 1 && args[0] == "--gpu-count") {
    std::cout << gtv::exp::cuda_device_count() << "\n";
    return kExitOk;
  }
  auto parsed = gtv::cli::parse_args(runner_spec(), args);
  if (!parsed) return usage_error(name, parsed.error().message);
  if (parsed->help) {
    std::cout << gtv::cli::usage_text(runner_spec());
    return kExitOk;
  }
  gtv::run::RunReport report;
  if (const std::optional<std::string> fd_text = parsed->value("--report-fd")) {
    const gtv::Expected<long long> fd = gtv::cli::parse_count("--report-fd", *fd_text);
    if (!fd || *fd > std::numeric_limits<int>::max() || ::fcntl(static_cast<int>(*fd), F_GETFD) == -1)
      return usage_error(name, "option --report-fd needs an open file descriptor, got '" + *fd_text + "'");
    report = gtv::run::RunReport(static_cast<int>(*fd));
  }
  gtv::Expected<gtv::exp::RunConfig> config = gtv::cli::run_config_from_args(*parsed);
  if (!config) return usage_error(name, config.error().message);
  if (!gtv::exp::find_scenario(config->scenario)) {
    std::cerr << name << ": unknown scenario '" << config->scenario << "'; the scenarios are:\n";
    gtv::cli::print_scenarios(std::cerr);
    return kExitUsage;
  }
  return run(name, *config, *parsed->value("--output"), report);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = program_name(argc > 0 ? argv[0] : nullptr);
  const std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
  try {
    return run_main(name, args);
  } catch (const std::exception& e) {  // last resort: a one-line message, never an abort
    std::cerr << name << ": " << e.what() << "\n";
    return kExitFailed;
  }
}
