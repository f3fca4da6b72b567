#include "load.h"

#include <ostream>

#include "gtv/io/trace_file.h"

namespace gtv::cli {
namespace {

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

}  // namespace gtv::cli
