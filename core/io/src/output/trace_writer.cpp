#include "output/trace_writer.h"

#include <algorithm>

#include "gtv/config.h"
#include "gtv/io/trace_file.h"
#include "gtv/model/kineto_names.h"
#include "json/trace_assembler.h"
#include "output/file_sink.h"

namespace gtv::io {
namespace {

// The category written for an event: Kineto's, with "gpu_user_annotation" for annotations on GPU lanes.
std::string_view written_category(const Trace& t, const Lane& lane, const Event& e) {
  if (e.kind == EventKind::Annotation && lane.is_gpu()) return kineto::kCategoryGpuUserAnnotation;
  return t.category(e);
}

}  // namespace

bool TraceWriter::write() {
  out_.open('{');
  header();
  gtv_section();
  out_.key("traceEvents").open('[');
  metadata_events();
  if (!all_events()) return false;
  range_events();
  counter_events();
  flow_events();
  out_.raw("\n").close(']');
  out_.close('}').raw("\n");
  return out_.flush();
}

void TraceWriter::begin_event(std::string_view ph) {
  out_.comma();
  out_.raw("\n").open('{').key("ph").str(ph);
}

// Kernels, copies and memsets in the order of their side tables (so the tables read back in the same order),
// then every other event in lane order.
bool TraceWriter::all_events() {
  std::vector<std::pair<std::uint32_t, EventRef>> by_detail[3];
  for (LaneIndex l = 0; l < t_.lanes().size(); ++l) {
    const Lane& lane = t_.lanes()[l];
    for (std::uint32_t i = 0; i < lane.events.size(); ++i) {
      const Event& e = lane.events[i];
      const int table = e.kind == EventKind::Kernel   ? 0
                        : e.kind == EventKind::Memcpy ? 1
                        : e.kind == EventKind::Memset ? 2
                                                      : -1;
      if (table < 0) continue;
      by_detail[table].push_back({e.detail, EventRef{l, i}});
    }
  }
  for (auto& refs : by_detail) {
    std::stable_sort(refs.begin(), refs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [detail, ref] : refs) {
      event(ref.lane, ref.index);
      if (!out_.flush_if_full()) return false;
    }
  }
  for (LaneIndex l = 0; l < t_.lanes().size(); ++l) {
    const Lane& lane = t_.lanes()[l];
    for (std::uint32_t i = 0; i < lane.events.size(); ++i) {
      const EventKind k = lane.events[i].kind;
      if (k == EventKind::Kernel || k == EventKind::Memcpy || k == EventKind::Memset) continue;
      event(l, i);
      if (!out_.flush_if_full()) return false;
    }
  }
  return true;
}

void TraceWriter::event(LaneIndex lane_index, std::uint32_t index) {
  const Lane& lane = t_.lanes()[lane_index];
  const Event& e = lane.events[index];
  const std::uint32_t track = layout_.lanes[lane_index].track[index];
  const std::string_view category = written_category(t_, lane, e);
  const bool instant = e.kind == EventKind::Instant && e.duration_ns == 0;
  begin_event(instant ? "i" : "X");
  if (instant) out_.key("s").str("t");
  out_.key("cat").str(category).key("name").str(t_.name(e));
  out_.key("pid").num(lane.key.pid).key("tid").num(layout_.lanes[lane_index].track_tids[track]);
  out_.key("ts").us(e.start_ns);
  if (!instant) out_.key("dur").us(e.duration_ns);
  event_args(lane, e, track, category);
  out_.close('}');
}

void TraceWriter::event_args(const Lane& lane, const Event& e, std::uint32_t track, std::string_view category) {
  out_.key("args").open('{');
  if (lane.is_gpu()) out_.key(kineto::kArgDevice).num(lane.device()).key(kineto::kArgStream).num(lane.stream());
  if (e.correlation_id != kNoCorrelation)
    out_.key(kineto::kArgCorrelation).num(static_cast<std::int64_t>(e.correlation_id));
  if (const KernelDetail* k = t_.kernel_detail(e)) kernel_args(*k);
  if (const MemcpyDetail* m = t_.memcpy_detail(e)) memcpy_args(*m, e);
  if (const MemsetDetail* m = t_.memset_detail(e)) {
    out_.key(kineto::kArgBytes).num(m->bytes).key(kineto::kArgMemoryKind).str(to_string(m->memory_kind));
    out_.key(kineto::kArgValue).num(m->value);
  }
  for (const EventArg& arg : t_.extra_args(e)) out_.key(arg.key).raw(arg.value_json);  // JSON as it was read
  if (const auto id = t_.external_id(e)) out_.key(kineto::kArgExternalId).num(*id);
  if (track != 0) out_.key("gtv_tid").num(lane.key.tid);
  if (classify_category(category).gpu != lane.is_gpu()) out_.key("gtv_lane").str(lane.is_gpu() ? "gpu" : "host");
  out_.close('}');
}

void TraceWriter::kernel_args(const KernelDetail& k) {
  auto dim3 = [&](std::string_view name, const std::int32_t(&v)[3]) {
    out_.key(name).open('[');
    for (int i = 0; i < 3; ++i) {
      out_.comma();
      out_.num(v[i]).value_done();
    }
    out_.close(']');
  };
  dim3(kineto::kArgGrid, k.grid);
  dim3(kineto::kArgBlock, k.block);
  out_.key(kineto::kArgRegistersPerThread).num(k.registers_per_thread);
  out_.key(kineto::kArgSharedMemory).num(k.shared_memory_bytes);
  out_.key(kineto::kArgBlocksPerSm).scaled(k.blocks_per_sm_x100, 2);
  if (k.occupancy_pct != -1) out_.key(kineto::kArgOccupancy).num(k.occupancy_pct);
  if (k.launched_by_graph()) {
    out_.key(kineto::kArgGraphId).num(static_cast<std::int64_t>(k.graph_id));
    out_.key(kineto::kArgGraphNodeId).num(static_cast<std::int64_t>(k.graph_node_id));
  }
}

void TraceWriter::memcpy_args(const MemcpyDetail& m, const Event& e) {
  out_.key(kineto::kArgBytes).num(m.bytes);
  if (e.duration_ns > 0)  // bytes per ns is GB/s; for other tools only, gtv does not read it back
    out_.key(kineto::kArgMemoryBandwidth).real(static_cast<double>(m.bytes) / static_cast<double>(e.duration_ns));
  out_.key(kineto::kArgCopyKind).str(to_string(m.copy_kind));
  out_.key(kineto::kArgSrcKind).str(to_string(m.src_kind)).key(kineto::kArgDstKind).str(to_string(m.dst_kind));
  if (m.dst_device != -1) out_.key(kineto::kArgDstDevice).num(m.dst_device);
}

// Ranges are also written as user_annotation events so other viewers show them; args.gtv_range tells gtv to skip
// them (the exact ranges are in the gtv section).
void TraceWriter::range_events() {
  for (std::size_t i = 0; i < t_.ranges().size(); ++i) {
    const Range& r = t_.ranges()[i];
    begin_event("X");
    out_.key("cat").str(kineto::kCategoryUserAnnotation).key("name").str(r.name);
    out_.key("pid").num(r.pid).key("tid").num(layout_.range_tids[i]);
    out_.key("ts").us(r.start_ns).key("dur").us(std::max<TimeNs>(0, saturating_sub(r.end_ns, r.start_ns)));
    out_.key("args").open('{').key("gtv_range").str(to_string(r.kind));
    if (r.device >= 0) out_.key(kineto::kArgDevice).num(r.device);
    out_.close('}').close('}');
  }
}

void TraceWriter::counter_events() {
  for (const CounterSeries& series : t_.counters()) {
    for (const CounterSample& s : series.samples) {
      begin_event("C");
      out_.key("name").str(series.name).key("pid").num(series.pid).key("ts").us(s.time_ns);
      out_.key("args").open('{').key("value").real(s.value).close('}').close('}');
    }
  }
}

// One end of a flow, bound to the event that starts at its time (Perfetto binds an 's' to the slice enclosing it,
// an 'f' with "bp":"e" too). Dependencies have ids of their own (1, 2, ... in Trace::dependencies() order: a wait
// has one link, but a correlation id may be unknown), their wait call's correlation id in args.correlation and
// each end's lane kind in args.gtv_lane (a host lane and a GPU lane may share pid and tid).
void TraceWriter::flow_end(char phase, const Flow& flow, EventRef ref, std::uint64_t id) {
  const Lane& lane = t_.lanes()[ref.lane];
  const LaneLayout& layout = layout_.lanes[ref.lane];
  begin_event(phase == 's' ? "s" : "f");
  out_.key("id").num(static_cast<std::int64_t>(id));
  out_.key("pid").num(lane.key.pid).key("tid").num(layout.track_tids[layout.track[ref.index]]);
  const std::string_view category = flow.kind == FlowKind::ForwardToBackward ? kineto::kFlowForwardToBackward
                                    : flow.kind == FlowKind::Dependency      ? kineto::kFlowDependency
                                                                             : kineto::kFlowLaunchToGpu;
  out_.key("ts").us(t_.event(ref).start_ns).key("cat").str(category).key("name").str(category);
  if (phase == 'f') out_.key("bp").str("e");
  if (flow.kind == FlowKind::Dependency) {
    out_.key("args").open('{');
    if (flow.correlation_id != kNoCorrelation)
      out_.key(kineto::kArgCorrelation).num(static_cast<std::int64_t>(flow.correlation_id));
    out_.key("gtv_lane").str(lane.is_gpu() ? "gpu" : "host").close('}');
  }
  out_.close('}');
}

void TraceWriter::flow_events() {
  for (const auto* flows : {&t_.flows(), &t_.backward_links()}) {
    for (const Flow& f : *flows) {
      flow_end('s', f, f.from, f.correlation_id);
      flow_end('f', f, f.to, f.correlation_id);
    }
  }
  for (std::size_t i = 0; i < t_.dependencies().size(); ++i) {
    const Flow& f = t_.dependencies()[i];
    flow_end('s', f, f.from, i + 1);
    flow_end('f', f, f.to, i + 1);
  }
}

Status write_trace(const Trace& trace, const std::string& path) {
  const bool gzip = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  Expected<std::unique_ptr<FileSink>> sink = FileSink::open(path, gzip);
  if (!sink) return sink.error();
  JsonOut out(**sink);
  (void)TraceWriter(trace, out).write();  // a failed write is recorded in the sink and reported by commit()
  return (*sink)->commit();
}

std::string write_trace_to_string(const Trace& trace) {
  std::string text;
  StringSink sink(text);
  JsonOut out(sink);
  (void)TraceWriter(trace, out).write();
  return text;
}

std::string rank_file_path(std::string_view path, std::int64_t rank) {
  const std::size_t slash = path.rfind('/');
  const std::size_t name_start = slash == std::string_view::npos ? 0 : slash + 1;
  // The extension starts at the name's first dot after its first character (".json.gz" stays whole; a hidden
  // file's leading dot is not one).
  std::size_t dot = path.find('.', name_start + 1);
  if (dot == std::string_view::npos) dot = path.size();
  std::string out(path.substr(0, dot));
  out += ".rank" + std::to_string(rank);
  out += path.substr(dot);
  return out;
}

}  // namespace gtv::io
