#pragma once
// The top-level "gtv" object of files gtv writes: what the Chrome format cannot hold (exact lane names and sort
// indices, processes, ranges, measurements, metadata). See docs/trace-format.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/model/records.h"

namespace gtv::io {

// 2: several processes' memory counts on one GPU are summed into one series when gtv merges their traces (1
// interleaved each process's own count in one series); dependency flows; graph ids of kernels.
inline constexpr int kGtvFormatVersion = 2;

struct GtvLane {
  LaneKey key;
  std::string name;
  std::int64_t sort_index = 0;
};

struct GtvSection {
  int format_version = 0;
  std::string writer;  // "gtv 0.1.0"
  TraceMetadata metadata;
  bool has_lanes = false, has_processes = false;
  std::vector<GtvLane> lanes;
  std::vector<ProcessInfo> processes;
  std::vector<Range> ranges;
  std::vector<Measurement> measurements;
};

// Everything the top level of the file says besides the events.
struct FileHeader {
  std::optional<TimeNs> base_time_ns;  // "baseTimeNanoseconds"
  std::vector<DeviceInfo> devices;     // "deviceProperties"
  bool kineto_keys = false;            // schemaVersion, deviceProperties, trace_id, ...
  std::optional<GtvSection> gtv;
  DistributedInfo distributed;  // "distributedInfo"
};

// Parses the JSON text of one top-level value into header. `key` is the top-level key. Errors are one line
// without the file name (the caller prefixes it).
[[nodiscard]] Status parse_top_level_value(std::string_view key, std::string_view json, FileHeader& header);

// True for top-level keys worth parsing (others are skipped without building anything).
[[nodiscard]] bool is_interesting_top_level_key(std::string_view key);

}  // namespace gtv::io
