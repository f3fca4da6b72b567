#include "load.h"

#include <ostream>

#include "gtv/io/trace_file.h"

namespace gtv::cli {

std::optional<Trace> load_trace_or_report(const std::string& path, Io io) {
  Expected<Trace> trace = io::read_trace(path);
  if (!trace) {
    // The reader's message already names the file; add it only if a reader ever forgets.
    const std::string& message = trace.error().message;
    if (message.find(path) == std::string::npos)
      io.err << "gtv-cli: " << path << ": " << message << "\n";
    else
      io.err << "gtv-cli: " << message << "\n";
    return std::nullopt;
  }
  return std::move(trace).value();
}

}  // namespace gtv::cli
