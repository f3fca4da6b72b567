#include "json_parts.h"
#include "report_document.h"

namespace gtv::analysis {
namespace {

using detail::JsonWriter;
using U = std::uint64_t;

void strings(JsonWriter& w, std::string_view key, const std::vector<std::string>& lines) {
  w.key(key).begin_array();
  for (const auto& l : lines) w.value(l);
  w.end_array();
}

void busy(JsonWriter& w, const BusyAnalysis& b) {
  w.key("busy").begin_object().field("window_start_ns", b.window_start_ns).field("window_end_ns", b.window_end_ns);
  w.key("gpus").begin_array();
  for (const GpuBusy& g : b.gpus)
    w.begin_object().field("device", g.device).field("busy_ns", g.busy_ns).field("idle_ns", g.idle_ns)
        .field("utilization", g.utilization, 4).field("kernel_count", U(g.kernel_count))
        .field("kernel_ns", g.kernel_ns).field("activity_count", U(g.activity_count)).end_object();
  w.end_array().key("streams").begin_array();
  for (const StreamBusy& s : b.streams)
    w.begin_object().field("device", s.device).field("stream", s.stream).field("busy_ns", s.busy_ns)
        .field("utilization", s.utilization, 4).field("activity_count", U(s.activity_count)).end_object();
  w.end_array().end_object();
}

void concurrency(JsonWriter& w, const Concurrency& c) {
  w.key("concurrency").begin_object().field("gpu_count", U(c.gpu_count)).field("any_busy_ns", c.any_busy_ns);
  w.field("overlap_ns", c.overlap_ns).field("sum_busy_ns", c.sum_busy_ns).field("ideal_ns", c.ideal_ns);
  w.field("busiest_device", c.busiest_device).field("effective_parallelism", c.effective_parallelism, 4);
  w.field("overlap_share", c.overlap_share, 4).field("step_count", U(c.steps.size())).field("verdict", c.verdict);
  w.end_object();
}

void warmup(JsonWriter& w, const WarmUp& wu) {
  w.key("warmup").begin_object().key("devices").begin_array();
  for (const DeviceWarmUp& d : wu.devices)
    w.begin_object().field("device", d.device).field("basis", d.basis == WarmUpBasis::Ranges ? "ranges" : "kernel_names")
        .field("first_ns", d.first_ns).field("steady_mean_ns", d.steady_mean_ns)
        .field("steady_count", U(d.steady_count)).field("cold_start_ns", d.cold_start_ns)
        .field("warmup_range_ns", d.warmup_range_ns).field("slowdown", d.slowdown, 3).end_object();
  w.end_array().key("causes").begin_array();
  for (const WarmUpCauseTotal& c : wu.causes)
    w.begin_object().field("cause", to_string(c.cause)).field("calls", U(c.call_count))
        .field("segments", U(c.segment_count)).field("time_ns", c.time_ns).end_object();
  w.end_array().key("segments").begin_array();
  for (std::size_t i = 0; i < wu.segments.size() && i < kMaxJsonRows; ++i) {
    const WarmUpSegment& s = wu.segments[i];
    w.begin_object().field("cause", to_string(s.cause)).field("pid", s.pid).field("tid", s.tid)
        .field("start_ns", s.start_ns).field("end_ns", s.end_ns).field("time_ns", s.time_ns)
        .field("calls", U(s.call_count)).field("first_call", s.first_call).end_object();
  }
  w.end_array().field("segment_time_ns", wu.segment_time_ns);
  strings(w, "findings", wu.findings);
  w.end_object();
}

void blocking(JsonWriter& w, const HostBlocking& h) {
  w.key("host_blocking").begin_object().field("total_blocked_ns", h.total_blocked_ns).key("threads").begin_array();
  for (const ThreadBlocking& t : h.threads)
    w.begin_object().field("pid", t.pid).field("tid", t.tid).field("name", t.name).field("calls", U(t.call_count))
        .field("blocked_ns", t.blocked_ns).field("span_ns", t.span_ns).field("blocked_share", t.blocked_share, 4)
        .end_object();
  w.end_array().key("calls").begin_array();
  for (std::size_t i = 0; i < h.calls.size() && i < kMaxJsonRows; ++i) {
    const BlockingCall& c = h.calls[i];
    w.begin_object().field("tid", c.tid).field("name", c.name).field("kind", to_string(c.kind))
        .field("start_ns", c.start_ns).field("duration_ns", c.duration_ns).field("device", c.device).end_object();
  }
  w.end_array();
  strings(w, "findings", h.findings);
  w.end_object();
}

void stats(JsonWriter& w, const LatencyStats& s) {
  w.begin_object().field("count", U(s.count)).field("min_ns", s.min_ns).field("p50_ns", s.p50_ns)
      .field("p90_ns", s.p90_ns).field("max_ns", s.max_ns).field("mean_ns", s.mean_ns).end_object();
}

void launches(JsonWriter& w, const LaunchAnalysis& a) {
  w.key("launches").begin_object().key("all");
  stats(w, a.all);
  w.key("devices").begin_array();
  for (const DeviceLatency& d : a.devices) {
    w.begin_object().field("device", d.device).key("latency");
    stats(w, d.stats);
    w.end_object();
  }
  w.end_array().key("streams").begin_array();
  for (const StreamQueue& q : a.streams)
    w.begin_object().field("device", q.device).field("stream", q.stream).field("max_depth", q.max_depth)
        .field("max_depth_at_ns", q.max_depth_at_ns).end_object();
  w.end_array().field("activities_without_flow", U(a.activities_without_flow));
  strings(w, "findings", a.findings);
  w.end_object();
}

void timing(JsonWriter& w, const TimingTruth& t) {
  w.key("timing").begin_object().key("measurements").begin_array();
  for (const MeasurementTruth& m : t.measurements)
    w.begin_object().field("name", m.name).field("method", to_string(m.method)).field("reported_ns", m.reported_ns)
        .field("host_start_ns", m.host_start_ns).field("host_end_ns", m.host_end_ns).field("by_flows", m.by_flows)
        .field("gpu_activity_count", U(m.gpu_activity_count)).field("gpu_busy_ns", m.gpu_busy_ns)
        .field("truth_ns", m.truth_ns).field("error_ns", m.error_ns).field("relative_error", m.relative_error, 4)
        .field("verdict", m.verdict).end_object();
  w.end_array().key("methods").begin_array();
  for (const MethodError& e : t.methods)
    w.begin_object().field("method", to_string(e.method)).field("count", U(e.count))
        .field("mean_relative_error", e.mean_relative_error, 4)
        .field("mean_abs_relative_error", e.mean_abs_relative_error, 4).end_object();
  w.end_array().end_object();
}

void kernels(JsonWriter& w, const KernelStats& k) {
  w.key("kernels").begin_object().field("total_kernel_ns", k.total_kernel_ns).field("kernel_count", U(k.kernel_count));
  w.key("all").begin_array();
  for (std::size_t i = 0; i < k.kernels.size() && i < kMaxJsonRows; ++i) {
    const KernelStat& s = k.kernels[i];
    w.begin_object().field("name", s.name).field("full_name", s.full_name).field("count", U(s.count))
        .field("total_ns", s.total_ns).field("mean_ns", s.mean_ns).field("min_ns", s.min_ns).field("max_ns", s.max_ns)
        .field("share", s.share, 4).end_object();
  }
  w.end_array().key("per_device").begin_array();
  for (std::size_t i = 0; i < k.per_device.size() && i < kMaxJsonRows; ++i) {
    const KernelStat& s = k.per_device[i];
    w.begin_object().field("device", s.device).field("name", s.name).field("count", U(s.count))
        .field("total_ns", s.total_ns).field("share", s.share, 4).end_object();
  }
  w.end_array().end_object();
}

std::string report_json(const Report& r) {
  JsonWriter w;
  w.begin_object();
  strings(w, "verdict", r.verdict);
  w.key("summary");
  detail::write_summary_json(w, r.summary);
  busy(w, r.busy);
  concurrency(w, r.concurrency);
  warmup(w, r.warmup);
  blocking(w, r.blocking);
  launches(w, r.launches);
  timing(w, r.timing);
  kernels(w, r.kernels);
  w.end_object();
  return w.take();
}

}  // namespace

std::string format_report(const Report& report, Format format) {
  switch (format) {
    case Format::Text: return detail::render_text(detail::report_document(report));
    case Format::Markdown: return detail::render_markdown(detail::report_document(report));
    case Format::Json: return report_json(report);
  }
  return {};
}

}  // namespace gtv::analysis
