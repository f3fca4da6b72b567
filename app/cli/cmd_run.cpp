// gtv-cli run SCENARIO ... -o FILE: run an experiment under tracing and save what really happened. gtv-cli checks
// the arguments and the scenario name, then becomes the runner gtv-run (exec) with the same arguments: its
// progress, messages, output file and exit status are the command's.
#include <iostream>
#include <ostream>

#include "command.h"
#include "gtv/experiments/catalog.h"
#include "run_options.h"
#include "runner_launch.h"

namespace gtv::cli {
namespace {

// The parsed arguments in canonical form: every option, then "--" and the scenario, so a name that starts
// with '-' stays a name.
std::vector<std::string> runner_arguments(const CommandSpec& spec, const ParsedArgs& args) {
  std::vector<std::string> out;
  for (const auto& [name, value] : args.values) {
    out.push_back(name);
    for (const OptionSpec& option : spec.options)
      if (option.name == name && !option.value_name.empty()) out.push_back(value);
  }
  out.emplace_back("--");
  out.insert(out.end(), args.positionals.begin(), args.positionals.end());
  return out;
}

int run_run(const ParsedArgs& args, Io io) {
  const CommandSpec& spec = run_command().spec;
  Expected<exp::RunConfig> config = run_config_from_args(args);
  if (!config) return usage_error(spec, config.error().message, io);
  if (!exp::find_scenario(config->scenario)) {
    io.err << "gtv-cli run: unknown scenario '" << config->scenario << "'; the scenarios are:\n";
    print_scenarios(io.err);
    return kExitUsage;
  }
  const Runner runner = find_runner();
  if (!runner.available) return input_error(missing_runner_message(runner), io);
  io.out.flush();
  io.err.flush();
  std::cout.flush();
  std::cerr.flush();
  // Returns only when exec failed. The runner prefixes its messages with its argv[0].
  return input_error(exec_runner(runner, "gtv-cli run", runner_arguments(spec, args)), io);
}

}  // namespace

const Command& run_command() {
  static const Command command{run_command_spec(), &run_run};
  return command;
}

}  // namespace gtv::cli
