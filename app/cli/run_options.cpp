#include "run_options.h"

#include <algorithm>
#include <limits>
#include <ostream>

#include "gtv/experiments/catalog.h"

namespace gtv::cli {
namespace {

// Reads a positive int option into target when present.
Status read_positive(const ParsedArgs& args, std::string_view option, int& target) {
  const std::optional<std::string> text = args.value(option);
  if (!text) return ok_status();
  const Expected<long long> value = parse_count(option, *text);
  if (!value) return value.error();
  if (*value < 1 || *value > std::numeric_limits<int>::max())
    return Error{"option " + std::string(option) + " needs a positive integer, got '" + *text + "'"};
  target = static_cast<int>(*value);
  return ok_status();
}

}  // namespace

const CommandSpec& run_command_spec() {
  static const CommandSpec spec{
      .name = "run",
      .summary = "run an experiment scenario under tracing and write its trace (needs the runner gtv-run)",
      .positionals = "SCENARIO",
      .min_positionals = 1,
      .max_positionals = 1,
      .options = {value_option("--output", "FILE", "trace to write (.json, or .json.gz for gzip); required", 'o'),
                  value_option("--models", "N", "number of models (default 3)"),
                  value_option("--hidden", "H", "hidden layer width (default 10000 on a GPU, 512 on the CPU)"),
                  value_option("--batch", "B", "batch size (default 100)"),
                  value_option("--iters", "K", "timed iterations (default 10)"),
                  value_option("--devices", "LIST", "GPU of each model, e.g. 0,1,0 (default round-robin)"),
                  value_option("--ranks", "N",
                               "ddp: ranks to start on this machine (default one per GPU, 2 on the CPU)"),
                  value_option("--backend", "NAME", "ddp: nccl or gloo (default nccl on GPUs, gloo on the CPU)"),
                  value_option("--straggler", "RANK=MS",
                               "ddp: rank RANK sleeps MS milliseconds (up to 3 decimals) on its host before each "
                               "step, so it arrives that much later at the step's collectives"),
                  flag_option("--no-warmup", "skip the warm-up pass"),
                  flag_option("--all-api", "keep noisy CUDA API calls (cudaGetDevice ...) in the trace")},
      .details =
          "`gtv-cli list` shows the scenarios; an unknown name prints the list and exits 2. The run itself "
          "is done by gtv-run, the one program that loads LibTorch and CUPTI ($GTV_RUN, else "
          "libexec/gtv/gtv-run of the installation, else app/run/gtv-run of the build tree); `gtv-cli "
          "--version` says which one is used. Progress goes to stderr. If the run fails part way (e.g. out "
          "of GPU memory), the trace of what ran so far is still written and the exit code is 1. Without a "
          "GPU the scenario runs on the CPU.",
  };
  return spec;
}

void print_scenarios(std::ostream& out) {
  std::size_t width = 8;
  const std::vector<exp::ScenarioInfo> scenarios = exp::list_scenarios();
  for (const exp::ScenarioInfo& s : scenarios) width = std::max(width, s.name.size());
  for (const exp::ScenarioInfo& s : scenarios)
    out << "  " << s.name << std::string(width - s.name.size() + 2, ' ') << s.summary
        << (s.needs_gpu ? " (shows its point only on GPUs)" : "") << "\n";
}

Expected<std::vector<int>> parse_device_list(std::string_view text) {
  std::vector<int> devices;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const Expected<long long> device = parse_count("--devices", item);
    if (!device || *device > 1024)
      return Error{"option --devices needs GPU indices like 0,1,2, got '" + std::string(item) + "'"};
    devices.push_back(static_cast<int>(*device));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return devices;
}

Expected<std::pair<int, std::int64_t>> parse_straggler(std::string_view text) {
  if (auto parsed = exp::parse_straggler_text(text)) return *parsed;
  return Error{"option --straggler needs RANK=MS (a rank and a delay in milliseconds, e.g. 1=5 or 2=0.2), got '" +
               std::string(text) + "'"};
}

Expected<exp::RunConfig> run_config_from_args(const ParsedArgs& args) {
  exp::RunConfig config;
  config.scenario = args.positionals.at(0);
  if (!args.has("--output")) return Error{"missing -o FILE (where to write the trace)"};
  for (const auto& [option, target] : {std::pair<std::string_view, int*>{"--models", &config.models},
                                       {"--hidden", &config.hidden},
                                       {"--batch", &config.batch},
                                       {"--iters", &config.iters},
                                       {"--ranks", &config.ranks}}) {
    const Status status = read_positive(args, option, *target);
    if (!status) return status.error();
  }
  if (const std::optional<std::string> list = args.value("--devices")) {
    Expected<std::vector<int>> devices = parse_device_list(*list);
    if (!devices) return devices.error();
    config.devices = std::move(devices).value();
  }
  if (const std::optional<std::string> backend = args.value("--backend")) {
    if (*backend != "nccl" && *backend != "gloo")
      return Error{"option --backend needs nccl or gloo, got '" + *backend + "'"};
    config.backend = *backend;
  }
  if (const std::optional<std::string> straggler = args.value("--straggler")) {
    const Expected<std::pair<int, std::int64_t>> parsed = parse_straggler(*straggler);
    if (!parsed) return parsed.error();
    config.straggler_rank = parsed->first;
    config.straggler_us = parsed->second;
  }
  config.warmup = !args.has("--no-warmup");
  config.all_api = args.has("--all-api");
  return config;
}

}  // namespace gtv::cli
