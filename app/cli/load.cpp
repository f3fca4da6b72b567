#include "load.h"

#include <charconv>
#include <cmath>
#include <ostream>

#include "gtv/base/printable.h"
#include "gtv/io/trace_file.h"

namespace gtv::cli {
namespace {

constexpr double kMaxShiftUs = 1e12;

// Output that says "Events: 0" with exit status 0 is easy to miss in a script when the file did hold events that
// all had to be skipped; the commands still run (the notes are part of their output), and stderr says so too.
void warn_if_nothing_read(const std::string& path, const Trace& trace, const io::ReadStats& stats, Io io) {
  if (trace.event_count() != 0 || stats.events_skipped == 0) return;
  for (const auto& [reason, count] : stats.skipped)
    io.err << "gtv-cli: warning: " << path << ": no event could be read; the reader skipped " << count << " " << reason
           << "\n";
}

}  // namespace

std::optional<Trace> load_trace_or_report(const std::string& path, Io io) {
  io::ReadStats stats;
  io::ReadOptions options;
  options.stats = &stats;
  Expected<Trace> trace = io::read_trace(path, options);
  if (!trace) {
    // The reader's message already names the file; add it only if a reader ever forgets.
    const std::string& message = trace.error().message;
    if (message.find(path) == std::string::npos)
      io.err << "gtv-cli: " << path << ": " << message << "\n";
    else
      io.err << "gtv-cli: " << message << "\n";
    return std::nullopt;
  }
  warn_if_nothing_read(path, *trace, stats, io);
  return std::move(trace).value();
}

std::vector<OptionSpec> rank_merge_options() {
  return {value_option("--clock", "METHOD",
                       "with several files, how their clocks are aligned: wall (default: each file's own "
                       "timestamps) or collectives (matched NCCL collectives end together)"),
          value_option("--shift", "RANK=US[,...]",
                       "with several files, move these ranks by this many microseconds after alignment "
                       "(1=-250,3=12.5)"),
          flag_option("--allow-far-apart", "merge files whose recordings start more than an hour apart")};
}

std::vector<OptionSpec> with_rank_merge_options(std::vector<OptionSpec> options) {
  for (const OptionSpec& o : rank_merge_options()) options.push_back(o);
  return options;
}

Expected<RankMergeOptions> parse_rank_merge_options(const ParsedArgs& args) {
  RankMergeOptions options;
  if (args.positionals.size() == 1 && (args.value("--clock") || args.value("--shift")))
    return Error{"--clock and --shift align the files of several ranks; one file was given"};
  const std::string clock = args.value("--clock").value_or("wall");
  if (clock == "wall") {
    options.clock = ClockMethod::WallClock;
  } else if (clock == "collectives") {
    options.clock = ClockMethod::Collectives;
  } else {
    return Error{"--clock: \"" + clock + "\" is neither wall nor collectives"};
  }
  options.allow_far_apart = args.has("--allow-far-apart");
  const std::string shift_text = args.value("--shift").value_or("");
  std::string_view shifts = shift_text;
  while (!shifts.empty()) {
    const std::size_t comma = shifts.find(',');
    const std::string_view item = shifts.substr(0, comma);
    shifts = comma == std::string_view::npos ? std::string_view{} : shifts.substr(comma + 1);
    const std::size_t eq = item.find('=');
    long long rank = -1;
    double us = 0;
    const char* rank_end = item.data() + (eq == std::string_view::npos ? item.size() : eq);
    const bool rank_ok =
        eq != std::string_view::npos && std::from_chars(item.data(), rank_end, rank).ptr == rank_end && rank >= 0;
    const std::string_view value = rank_ok ? item.substr(eq + 1) : std::string_view{};
    const char* value_start = value.data() + (!value.empty() && value[0] == '+' ? 1 : 0);
    const std::from_chars_result parsed = rank_ok && !value.empty()
                                              ? std::from_chars(value_start, value.data() + value.size(), us)
                                              : std::from_chars_result{value.data(), std::errc::invalid_argument};
    const bool value_ok = parsed.ec == std::errc{} && parsed.ptr == value.data() + value.size() && std::isfinite(us);
    if (!value_ok) return Error{"--shift: \"" + std::string(item) + "\" is not RANK=MICROSECONDS (1=-250)"};
    if (std::fabs(us) >= kMaxShiftUs)
      return Error{"--shift: \"" + std::string(item) + "\": a shift is at most 10^12 us (11.6 days) either way"};
    options.manual_shift_ns[rank] = std::llround(us * 1e3);
  }
  return options;
}

std::optional<Trace> load_run_or_report(const std::vector<std::string>& paths, const RankMergeOptions& options, Io io) {
  if (paths.size() == 1) {
    if (options.clock != ClockMethod::WallClock || !options.manual_shift_ns.empty()) {
      io.err << "gtv-cli: --clock and --shift align the files of several ranks; one file was given\n";
      return std::nullopt;
    }
    return load_trace_or_report(paths[0], io);
  }
  std::vector<Trace> traces;
  traces.reserve(paths.size());
  for (const std::string& path : paths) {
    std::optional<Trace> t = load_trace_or_report(path, io);
    if (!t) return std::nullopt;
    traces.push_back(std::move(*t));
  }
  std::vector<RankFile> files;
  for (std::size_t i = 0; i < paths.size(); ++i) files.push_back({&traces[i], paths[i]});
  Expected<RankMerge> merged = merge_ranks(files, options);
  if (!merged) {
    io.err << "gtv-cli: " << merged.error().message << "\n";
    return std::nullopt;
  }
  for (const std::string& warning : merged->warnings) io.err << "gtv-cli: warning: " << printable(warning) << "\n";
  return std::move(merged->trace);
}

}  // namespace gtv::cli
