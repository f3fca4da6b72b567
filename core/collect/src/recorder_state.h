#pragma once
// TraceRecorder's state, shared by its source files. Every access happens under TraceRecorder::mutex_.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gtv/collect/records.h"
#include "gtv/model/trace_builder.h"

namespace gtv::collect::detail {

struct RecorderState {
  TraceBuilder builder;
  std::vector<SyncRecord> syncs;               // placed at finish(), once every API call is known
  std::vector<CudaEventRecord> event_records;  // what event waits waited for, joined at finish()
  std::unordered_map<std::uint64_t, std::pair<std::int64_t, std::int64_t>> api_thread;  // correlation -> pid, tid
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> thread_names;
  std::vector<ContextRecord> contexts;
  std::map<std::int32_t, DeviceInfo> devices;  // merged from every source (driver, CUPTI, experiments)
  std::vector<MemoryRecord> memory;
  std::size_t untimed_records = 0;   // CUPTI gives 0/0 when it could not time a record
  std::size_t reversed_records = 0;  // end before start: kept with zero duration
  bool source_tool_set = false;
};

inline LaneIndex lane_for(RecorderState& s, const LaneKey& key) { return s.builder.lane(key); }
// An event with times relative to origin; nullopt when the record carries no timestamps.
std::optional<Event> make_event(RecorderState& s, UnixNs origin, std::string_view name, UnixNs start_ns, UnixNs end_ns,
                                std::uint64_t correlation_id);

}  // namespace gtv::collect::detail
