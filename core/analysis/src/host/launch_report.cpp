#include <algorithm>

#include "report/report_document.h"

namespace gtv::analysis::detail {

namespace {

void latency_json(JsonWriter& w, const LatencyStats& s) {
  w.begin_object()
      .field("count", U(s.count))
      .field("min_ns", s.min_ns)
      .field("p50_ns", s.p50_ns)
      .field("p90_ns", s.p90_ns)
      .field("max_ns", s.max_ns)
      .field("mean_ns", s.mean_ns)
      .end_object();
}

}  // namespace

Section launch_section(const Report& r, Listing listing) {
  const LaunchAnalysis& a = r.launches;
  Section sec{"Launch latency and queues", a.findings, {}};
  if (!a.devices.empty()) {
    Table t{
        {"GPU", "launches", "min", "p50", "p90", "max", "mean"}, {false, true, true, true, true, true, true}, {}, {}};
    const std::size_t shown = listed_rows(a.devices.size(), listing);
    for (std::size_t i = 0; i < shown; ++i) {
      const DeviceLatency& d = a.devices[i];
      t.rows.push_back({std::to_string(d.device), std::to_string(d.stats.count), format_duration(d.stats.min_ns),
                        format_duration(d.stats.p50_ns), format_duration(d.stats.p90_ns),
                        format_duration(d.stats.max_ns), format_duration(d.stats.mean_ns)});
    }
    t.note = left_out_note(a.devices.size(), shown, "GPU", "GPUs");
    sec.tables.push_back(std::move(t));
  }
  if (!a.streams.empty()) {
    Table t{{"GPU", "stream", "deepest queue", "at"}, {false, false, true, true}, {}, {}};
    const std::size_t shown = listed_rows(a.streams.size(), listing);
    for (std::size_t i = 0; i < shown; ++i) {
      const StreamQueue& q = a.streams[i];
      t.rows.push_back(
          {std::to_string(q.device), std::to_string(q.stream), std::to_string(q.max_depth), at(r, q.max_depth_at_ns)});
    }
    t.note = left_out_note(a.streams.size(), shown, "stream", "streams");
    sec.tables.push_back(std::move(t));
  }
  return sec;
}

void launch_json(JsonWriter& w, const Report& r) {
  const LaunchAnalysis& a = r.launches;
  w.key("launches").begin_object().key("all");
  latency_json(w, a.all);
  w.key("devices").begin_array();
  for (const DeviceLatency& d : a.devices) {
    w.begin_object().field("device", d.device).key("latency");
    latency_json(w, d.stats);
    w.end_object();
  }
  w.end_array().key("streams").begin_array();
  for (const StreamQueue& q : a.streams)
    w.begin_object()
        .field("device", q.device)
        .field("stream", q.stream)
        .field("max_depth", q.max_depth)
        .field("max_depth_at_ns", q.max_depth_at_ns)
        .end_object();
  w.end_array().field("activities_without_flow", U(a.activities_without_flow));
  json_strings(w, "findings", a.findings);
  w.end_object();
}

}  // namespace gtv::analysis::detail
