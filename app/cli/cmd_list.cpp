// gtv-cli list: the experiment scenarios `gtv-cli run` knows.
#include <ostream>

#include "command.h"
#include "gtv/config.h"
#include "no_torch.h"
#if GTV_WITH_TORCH
#include <algorithm>
#include <string>
#include <vector>

#include "gtv/experiments/runner.h"
#endif

namespace gtv::cli {
namespace {

#if GTV_WITH_TORCH
int run_list(const ParsedArgs& /*args*/, Io io) {
  print_scenarios(io.out);
  return kExitOk;
}
#else
int run_list(const ParsedArgs& /*args*/, Io io) { return input_error(kNoTorchMessage, io); }
#endif

}  // namespace

#if GTV_WITH_TORCH
void print_scenarios(std::ostream& out) {
  std::size_t width = 8;
  const std::vector<exp::ScenarioInfo> scenarios = exp::list_scenarios();
  for (const exp::ScenarioInfo& s : scenarios) width = std::max(width, s.name.size());
  for (const exp::ScenarioInfo& s : scenarios)
    out << "  " << s.name << std::string(width - s.name.size() + 2, ' ') << s.summary
        << (s.needs_gpu ? " (shows its point only on GPUs)" : "") << "\n";
}
#endif

const Command& list_command() {
  static const Command command{CommandSpec{
                                   .name = "list",
                                   .summary = "list the experiment scenarios (needs a LibTorch build)",
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
