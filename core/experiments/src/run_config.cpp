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

std::optional<std::pair<int, std::int64_t>> parse_straggler_text(std::string_view text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  const std::string_view rank_text = text.substr(0, eq);
  if (rank_text.empty() || rank_text.size() > 7) return std::nullopt;
  int rank = 0;
  for (const char c : rank_text) {
    if (c < '0' || c > '9') return std::nullopt;
    rank = rank * 10 + (c - '0');
  }
  if (rank > 1'000'000) return std::nullopt;
  const std::string_view ms = text.substr(eq + 1);
  const std::size_t dot = ms.find('.');
  const std::string_view whole = ms.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view{} : ms.substr(dot + 1);
  if (whole.empty() || whole.size() > 7 || fraction.size() > 3 || (dot != std::string_view::npos && fraction.empty()))
    return std::nullopt;
  std::int64_t us = 0;
  for (const char c : whole) {
    if (c < '0' || c > '9') return std::nullopt;
    us = us * 10 + (c - '0');
  }
  us *= 1000;
  std::int64_t scale = 100;
  for (const char c : fraction) {
    if (c < '0' || c > '9') return std::nullopt;
    us += (c - '0') * scale;
    scale /= 10;
  }
  if (us == 0) return std::nullopt;
  return std::pair<int, std::int64_t>{rank, us};
}

}  // namespace gtv::exp
