#pragma once
// `gtv-cli run` options to a RunConfig. Kept apart from cmd_run.cpp so it can be read (and tested) on its own;
// it only needs runner.h, which has no torch types.
#include "args.h"
#include "gtv/experiments/runner.h"

namespace gtv::cli {

// Errors are usage errors: "option --iters needs a non-negative integer, got 'x'", "missing -o FILE".
[[nodiscard]] Expected<exp::RunConfig> run_config_from_args(const ParsedArgs& args);

// "0,1,2" -> {0, 1, 2}; errors name the bad item.
[[nodiscard]] Expected<std::vector<int>> parse_device_list(std::string_view text);

}  // namespace gtv::cli
