#pragma once
// What the processes of a recorded program left in gtv-cli record's folder, and those files as one trace.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "gtv/model/trace.h"

namespace gtv::cli {

struct RecordFolder {
  std::vector<std::filesystem::path> traces;  // gtv-<pid>.json, by pid
  std::vector<std::string> refusals;          // the one-line reasons of processes that could not be traced
  std::vector<long> forked_untraced;          // pids forked after CUDA was initialised that wrote no trace
};

[[nodiscard]] RecordFolder scan_record_folder(const std::filesystem::path& dir);

// The traces as one: a single trace as it is; the ranks of a launcher's job (every file names a distinct rank)
// merged as `gtv-cli merge` merges rank files, on the wall clock; any other set of processes merged on this host's
// clock (each process's CLOCK_REALTIME timestamps, moved to the earliest origin), GPU ids as each process numbered
// them. Errors and the merge's warnings go to io.err; nullopt on failure.
[[nodiscard]] std::optional<Trace> merge_recorded(const std::vector<std::filesystem::path>& files, Io io);

}  // namespace gtv::cli
