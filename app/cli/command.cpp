#include "command.h"

#include <array>
#include <ostream>

namespace gtv::cli {

std::span<const Command* const> all_commands() {
  static const std::array<const Command*, 11> table = {&info_command(),      &convert_command(), &analyze_command(),
                                                       &merge_command(),     &compare_command(), &whatif_command(),
                                                       &summarize_command(), &reduce_command(),  &list_command(),
                                                       &run_command(),       &record_command()};
  return table;
}

const Command* find_command(std::string_view name) {
  for (const Command* command : all_commands())
    if (command->spec.name == name) return command;
  return nullptr;
}

int usage_error(const CommandSpec& spec, std::string_view message, Io io) {
  io.err << "gtv-cli " << spec.name << ": " << message << "\n" << usage_line(spec) << "\n";
  return kExitUsage;
}

int input_error(std::string_view message, Io io) {
  io.err << "gtv-cli: " << message << "\n";
  return kExitBadInput;
}

}  // namespace gtv::cli
