// The parts of a written file besides the events: Kineto's top-level keys, the gtv section, and the "M"
// metadata events that name processes and threads for other viewers.
#include <string>

#include "gtv/config.h"
#include "gtv/model/kineto_names.h"
#include "json/gtv_section.h"
#include "output/trace_writer.h"

namespace gtv::io {

void TraceWriter::header() {
  out_.raw("\n").key("schemaVersion").num(1);
  out_.raw("\n").key("displayTimeUnit").str("ms");
  out_.raw("\n").key("baseTimeNanoseconds").num(t_.metadata().origin_unix_ns);
  out_.raw("\n").key("deviceProperties").open('[');
  for (const DeviceInfo& d : t_.devices()) {
    out_.open('{').key("id").num(d.index).key("name").str(d.name).key("totalGlobalMem").num(d.total_memory_bytes);
    out_.key("computeMajor").num(d.compute_major).key("computeMinor").num(d.compute_minor);
    out_.key("numSms").num(d.sm_count).close('}');
  }
  out_.close(']');
  if (const DistributedInfo& dist = t_.metadata().distributed; dist.rank >= 0) {
    out_.raw("\n").key("distributedInfo").open('{');
    out_.key("backend").str(dist.backend).key("rank").num(dist.rank).key("world_size").num(dist.world_size);
    out_.close('}');
  }
}

void TraceWriter::gtv_section() {
  out_.raw("\n").key("gtv").open('{');
  out_.key("format_version").num(kGtvFormatVersion);
  out_.key("writer").str(std::string("gtv ") + GTV_VERSION);
  gtv_metadata();
  gtv_lanes_and_processes();
  gtv_ranges_and_measurements();
  out_.close('}');
  out_.raw("\n");
}

void TraceWriter::gtv_metadata() {
  const TraceMetadata& m = t_.metadata();
  out_.raw("\n").key("metadata").open('{');
  out_.key("source_tool").str(m.source_tool).key("scenario").str(m.scenario);
  for (const auto* map : {&m.config, &m.machine}) {
    out_.key(map == &m.config ? "config" : "machine").open('{');
    for (const auto& [k, v] : *map) out_.key(k).str(v);
    out_.close('}');
  }
  out_.key("dropped_records").num(m.dropped_records);
  out_.key("notes").open('[');
  for (const std::string& note : m.notes) {
    out_.comma();
    out_.str(note).value_done();
  }
  out_.close(']');
  gtv_ranks();
  gtv_recorder_costs();
  out_.close('}');
}

void TraceWriter::gtv_recorder_costs() {
  const std::vector<RecorderCost>& costs = t_.metadata().recorder_costs;
  if (costs.empty()) return;
  out_.key("recorder_cost").open('[');
  for (const RecorderCost& c : costs) {
    out_.raw("\n").open('{').key("pid").num(c.pid).key("startup_ns").num(c.startup_ns);
    out_.key("buffer_handling_ns").num(c.buffer_handling_ns).key("exit_ns").num(c.exit_ns);
    out_.key("traced_ns").num(c.traced_ns).key("buffers").num(c.buffers).key("records").num(c.records);
    out_.key("records_kept").num(c.records_kept).close('}');
  }
  out_.close(']');
}

void TraceWriter::gtv_ranks() {
  const TraceMetadata& m = t_.metadata();
  if (m.distributed.rank < 0 && m.distributed.world_size == 0 && m.ranks.empty()) return;
  out_.key("distributed").open('{').key("rank").num(m.distributed.rank);
  out_.key("world_size").num(m.distributed.world_size).key("backend").str(m.distributed.backend).close('}');
  auto ints = [&](std::string_view key, const std::vector<std::int64_t>& values) {
    out_.key(key).open('[');
    for (std::int64_t v : values) {
      out_.comma();
      out_.num(v).value_done();
    }
    out_.close(']');
  };
  out_.key("ranks").open('[');
  for (const RankInfo& r : m.ranks) {
    out_.raw("\n").open('{').key("rank").num(r.rank).key("source").str(r.source);
    ints("pids", r.pids);
    ints("devices", r.devices);
    ints("local_devices", r.local_devices);
    out_.key("shift_ns").num(r.shift_ns).key("clock_offset_ns").num(r.clock_offset_ns).close('}');
  }
  out_.close(']');
  out_.key("clock").open('{').key("method").str(m.clock.method).key("basis").str(m.clock.basis);
  out_.key("residual_ns").num(m.clock.residual_ns).key("collectives_checked").num(m.clock.collectives_checked);
  out_.close('}');
}

void TraceWriter::gtv_lanes_and_processes() {
  out_.raw("\n").key("lanes").open('[');
  for (const Lane& lane : t_.lanes()) {
    out_.raw("\n").open('{').key("kind").str(lane.is_gpu() ? "gpu" : "host");
    out_.key("pid").num(lane.key.pid).key("tid").num(lane.key.tid);
    out_.key("name").str(lane.name).key("sort_index").num(lane.sort_index).close('}');
  }
  out_.close(']');
  out_.raw("\n").key("processes").open('[');
  for (const ProcessInfo& p : t_.processes()) {
    out_.raw("\n").open('{').key("pid").num(p.pid).key("name").str(p.name).key("sort_index").num(p.sort_index);
    out_.key("labels").open('[');
    for (const std::string& label : p.labels) {
      out_.comma();
      out_.str(label).value_done();
    }
    out_.close(']').close('}');
  }
  out_.close(']');
}

void TraceWriter::gtv_ranges_and_measurements() {
  out_.raw("\n").key("ranges").open('[');
  for (const Range& r : t_.ranges()) {
    out_.raw("\n").open('{').key("name").str(r.name).key("kind").str(to_string(r.kind));
    out_.key("start_ns").num(r.start_ns).key("end_ns").num(r.end_ns);
    out_.key("pid").num(r.pid).key("tid").num(r.tid).key("device").num(r.device).close('}');
  }
  out_.close(']');
  out_.raw("\n").key("measurements").open('[');
  for (const Measurement& m : t_.measurements()) {
    out_.raw("\n").open('{').key("name").str(m.name).key("method").str(to_string(m.method));
    out_.key("reported_ns").num(m.reported_ns);
    out_.key("host_start_ns").num(m.host_start_ns).key("host_end_ns").num(m.host_end_ns);
    out_.key("pid").num(m.pid).key("tid").num(m.tid).close('}');
  }
  out_.close(']');
}

void TraceWriter::thread_metadata(std::int64_t pid, std::int64_t tid, std::string_view name, std::int64_t sort_index) {
  begin_event("M");
  out_.key("name").str(kineto::kMetaThreadName).key("pid").num(pid).key("tid").num(tid);
  out_.key("args").open('{').key(kineto::kArgName).str(name).close('}').close('}');
  begin_event("M");
  out_.key("name").str(kineto::kMetaThreadSortIndex).key("pid").num(pid).key("tid").num(tid);
  out_.key("args").open('{').key(kineto::kArgSortIndex).num(sort_index).close('}').close('}');
}

void TraceWriter::metadata_events() {
  for (const ProcessInfo& p : t_.processes()) {
    begin_event("M");
    out_.key("name").str(kineto::kMetaProcessName).key("pid").num(p.pid).key("tid").num(0);
    out_.key("args").open('{').key(kineto::kArgName).str(p.name).close('}').close('}');
    begin_event("M");
    out_.key("name").str(kineto::kMetaProcessSortIndex).key("pid").num(p.pid).key("tid").num(0);
    out_.key("args").open('{').key(kineto::kArgSortIndex).num(p.sort_index).close('}').close('}');
    std::string labels;
    for (const std::string& label : p.labels) labels += (labels.empty() ? "" : ",") + label;
    begin_event("M");
    out_.key("name").str(kineto::kMetaProcessLabels).key("pid").num(p.pid).key("tid").num(0);
    out_.key("args").open('{').key(kineto::kArgLabels).str(labels).close('}').close('}');
  }
  for (std::size_t l = 0; l < t_.lanes().size(); ++l) {
    const Lane& lane = t_.lanes()[l];
    const LaneLayout& layout = layout_.lanes[l];
    thread_metadata(lane.key.pid, lane.key.tid, lane.name, lane.sort_index);
    for (std::size_t track = 1; track < layout.track_tids.size(); ++track)
      thread_metadata(lane.key.pid, layout.track_tids[track], lane.name + " (overlap " + std::to_string(track) + ")",
                      lane.sort_index);
  }
  for (const RangeTrack& r : layout_.range_tracks) thread_metadata(r.pid, r.tid, "gtv ranges", -1);
}

}  // namespace gtv::io
