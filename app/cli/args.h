#pragma once
// A small command-line parser: long options with or without a value (--format json, --format=json), short
// aliases (-o FILE), positional arguments with a fixed minimum and maximum, and "--" to end options. No external
// dependency, so gtv-cli builds anywhere the core builds.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtv/base/expected.h"

namespace gtv::cli {

struct OptionSpec {
  std::string_view name;        // "--format"
  char short_name = 0;          // 'o' for -o, 0 if none
  std::string_view value_name;  // "FMT"; empty: a flag without value
  std::string_view help;
};

[[nodiscard]] constexpr OptionSpec flag_option(std::string_view name, std::string_view help) {
  return OptionSpec{name, 0, {}, help};
}
[[nodiscard]] constexpr OptionSpec value_option(std::string_view name, std::string_view value_name,
                                                std::string_view help, char short_name = 0) {
  return OptionSpec{name, short_name, value_name, help};
}

struct CommandSpec {
  std::string_view name;         // "info"
  std::string_view summary;      // one line for the command list
  std::string_view positionals;  // "FILE", "A B"; shown in the usage line
  std::size_t min_positionals = 0;
  std::size_t max_positionals = 0;
  std::vector<OptionSpec> options;
  std::string_view details;              // a paragraph after the options, may be empty
  std::string_view program = "gtv-cli";  // the executable the usage line names (before name, which may be empty)
};

struct ParsedArgs {
  std::vector<std::string> positionals;
  std::map<std::string, std::string, std::less<>> values;     // option name ("--format") -> value; flags map to ""
  std::vector<std::pair<std::string, std::string>> in_order;  // every option given with a value, repeats kept
  bool help = false;

  [[nodiscard]] bool has(std::string_view option) const { return values.find(option) != values.end(); }
  [[nodiscard]] std::optional<std::string> value(std::string_view option) const;  // the last one given
  [[nodiscard]] std::vector<std::string> all(std::string_view option) const;      // each one given, in order
};

// Parses args (without the program and command names). A usage error is one line: "unknown option --frmat".
// --help / -h is always accepted and sets ParsedArgs::help; positional counts are then not checked.
[[nodiscard]] Expected<ParsedArgs> parse_args(const CommandSpec& spec, std::span<const std::string> args);

// "usage: gtv-cli info FILE [--json]" (program, name, positionals, options) followed by the option table and
// details. Positionals that start with "-- " (a command line to run) come after the options.
[[nodiscard]] std::string usage_text(const CommandSpec& spec);
// Only the first line of usage_text, for error messages.
[[nodiscard]] std::string usage_line(const CommandSpec& spec);

// Parses a non-negative integer option value ("--iters 10"); errors name the option.
[[nodiscard]] Expected<long long> parse_count(std::string_view option, std::string_view text);

}  // namespace gtv::cli
