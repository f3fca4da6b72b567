#pragma once
// The options of `gtv-cli run`, shared with the runner gtv-run (app/run), which takes the same arguments: their
// spec, their reading into a RunConfig and the scenario table printed for an unknown name. No LibTorch here.
#include <cstdint>
#include <iosfwd>
#include <utility>

#include "args.h"
#include "gtv/experiments/run_config.h"

namespace gtv::cli {

// `gtv-cli run`'s command spec (name "run", program "gtv-cli").
[[nodiscard]] const CommandSpec& run_command_spec();

// Errors are usage errors: "option --iters needs a non-negative integer, got 'x'", "missing -o FILE".
[[nodiscard]] Expected<exp::RunConfig> run_config_from_args(const ParsedArgs& args);

// "0,1,2" -> {0, 1, 2}; errors name the bad item.
[[nodiscard]] Expected<std::vector<int>> parse_device_list(std::string_view text);
// "1=5" -> rank 1, 5000 us; "2=0.25" -> rank 2, 250 us (milliseconds with up to 3 decimals, more than 0).
[[nodiscard]] Expected<std::pair<int, std::int64_t>> parse_straggler(std::string_view text);

// The scenario table of `gtv-cli list`, also shown when `run` gets an unknown name.
void print_scenarios(std::ostream& out);

}  // namespace gtv::cli
