#pragma once
// Loading a trace for a command: on failure the reader's one-line error (which names the file) goes to stderr.
#include <optional>
#include <string>

#include "command.h"
#include "gtv/model/trace.h"

namespace gtv::cli {

[[nodiscard]] std::optional<Trace> load_trace_or_report(const std::string& path, Io io);

}  // namespace gtv::cli
