#include "args.h"

#include <charconv>

namespace gtv::cli {
namespace {

constexpr std::size_t kManyFiles = 16;

const OptionSpec* find_long(const CommandSpec& spec, std::string_view name) {
  for (const OptionSpec& option : spec.options)
    if (option.name == name) return &option;
  return nullptr;
}

const OptionSpec* find_short(const CommandSpec& spec, char letter) {
  for (const OptionSpec& option : spec.options)
    if (option.short_name != 0 && option.short_name == letter) return &option;
  return nullptr;
}

// Wraps a paragraph at spaces so long details stay readable in an 80-column terminal.
std::string wrapped(std::string_view paragraph, std::size_t width) {
  std::string out;
  std::size_t column = 0;
  while (!paragraph.empty()) {
    const std::size_t space = paragraph.find(' ');
    const std::string_view word = paragraph.substr(0, space);
    if (column > 0 && column + 1 + word.size() > width) {
      out += '\n';
      column = 0;
    } else if (column > 0) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    paragraph.remove_prefix(space == std::string_view::npos ? paragraph.size() : space + 1);
  }
  return out;
}

bool is_help(std::string_view arg) { return arg == "--help" || arg == "-h"; }

// Handles one option argument at args[i]; advances i past a separate value.
Status take_option(const CommandSpec& spec, std::span<const std::string> args, std::size_t& i, ParsedArgs& out) {
  std::string_view arg = args[i];
  std::optional<std::string_view> inline_value;
  const OptionSpec* option = nullptr;
  if (arg.starts_with("--")) {
    const std::size_t eq = arg.find('=');
    if (eq != std::string_view::npos) {
      inline_value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    option = find_long(spec, arg);
  } else if (arg.size() == 2) {
    option = find_short(spec, arg[1]);
  }
  if (option == nullptr) return Error{"unknown option " + std::string(arg)};
  const std::string key(option->name);
  if (option->value_name.empty()) {
    if (inline_value) return Error{"option " + key + " takes no value"};
    out.values[key] = "";
    return ok_status();
  }
  if (inline_value) {
    out.values[key] = std::string(*inline_value);
    out.in_order.emplace_back(key, *inline_value);
    return ok_status();
  }
  if (i + 1 >= args.size()) return Error{"option " + key + " needs a value (" + std::string(option->value_name) + ")"};
  out.values[key] = args[++i];
  out.in_order.emplace_back(key, args[i]);
  return ok_status();
}

}  // namespace

std::optional<std::string> ParsedArgs::value(std::string_view option) const {
  const auto it = values.find(option);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> ParsedArgs::all(std::string_view option) const {
  std::vector<std::string> out;
  for (const auto& [name, value] : in_order)
    if (name == option) out.push_back(value);
  return out;
}

Expected<ParsedArgs> parse_args(const CommandSpec& spec, std::span<const std::string> args) {
  ParsedArgs out;
  bool options_ended = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!options_ended && arg == "--") {
      options_ended = true;
    } else if (!options_ended && is_help(arg)) {
      out.help = true;
    } else if (!options_ended && arg.size() > 1 && arg[0] == '-') {
      Status taken = take_option(spec, args, i, out);
      if (!taken) return taken.error();
    } else {
      out.positionals.push_back(arg);
    }
  }
  if (out.help) return out;
  if (out.positionals.size() < spec.min_positionals)
    return Error{"missing argument: expected " + std::string(spec.positionals)};
  // Commands that take many files say their limit (it bounds the memory of holding every file at once).
  if (out.positionals.size() > spec.max_positionals && spec.max_positionals >= kManyFiles)
    return Error{"too many files: at most " + std::to_string(spec.max_positionals) + " (given " +
                 std::to_string(out.positionals.size()) + ")"};
  if (out.positionals.size() > spec.max_positionals)
    return Error{"unexpected argument '" + out.positionals[spec.max_positionals] + "'"};
  return out;
}

std::string usage_line(const CommandSpec& spec) {
  std::string line = "usage: " + std::string(spec.program);
  if (!spec.name.empty()) line += " " + std::string(spec.name);
  // Positionals after "--" (a command line to run) come last: options written after "--" would be theirs.
  const bool after_options = spec.positionals.starts_with("-- ");
  if (!spec.positionals.empty() && !after_options) line += " " + std::string(spec.positionals);
  for (const OptionSpec& option : spec.options) {
    line += " [";
    line += option.short_name != 0 ? std::string("-") + option.short_name : std::string(option.name);
    if (!option.value_name.empty()) line += " " + std::string(option.value_name);
    line += "]";
  }
  if (after_options) line += " " + std::string(spec.positionals);
  return line;
}

std::string usage_text(const CommandSpec& spec) {
  std::string text = usage_line(spec) + "\n\n" + std::string(spec.summary) + "\n";
  text += "\noptions:\n";
  std::vector<std::string> lefts;
  std::size_t width = 10;
  for (const OptionSpec& option : spec.options) {
    std::string left = option.short_name != 0 ? std::string("-") + option.short_name + ", " : std::string();
    left += std::string(option.name);
    if (!option.value_name.empty()) left += " " + std::string(option.value_name);
    width = std::max(width, left.size());
    lefts.push_back(std::move(left));
  }
  for (std::size_t i = 0; i < lefts.size(); ++i)
    text += "  " + lefts[i] + std::string(width - lefts[i].size() + 2, ' ') + std::string(spec.options[i].help) + "\n";
  text += "  -h, --help" + std::string(width - 8, ' ') + "show this help\n";
  if (!spec.details.empty()) text += "\n" + wrapped(spec.details, 78) + "\n";
  return text;
}

Expected<long long> parse_count(std::string_view option, std::string_view text) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0)
    return Error{"option " + std::string(option) + " needs a non-negative integer, got '" + std::string(text) + "'"};
  return value;
}

}  // namespace gtv::cli
