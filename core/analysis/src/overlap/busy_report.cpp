#include <algorithm>

#include "report/report_document.h"

namespace gtv::analysis::detail {

Section busy_section(const Report& r, Listing listing) {
  Section sec{"GPU busy time", {}, {}};
  if (r.busy.gpus.empty()) {
    sec.lines.emplace_back("No GPU activity: no kernel, copy or memset in this trace.");
    return sec;
  }
  sec.lines.push_back("Window: " + format_duration(r.busy.window_ns()) + " (the whole trace).");
  Table gpus{{"GPU", "name", "busy", "idle", "utilization", "kernels", "kernel time"},
             {false, false, true, true, true, true, true},
             {},
             {}};
  // Both tables in index order, as the timeline shows the GPUs; the window and totals above cover every GPU.
  const std::size_t gpus_shown = listed_rows(r.busy.gpus.size(), listing);
  for (std::size_t i = 0; i < gpus_shown; ++i) {
    const GpuBusy& g = r.busy.gpus[i];
    gpus.rows.push_back({std::to_string(g.device), device_name(r, g.device), format_duration(g.busy_ns),
                         format_duration(g.idle_ns), percent(g.utilization, 1), std::to_string(g.kernel_count),
                         format_duration(g.kernel_ns)});
  }
  gpus.note = left_out_note(r.busy.gpus.size(), gpus_shown, "GPU", "GPUs");
  Table streams{{"GPU", "stream", "activities", "busy", "utilization"}, {false, false, true, true, true}, {}, {}};
  const std::size_t streams_shown = listed_rows(r.busy.streams.size(), listing);
  for (std::size_t i = 0; i < streams_shown; ++i) {
    const StreamBusy& s = r.busy.streams[i];
    streams.rows.push_back({std::to_string(s.device), std::to_string(s.stream), std::to_string(s.activity_count),
                            format_duration(s.busy_ns), percent(s.utilization, 1)});
  }
  streams.note = left_out_note(r.busy.streams.size(), streams_shown, "stream", "streams");
  sec.tables = {std::move(gpus), std::move(streams)};
  return sec;
}

void busy_json(JsonWriter& w, const Report& r) {
  const BusyAnalysis& b = r.busy;
  w.key("busy").begin_object().field("window_start_ns", b.window_start_ns).field("window_end_ns", b.window_end_ns);
  w.key("gpus").begin_array();
  for (const GpuBusy& g : b.gpus)
    w.begin_object()
        .field("device", g.device)
        .field("busy_ns", g.busy_ns)
        .field("idle_ns", g.idle_ns)
        .field("utilization", g.utilization, 4)
        .field("kernel_count", U(g.kernel_count))
        .field("kernel_ns", g.kernel_ns)
        .field("activity_count", U(g.activity_count))
        .end_object();
  w.end_array().key("streams").begin_array();
  for (const StreamBusy& s : b.streams)
    w.begin_object()
        .field("device", s.device)
        .field("stream", s.stream)
        .field("busy_ns", s.busy_ns)
        .field("utilization", s.utilization, 4)
        .field("activity_count", U(s.activity_count))
        .end_object();
  w.end_array().end_object();
}

}  // namespace gtv::analysis::detail
