// The parts of an nsys export besides its events: devices, thread and process names, the session's start time
// and the exporter's version; then the trace is built.
#include <algorithm>
#include <array>
#include <limits>

#include "gtv/model/kineto_names.h"
#include "nsys/nsys_reader.h"
#include "nsys/nsys_schema.h"

namespace gtv::io {

using Column = NsysReader::Column;

Status NsysReader::read_devices() {
  static constexpr std::array<Column, 6> kColumns{
      {{"id", true}, {"name"}, {"totalMemory"}, {"smCount"}, {"computeMajor"}, {"computeMinor"}}};
  return each_row(nsys::kGpus, kColumns, [&](const SqliteStatement& row) -> Status {
    // An id outside the model's 32-bit device index names no device (cut to 32 bits it would name another GPU).
    if (row.is_null(0) || row.int64(0) < 0 || row.int64(0) > std::numeric_limits<std::int32_t>::max()) {
      skip("GPUs (TARGET_INFO_GPU) with an id outside 0 to 2^31 - 1");
      return ok_status();
    }
    DeviceInfo d;
    d.index = static_cast<std::int32_t>(row.int64(0));
    d.name = std::string(row.text(1));
    d.total_memory_bytes = row.int64(2);
    d.sm_count = static_cast<std::int32_t>(row.int64(3));
    d.compute_major = static_cast<std::int32_t>(row.int64(4));
    d.compute_minor = static_cast<std::int32_t>(row.int64(5));
    builder_.add_device(std::move(d));
    return ok_status();
  });
}

// Host lanes are named as Kineto and gtv's recorder name them: "thread <tid> (<name>)".
Status NsysReader::read_thread_names() {
  static constexpr std::array<Column, 2> kColumns{{{"nameId", true}, {"globalTid", true}}};
  return each_row(nsys::kThreadNames, kColumns, [&](const SqliteStatement& row) -> Status {
    const std::int64_t pid = nsys::pid_of(row.int64(1)), tid = nsys::tid_of(row.int64(1));
    const std::optional<LaneIndex> lane = builder_.find_lane(host_lane_key(pid, tid));
    if (!lane) return ok_status();
    Expected<std::string> name = string_text(row.int64(0));
    if (!name) return name.error();
    if (!name->empty()) builder_.set_lane_name(*lane, kineto::thread_lane_name(tid, *name));
    return ok_status();
  });
}

// Names of the processes that have events (the table also lists processes nsys only saw).
Status NsysReader::read_processes() {
  static constexpr std::array<Column, 3> kColumns{{{"globalPid"}, {"pid"}, {"name"}}};
  return each_row(nsys::kProcesses, kColumns, [&](const SqliteStatement& row) -> Status {
    const std::int64_t pid = !row.is_null(1) ? row.int64(1) : nsys::pid_of(row.int64(0));
    if (host_pids_.contains(pid) && !row.text(2).empty()) builder_.process(pid).name = std::string(row.text(2));
    return ok_status();
  });
}

Status NsysReader::read_export_info() {
  static constexpr std::array<Column, 2> kExportColumns{{{"name", true}, {"value"}}};
  Status s = each_row(nsys::kExportInfo, kExportColumns, [&](const SqliteStatement& row) -> Status {
    if (row.text(0) == "EXPORT_PRODUCT_VERSION") product_version_ = std::string(row.text(1));
    if (row.text(0) == "EXPORT_SCHEMA_VERSION") schema_version_ = std::string(row.text(1));
    return ok_status();
  });
  if (!s) return s;
  static constexpr std::array<Column, 1> kStartColumns{{{"utcEpochNs", true}}};
  return each_row(nsys::kSessionStart, kStartColumns, [&](const SqliteStatement& row) -> Status {
    if (!row.is_null(0) && in_trace_time_range(row.int64(0))) builder_.metadata().origin_unix_ns = row.int64(0);
    return ok_status();
  });
}

Expected<Trace> NsysReader::finish() {
  TraceMetadata& meta = builder_.metadata();
  meta.source_tool = "Nsight Systems" + (product_version_.empty() ? "" : " " + product_version_) + " (SQLite export" +
                     (schema_version_.empty() ? "" : ", schema " + schema_version_) + ")";
  const bool has_events = std::any_of(std::begin(nsys::kEventTables), std::end(nsys::kEventTables),
                                      [&](std::string_view t) { return tables_.contains(std::string(t)); });
  if (!has_events)
    meta.notes.push_back(
        "the export has none of the tables gtv reads events from (CUPTI_ACTIVITY_KIND_RUNTIME, "
        "_KERNEL, _MEMCPY, _MEMSET, NVTX_EVENTS): no CUDA or NVTX activity was recorded");
  if (names_missing_ > 0)
    meta.notes.push_back(std::to_string(names_missing_) +
                         " names refer to strings missing from StringIds; those events have empty names");
  std::uint64_t skipped_total = 0;
  for (const auto& [reason, count] : skipped_) {
    meta.notes.push_back("reader skipped " + std::to_string(count) + " " + reason);
    skipped_total += count;
  }
  if (ReadStats* stats = options_.stats; stats != nullptr) {
    stats->array_elements = event_rows_;
    stats->events_skipped = skipped_total;
    stats->skipped.insert(skipped_.begin(), skipped_.end());
    stats->gzip = gzip_;
  }
  Expected<Trace> trace = builder_.build();
  if (!trace) return Error{name_ + ": " + trace.error().message};
  return trace;
}

}  // namespace gtv::io
