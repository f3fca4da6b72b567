#include "run_options.h"

#include <limits>

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

Expected<exp::RunConfig> run_config_from_args(const ParsedArgs& args) {
  exp::RunConfig config;
  config.scenario = args.positionals.at(0);
  if (!args.has("--output")) return Error{"missing -o FILE (where to write the trace)"};
  for (const auto& [option, target] : {std::pair<std::string_view, int*>{"--models", &config.models},
                                       {"--hidden", &config.hidden},
                                       {"--batch", &config.batch},
                                       {"--iters", &config.iters}}) {
    const Status status = read_positive(args, option, *target);
    if (!status) return status.error();
  }
  if (const std::optional<std::string> list = args.value("--devices")) {
    Expected<std::vector<int>> devices = parse_device_list(*list);
    if (!devices) return devices.error();
    config.devices = std::move(devices).value();
  }
  config.warmup = !args.has("--no-warmup");
  config.all_api = args.has("--all-api");
  return config;
}

}  // namespace gtv::cli
