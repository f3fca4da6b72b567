// gtv-cli: the headless front end (no Qt), for GPU servers and scripts.
#include <iostream>
#include <string>
#include <vector>

#include "command.h"
#include "gtv/config.h"
#include "runner_launch.h"

namespace {

using gtv::cli::Command;

void print_overview(std::ostream& out) {
  out << "usage: gtv-cli COMMAND [ARGS...]\n"
         "       gtv-cli help COMMAND | --help | --version\n\n"
         "GPU Timeline Visualizer, command line: inspect, convert, analyze and record GPU traces.\n\n"
         "commands:\n";
  for (const Command* command : gtv::cli::all_commands()) {
    const std::string name(command->spec.name);
    out << "  " << name << std::string(10 - name.size(), ' ') << command->spec.summary << "\n";
  }
  out << "\nexit codes: 0 success, 1 bad input or failed run, 2 usage error.\n"
         "`gtv-cli COMMAND --help` describes a command.\n";
}

// The version, and whether `run` can run experiments: that depends on the runner gtv-run being there (it holds
// LibTorch and CUPTI; `gtv-run --version` says how it was built), not on anything linked into gtv-cli.
void print_version(std::ostream& out) {
  const gtv::cli::Runner runner = gtv::cli::find_runner();
  out << "gtv-cli " << GTV_VERSION << " (experiments: "
      << (runner.available ? "runner " + runner.path.string() : "unavailable, no runner " + runner.path.string())
      << ")\n";
}

int help_for(const std::vector<std::string>& rest) {
  if (rest.empty()) {
    print_overview(std::cout);
    return gtv::cli::kExitOk;
  }
  const Command* command = gtv::cli::find_command(rest[0]);
  if (command == nullptr) {
    std::cerr << "gtv-cli: unknown command '" << rest[0] << "' (see gtv-cli --help)\n";
    return gtv::cli::kExitUsage;
  }
  std::cout << gtv::cli::usage_text(command->spec);
  return gtv::cli::kExitOk;
}

int dispatch(const Command& command, const std::vector<std::string>& rest) {
  const gtv::cli::Io io{std::cout, std::cerr};
  auto parsed = gtv::cli::parse_args(command.spec, rest);
  if (!parsed) return gtv::cli::usage_error(command.spec, parsed.error().message, io);
  if (parsed->help) {
    std::cout << gtv::cli::usage_text(command.spec);
    return gtv::cli::kExitOk;
  }
  return command.run(*parsed, io);
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_overview(std::cerr);
    return gtv::cli::kExitUsage;
  }
  const std::string first = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (first == "--help" || first == "-h") return help_for({});
  if (first == "help") return help_for(rest);
  if (first == "--version" || first == "version") {
    print_version(std::cout);
    return gtv::cli::kExitOk;
  }
  const Command* command = gtv::cli::find_command(first);
  if (command == nullptr) {
    std::cerr << "gtv-cli: unknown command '" << first << "' (see gtv-cli --help)\n";
    return gtv::cli::kExitUsage;
  }
  try {
    return dispatch(*command, rest);
  } catch (const std::exception& e) {  // last resort: a one-line message, never an abort
    std::cerr << "gtv-cli " << first << ": " << e.what() << "\n";
    return gtv::cli::kExitBadInput;
  }
}
