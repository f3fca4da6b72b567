#include <map>

#include "report/report_document.h"

namespace gtv::analysis::detail {

namespace {

// The window the stream figures are on: the region of interest when measurements give it, else the whole trace.
const Concurrency& streams_window(const Report& r) {
  return r.region.from_measurements && r.region_concurrency.gpu_count > 0 ? r.region_concurrency : r.concurrency;
}

// Per GPU, whether its streams ran at the same time, in the window named in the line above the table.
void add_streams_table(Section& sec, const Report& r, Listing listing) {
  const Concurrency& c = streams_window(r);
  const StreamOverlap& s = c.streams;
  if (s.gpus.empty()) return;
  const std::string window = (&c == &r.concurrency ? std::string("the whole trace") : r.region.name) + " (" +
                             format_duration(s.window_end_ns - s.window_start_ns) + ")";
  sec.lines.push_back("Streams of each GPU in " + window +
                      ": stream parallelism is the sum of each stream's busy time over the GPU's busy time (1.00 = one "
                      "stream at a time).");
  Table t{{"GPU", "streams", "busy", "2+ streams busy", "share of busy", "most at once", "stream parallelism",
           "copy while a kernel ran"},
          {false, true, true, true, true, true, true, true},
          {},
          {}};
  const std::size_t shown = listed_rows(s.gpus.size(), listing);
  for (std::size_t i = 0; i < shown; ++i) {
    const GpuStreamOverlap& g = s.gpus[i];
    t.rows.push_back({gpu_label(g.device), std::to_string(g.stream_count), format_duration(g.busy_ns),
                      format_duration(g.multi_stream_ns), percent(g.multi_stream_share, 1),
                      std::to_string(g.max_busy_streams), fixed(g.stream_parallelism, 2),
                      format_duration(g.copy_compute_overlap_ns)});
  }
  t.note = left_out_note(s.gpus.size(), shown, "GPU", "GPUs");
  sec.tables.push_back(std::move(t));
  const HostLaunchOverlap& h = s.host;
  if (h.thread_count == 1)
    sec.lines.push_back("One host thread launched the GPU work in " + window + ": no two launches were made at once.");
  if (h.thread_count < 2) return;
  const std::string threads =
      std::to_string(h.thread_count) + " host threads (in " +
      (h.process_count == 1 ? std::string("one process") : std::to_string(h.process_count) + " processes") +
      ") launched GPU work in " + window + ": ";
  if (h.concurrent_ns == 0)
    sec.lines.push_back(threads + "no two of them were inside launching calls at the same time (" +
                        format_duration(h.launching_ns) + " of launching in all).");
  else
    sec.lines.push_back(threads + "2 or more were inside launching calls at once for " +
                        format_duration(h.concurrent_ns) + " of the " + format_duration(h.launching_ns) +
                        " any of them spent launching (" +
                        percent(safe_ratio(double(h.concurrent_ns), double(h.launching_ns))) + ").");
}

void add_gpus_table(Section& sec, const Concurrency& c, Listing listing) {
  sec.lines.push_back("Over the whole trace, at least one GPU busy: " + format_duration(c.any_busy_ns) +
                      "; two or more: " + format_duration(c.overlap_ns) + " (" + percent(c.overlap_share) + ").");
  sec.lines.push_back("Sum of per-GPU busy time: " + format_duration(c.sum_busy_ns) + "; effective parallelism " +
                      fixed(c.effective_parallelism, 2) + " (1.00 = serial, " + std::to_string(c.gpu_count) +
                      ".00 = all GPUs always together).");
  sec.lines.push_back("Ideal: " + format_duration(c.ideal_ns) + " (the busiest GPU alone, if all work overlapped).");
  std::map<int, TimeNs> at_level;
  for (const ConcurrencyStep& s : c.steps) at_level[s.busy_gpus] += s.end_ns - s.start_ns;
  const TimeNs active_ns = c.steps.empty() ? 0 : c.steps.back().end_ns - c.steps.front().start_ns;
  Table t{{"GPUs busy", "time", "share of " + format_duration(active_ns) + ", first to last GPU work"},
          {true, true, true},
          {},
          {}};
  // By level, fewest GPUs first. The JSON report has only the step count, not this table: the note says so.
  const std::size_t shown = listed_rows(at_level.size(), listing);
  for (const auto& [level, ns] : at_level) {
    if (t.rows.size() == shown) break;
    t.rows.push_back(
        {std::to_string(level), format_duration(ns), percent(safe_ratio(double(ns), double(active_ns)), 1)});
  }
  t.note = left_out_line(at_level.size(), shown, "level", "levels", "gtv-cli analyze --all lists them");
  sec.tables.push_back(std::move(t));
}

void streams_json(JsonWriter& w, const StreamOverlap& s) {
  w.key("streams").begin_object().field("window_start_ns", s.window_start_ns).field("window_end_ns", s.window_end_ns);
  w.key("gpus").begin_array();
  for (const GpuStreamOverlap& g : s.gpus) {
    w.begin_object().field("device", g.device).field("stream_count", U(g.stream_count));
    w.field("busiest_stream", g.busiest_stream).field("busy_ns", g.busy_ns);
    w.field("stream_busy_sum_ns", g.stream_busy_sum_ns).field("multi_stream_ns", g.multi_stream_ns);
    w.field("multi_stream_share", g.multi_stream_share, 4).field("max_busy_streams", std::int64_t{g.max_busy_streams});
    w.field("stream_parallelism", g.stream_parallelism, 4).field("kernel_busy_ns", g.kernel_busy_ns);
    w.field("copy_busy_ns", g.copy_busy_ns).field("copy_compute_overlap_ns", g.copy_compute_overlap_ns);
    w.field("step_count", U(g.step_count)).end_object();
  }
  w.end_array();
  const HostLaunchOverlap& h = s.host;
  w.key("host_launches").begin_object().field("thread_count", U(h.thread_count));
  w.field("process_count", U(h.process_count)).field("launching_ns", h.launching_ns);
  w.field("concurrent_ns", h.concurrent_ns).field("max_threads", std::int64_t{h.max_threads}).end_object();
  w.end_object();
}

}  // namespace

Section concurrency_section(const Report& r, Listing listing) {
  const Concurrency& c = r.concurrency;
  Section sec{"Concurrency", {}, {}};
  if (r.region.from_measurements && r.region_concurrency.gpu_count > 0) {
    const Concurrency& rc = r.region_concurrency;
    sec.lines.push_back("In " + r.region.name + " (" + format_duration(r.region.length_ns()) + ", from " +
                        at(r, r.region.start_ns) + "): " + rc.verdict);
    sec.lines.push_back("Over the whole trace, start-up included: " + c.verdict);
  } else {
    sec.lines.push_back(c.verdict);
  }
  // One GPU: the verdict says it; overlap of GPUs and their parallelism have no meaning.
  if (c.gpu_count >= 2) add_gpus_table(sec, c, listing);
  add_streams_table(sec, r, listing);
  return sec;
}

void concurrency_json(JsonWriter& w, const Report& r) {
  const Concurrency& c = r.concurrency;
  w.key("concurrency").begin_object().field("gpu_count", U(c.gpu_count)).field("any_busy_ns", c.any_busy_ns);
  w.field("overlap_ns", c.overlap_ns).field("sum_busy_ns", c.sum_busy_ns).field("ideal_ns", c.ideal_ns);
  w.field("busiest_device", c.busiest_device).field("effective_parallelism", c.effective_parallelism, 4);
  w.field("overlap_share", c.overlap_share, 4).field("step_count", U(c.steps.size())).field("verdict", c.verdict);
  streams_json(w, c.streams);
  const Concurrency& rc = r.region_concurrency;
  w.key("region").begin_object().field("name", r.region.name).field("from_measurements", r.region.from_measurements);
  w.field("start_ns", r.region.start_ns).field("end_ns", r.region.end_ns);
  w.field("measured_name", r.region.measured_name).field("measured_count", U(r.region.measured.size()));
  w.field("measured_ns", total_length_ns(r.region.measured)).field("gpu_count", U(rc.gpu_count));
  w.field("any_busy_ns", rc.any_busy_ns).field("overlap_ns", rc.overlap_ns).field("sum_busy_ns", rc.sum_busy_ns);
  w.field("effective_parallelism", rc.effective_parallelism, 4).field("overlap_share", rc.overlap_share, 4);
  w.field("verdict", rc.verdict);
  streams_json(w, rc.streams);
  w.end_object();
  w.end_object();
}

}  // namespace gtv::analysis::detail
