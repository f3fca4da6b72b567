#include "gtv/experiments/run_config.h"

namespace gtv::exp {

std::vector<std::string> run_arguments(const RunConfig& config, std::string_view output_path) {
  std::vector<std::string> args = {config.scenario, "-o", std::string(output_path), "--models",
                                   std::to_string(config.models)};
  if (config.hidden != 0) args.insert(args.end(), {"--hidden", std::to_string(config.hidden)});
  args.insert(args.end(), {"--batch", std::to_string(config.batch), "--iters", std::to_string(config.iters)});
  if (!config.devices.empty()) {
    std::string list;
    for (int d : config.devices) list += (list.empty() ? "" : ",") + std::to_string(d);
    args.insert(args.end(), {"--devices", list});
  }
  if (config.ranks != 0) args.insert(args.end(), {"--ranks", std::to_string(config.ranks)});
  if (!config.backend.empty()) args.insert(args.end(), {"--backend", config.backend});
  if (config.straggler_rank >= 0)
    args.insert(args.end(), {"--straggler", straggler_text(config.straggler_rank, config.straggler_us)});
  if (!config.warmup) args.emplace_back("--no-warmup");
  if (config.all_api) args.emplace_back("--all-api");
  return args;
}

std::string straggler_text(int rank, std::int64_t delay_us) {
  std::string ms = std::to_string(delay_us / 1000);
  if (std::int64_t frac = delay_us % 1000; frac != 0) {
    std::string digits = std::to_string(frac);
    digits = std::string(3 - digits.size(), '0') + digits;
    while (digits.back() == '0') digits.pop_back();
    ms += "." + digits;
  }
  return std::to_string(rank) + "=" + ms;
}

}  // namespace gtv::exp
