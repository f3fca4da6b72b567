#pragma once
// The command table of gtv-cli: each command lives in its own cmd_<name>.cpp and exposes one Command.
#include <iosfwd>
#include <span>

#include "args.h"

namespace gtv::cli {

// Exit codes, the same for every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;  // unreadable or invalid input, failed run, failed write
inline constexpr int kExitUsage = 2;     // unknown command or option, missing argument

struct Io {
  std::ostream& out;
  std::ostream& err;
};

struct Command {
  CommandSpec spec;
  int (*run)(const ParsedArgs& args, Io io) = nullptr;
};

[[nodiscard]] const Command& info_command();
[[nodiscard]] const Command& convert_command();
[[nodiscard]] const Command& merge_command();
[[nodiscard]] const Command& analyze_command();
[[nodiscard]] const Command& compare_command();
[[nodiscard]] const Command& list_command();
[[nodiscard]] const Command& run_command();
[[nodiscard]] const Command& whatif_command();
[[nodiscard]] const Command& summarize_command();
[[nodiscard]] const Command& reduce_command();

// All commands in the order `gtv-cli --help` lists them.
[[nodiscard]] std::span<const Command* const> all_commands();
[[nodiscard]] const Command* find_command(std::string_view name);

// Prints "gtv-cli: <message>" to err and returns kExitUsage, with the command's usage line.
int usage_error(const CommandSpec& spec, std::string_view message, Io io);
// Prints "gtv-cli: <message>" to err and returns kExitBadInput.
int input_error(std::string_view message, Io io);

}  // namespace gtv::cli
