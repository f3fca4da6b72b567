// gtv-cli list: the experiment scenarios `gtv-cli run` knows (from the catalogue, in every build).
#include "command.h"
#include "run_options.h"

namespace gtv::cli {
namespace {

int run_list(const ParsedArgs& /*args*/, Io io) {
  print_scenarios(io.out);
  return kExitOk;
}

}  // namespace

const Command& list_command() {
  static const Command command{CommandSpec{
                                   .name = "list",
                                   .summary = "list the experiment scenarios",
                                   .positionals = "",
                                   .min_positionals = 0,
                                   .max_positionals = 0,
                                   .options = {},
                                   .details = "Run one with `gtv-cli run SCENARIO -o FILE`.",
                               },
                               &run_list};
  return command;
}

}  // namespace gtv::cli
