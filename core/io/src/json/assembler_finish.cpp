// The end of reading: names, processes, the gtv section, flows, metadata, then TraceBuilder::build().
#include "gtv/config.h"
#include "gtv/model/counter_names.h"
#include "gtv/model/kineto_names.h"
#include "json/trace_assembler.h"

namespace gtv::io {
namespace {

// A range or measured interval other data can be compared with: ordered and inside the accepted time range, so
// its length is never negative and never overflows.
bool valid_span(TimeNs start_ns, TimeNs end_ns) {
  return start_ns <= end_ns && in_trace_time_range(start_ns) && in_trace_time_range(end_ns);
}

// The note for records skipped for `reason`, with what that means for the user where it is not plain. PyTorch's
// profiler writes an 'ac2g' end on CUDA calls that ran no GPU work (cudaGetErrorString, cudaStreamIsCapturing,
// cudaDeviceSynchronize: 126 of the 127 in conv_training), and launches meet their GPU work by correlation id
// (model/flow_join), so these ends take no arrow away.
std::string skip_note(const std::string& reason, std::size_t count) {
  std::string note = "reader skipped " + std::to_string(count) + " " + reason;
  if (reason == "'ac2g' flow events without a partner")
    note +=
        ": ends of launch-to-GPU links whose other end is not in the file (PyTorch writes them on CUDA calls that "
        "ran no GPU work); launches are joined to their GPU work by correlation id, so no arrow is lost";
  return note;
}

}  // namespace

void TraceAssembler::apply_names() {
  for (LaneIndex index = 0; index < builder_.lane_count(); ++index) {
    const LaneKey& key = builder_.lane_key(index);
    const PidTid id{key.pid, key.tid};
    if (auto it = thread_names_.find(id); it != thread_names_.end()) {
      builder_.set_lane_name(index, it->second);
    } else if (auto s = string_thread_names_.find(id); s != string_thread_names_.end()) {
      builder_.set_lane_name(index, s->second);
    }
    if (auto it = thread_sort_.find(id); it != thread_sort_.end()) builder_.set_lane_sort_index(index, it->second);
  }
}

void TraceAssembler::apply_gtv(const GtvSection& gtv) {
  builder_.metadata() = gtv.metadata;
  for (const GtvLane& l : gtv.lanes) {
    const LaneIndex index = lane_for(l.key);
    builder_.set_lane_name(index, l.name);
    builder_.set_lane_sort_index(index, l.sort_index);
  }
  for (const Range& r : gtv.ranges) {
    if (valid_span(r.start_ns, r.end_ns))
      builder_.add_range(r);
    else
      skip("gtv ranges that end before they start or lie outside [-2^62, 2^62) ns");
  }
  for (const Measurement& m : gtv.measurements) {
    if (valid_span(m.host_start_ns, m.host_end_ns) && m.reported_ns >= 0 && in_trace_time_range(m.reported_ns))
      builder_.add_measurement(m);
    else
      skip("gtv measurements with a negative time or an interval outside [-2^62, 2^62) ns or ending before it starts");
  }
}

void TraceAssembler::resolve_flows() {
  auto lane_tid = [&](std::int64_t pid, std::int64_t tid) {
    auto it = aliases_.find({pid, tid});
    return it == aliases_.end() ? tid : it->second;
  };
  // The lane of a flow end: the kind its args.gtv_lane names, else the first of the two that exists.
  auto lane_of = [&](const FlowEnd& end, bool gpu_first) -> std::optional<LaneIndex> {
    const std::int64_t tid = lane_tid(end.pid, end.tid);
    if (end.gpu_lane >= 0)
      return builder_.find_lane(end.gpu_lane == 1 ? gpu_lane_key(end.pid, tid) : host_lane_key(end.pid, tid));
    const std::optional<LaneIndex> first =
        builder_.find_lane(gpu_first ? gpu_lane_key(end.pid, tid) : host_lane_key(end.pid, tid));
    return first ? first : builder_.find_lane(gpu_first ? host_lane_key(end.pid, tid) : gpu_lane_key(end.pid, tid));
  };
  builder_.reserve_flow_hints(flow_pairs_.size());
  for (const FlowPair& f : flow_pairs_) {
    // A launch starts on a host lane and ends on a GPU one; forward and backward ops are on host lanes; a
    // dependency starts at GPU work and ends at GPU work or a host Sync event.
    const bool dependency = f.category == FlowCategory::Dependency;
    const std::optional<LaneIndex> from = lane_of(f.start, dependency);
    const std::optional<LaneIndex> to = lane_of(f.end, f.category != FlowCategory::ForwardToBackward);
    if (!from || !to) {
      skip(f.category == FlowCategory::ForwardToBackward ? "'fwdbwd' flows whose events are missing"
           : dependency                                  ? "'gtv_dependency' flows whose events are missing"
                                                         : "'ac2g' flows whose events are missing");
      continue;
    }
    switch (f.category) {
      case FlowCategory::LaunchToGpu:
        builder_.add_flow_hint(f.id, *from, f.start.ts_ns, *to, f.end.ts_ns);
        break;
      case FlowCategory::ForwardToBackward:
        builder_.add_backward_hint(f.id, *from, f.start.ts_ns, *to, f.end.ts_ns);
        break;
      case FlowCategory::Dependency:
        builder_.add_dependency_hint(f.correlation, *from, f.start.ts_ns, *to, f.end.ts_ns);
        break;
    }
  }
}

std::string TraceAssembler::source_tool() const {
  if (header_.gtv) {
    if (!header_.gtv->metadata.source_tool.empty()) return header_.gtv->metadata.source_tool;
    return header_.gtv->writer.empty() ? std::string("gtv ") + GTV_VERSION : header_.gtv->writer;
  }
  return header_.kineto_keys ? std::string(kineto::kSourceTool) : "Chrome trace";
}

// gtv before format 2 merged the traces of several processes by putting each process's own "device memory
// allocated since start" samples into one series per GPU, so that series jumps between the processes' counts
// (seen in the processes recording: 4.95 GB and 437 kB in turn on GPU 0). Which sample came from which process is
// not in the file, so such series are left out, with a note, rather than read as what the GPU held.
void TraceAssembler::drop_interleaved_memory_counters() {
  if (!header_.gtv || header_.gtv->format_version >= 2 || header_.gtv->processes.size() < 2) return;
  const std::size_t dropped = builder_.remove_counter_series(counters::kDeviceMemorySinceStart);
  if (dropped == 0) return;
  builder_.metadata().notes.push_back(
      "reader left out the counter \"" + std::string(counters::kDeviceMemorySinceStart) + "\" of " +
      std::to_string(dropped) + (dropped == 1 ? " GPU" : " GPUs") + ": this file (gtv format " +
      std::to_string(header_.gtv->format_version) + ") merged " + std::to_string(header_.gtv->processes.size()) +
      " processes' memory counts into one series per GPU without adding them up");
}

Expected<Trace> TraceAssembler::finish(ReadStats* stats) {
  for (const auto& [id, stack] : open_begins_)
    for (std::size_t i = 0; i < stack.size(); ++i) skip("'B' events without an 'E'");
  for (std::size_t i = 0; i < flows_.size(); ++i) skip("'ac2g' flow events without a partner");
  for (std::size_t i = 0; i < backward_flows_.size(); ++i) skip("'fwdbwd' flow events without a partner");
  for (std::size_t i = 0; i < dependency_flows_.size(); ++i) skip("'gtv_dependency' flow events without a partner");
  apply_names();
  add_memory_counters();
  if (header_.gtv) apply_gtv(*header_.gtv);
  drop_interleaved_memory_counters();
  if (header_.gtv && header_.gtv->has_processes) {
    for (const ProcessInfo& p : header_.gtv->processes) builder_.process(p.pid) = p;
  } else {
    for (const auto& [pid, name] : string_process_names_) builder_.process(pid).name = name;
    for (const auto& [pid, info] : processes_) {
      ProcessInfo& p = builder_.process(pid);
      if (!info.name.empty() || p.name.empty()) p.name = info.name;
      p.sort_index = info.sort_index;
      p.labels = info.labels;
    }
  }
  for (const DeviceInfo& d : header_.devices) builder_.add_device(d);
  resolve_flows();
  TraceMetadata& meta = builder_.metadata();
  meta.origin_unix_ns = header_.base_time_ns.value_or(0);
  if (header_.distributed.rank >= 0) meta.distributed = header_.distributed;
  meta.source_tool = source_tool();
  std::uint64_t skipped_total = 0;
  for (const auto& [reason, count] : skipped_) {
    meta.notes.push_back(skip_note(reason, static_cast<std::size_t>(count)));
    skipped_total += static_cast<std::uint64_t>(count);
  }
  if (stats != nullptr) {
    stats->events_skipped = skipped_total;
    for (const auto& [reason, count] : skipped_) stats->skipped[reason] = static_cast<std::uint64_t>(count);
  }
  Expected<Trace> trace = builder_.build();
  if (!trace) return Error{file_ + ": " + trace.error().message};
  return trace;
}

}  // namespace gtv::io
