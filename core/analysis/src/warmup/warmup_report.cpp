#include <algorithm>

#include "report/report_document.h"

namespace gtv::analysis::detail {
namespace {

std::string place(const WarmUpFinding& f) {
  return f.on_gpu ? "stream " + std::to_string(f.tid) : std::to_string(f.tid);
}

std::string ratio_text(double ratio) { return ratio > 0 ? fixed(ratio, 2) + "x" : "-"; }

Table findings_table(const Report& r, Listing listing) {
  const WarmUp& w = r.warmup;
  std::vector<const WarmUpFinding*> rows;
  for (const WarmUpFinding& f : w.findings) rows.push_back(&f);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const WarmUpFinding* a, const WarmUpFinding* b) { return a->cost_ns > b->cost_ns; });
  Table t{{"cause", "GPU", "thread", "at", "cost", "calls", "first call"},
          {false, false, false, true, true, true, false},
          {},
          {}};
  const std::size_t shown = listed_count(rows.size(), listing, kMaxTableRows);
  for (std::size_t i = 0; i < shown; ++i) {
    const WarmUpFinding& f = *rows[i];
    t.rows.push_back({std::string(to_string(f.cause)), f.device < 0 ? "unknown" : std::to_string(f.device), place(f),
                      at(r, f.start_ns), format_duration(f.cost_ns), std::to_string(f.count), f.first_call});
  }
  t.note = more_rows_note(rows.size(), shown, "warm-up findings");
  return t;
}

Table iterations_table(const WarmUp& w, Listing listing) {
  Table t{
      {"thread", "series", "GPU", "later", "first GPU", "median GPU", "ratio", "first wall", "median wall", "ratio"},
      {false, false, false, true, true, true, true, true, true, true},
      {},
      {}};
  const std::size_t shown = listed_count(w.iterations.size(), listing, kMaxTableRows);
  for (std::size_t i = 0; i < shown; ++i) {
    const IterationWarmUp& it = w.iterations[i];
    const bool wall = it.sync_ratio > 0;
    t.rows.push_back({std::to_string(it.tid), it.whole_process ? it.series + " (any thread's GPU work)" : it.series,
                      it.device < 0 ? "several" : std::to_string(it.device), std::to_string(it.steady_count),
                      format_duration(it.first_gpu_ns), format_duration(it.steady_gpu_median_ns),
                      ratio_text(it.gpu_ratio), wall ? format_duration(it.first_host_ns) : "-",
                      wall ? format_duration(it.steady_host_median_ns) : "-", ratio_text(it.sync_ratio)});
  }
  t.note = more_rows_note(w.iterations.size(), shown, "loops");
  return t;
}

void finding_json(JsonWriter& w, const WarmUpFinding& f) {
  w.begin_object()
      .field("cause", warmup_cause_key(f.cause))
      .field("device", f.device)
      .field("pid", f.pid)
      .field("tid", f.tid)
      .field("on_gpu", f.on_gpu)
      .field("start_ns", f.start_ns)
      .field("end_ns", f.end_ns)
      .field("cost_ns", f.cost_ns)
      .field("count", U(f.count))
      .field("first_call", f.first_call)
      .key("spans")
      .begin_array();
  for (std::size_t i = 0; i < f.spans.size() && i < kMaxJsonRows; ++i)
    w.begin_array().value(f.spans[i].start_ns).value(f.spans[i].end_ns).end_array();
  w.end_array().end_object();
}

void iteration_json(JsonWriter& w, const IterationWarmUp& it) {
  w.begin_object()
      .field("pid", it.pid)
      .field("tid", it.tid)
      .field("rank", it.rank)
      .field("device", it.device)
      .field("series", it.series)
      .field("whole_process", it.whole_process)
      .field("first_name", it.first_name)
      .field("steady_count", U(it.steady_count))
      .field("synchronized", it.synchronized)
      .field("communication", it.communication)
      .field("first_host_ns", it.first_host_ns)
      .field("steady_host_median_ns", it.steady_host_median_ns)
      .field("first_gpu_ns", it.first_gpu_ns)
      .field("steady_gpu_median_ns", it.steady_gpu_median_ns)
      .field("sync_ratio", it.sync_ratio, 4)
      .field("gpu_ratio", it.gpu_ratio, 4)
      .end_object();
}

void memory_json(JsonWriter& w, const MemoryGrowth& g) {
  w.begin_object()
      .field("device", g.device)
      .field("series", g.series)
      .field("since_start", g.since_start)
      .field("start_bytes", g.start_bytes, 0)
      .field("peak_bytes", g.peak_bytes, 0)
      .field("has_steady", g.has_steady)
      .field("steady_name", g.steady_name)
      .field("steady_start_ns", g.steady_start_ns)
      .field("steady_end_ns", g.steady_end_ns)
      .field("before_growth_bytes", g.before_growth_bytes, 0)
      .field("has_warmup_ranges", g.has_warmup_ranges)
      .field("warmup_growth_bytes", g.warmup_growth_bytes, 0)
      .field("steady_growth_bytes", g.steady_growth_bytes, 0)
      .field("has_gaps", g.has_gaps)
      .field("gap_growth_bytes", g.gap_growth_bytes, 0)
      .end_object();
}

}  // namespace

Section warmup_section(const Report& r, Listing listing) {
  const WarmUp& w = r.warmup;
  // The lines end with one per compared loop; the lines before them (the total, one per cause) are few.
  const std::size_t loop_lines = std::min(w.iterations.size(), w.lines.size());
  Section sec{"Warm-up", listed_lines(w.lines, w.lines.size() - loop_lines, listing, "loop", "loops"), {}};
  if (!w.findings.empty()) sec.tables.push_back(findings_table(r, listing));
  if (!w.iterations.empty()) sec.tables.push_back(iterations_table(w, listing));
  return sec;
}

void warmup_json(JsonWriter& w, const Report& r) {
  const WarmUp& wu = r.warmup;
  w.key("warmup").begin_object().key("findings").begin_array();
  for (std::size_t i = 0; i < wu.findings.size() && i < kMaxJsonRows; ++i) finding_json(w, wu.findings[i]);
  w.end_array().key("causes").begin_array();
  for (const WarmUpCauseTotal& c : wu.causes) {
    w.begin_object()
        .field("cause", warmup_cause_key(c.cause))
        .field("count", U(c.count))
        .field("findings", U(c.finding_count))
        .field("cost_ns", c.cost_ns)
        .key("devices")
        .begin_array();
    for (std::int64_t d : c.devices) w.value(d);
    w.end_array().end_object();
  }
  w.end_array().key("iterations").begin_array();
  for (std::size_t i = 0; i < wu.iterations.size() && i < kMaxJsonRows; ++i) iteration_json(w, wu.iterations[i]);
  w.end_array().key("memory").begin_array();
  for (std::size_t i = 0; i < wu.memory.size() && i < kMaxJsonRows; ++i) memory_json(w, wu.memory[i]);
  w.end_array().field("host_cost_ns", wu.host_cost_ns);
  json_strings(w, "lines", wu.lines);
  w.field("headline", wu.headline).end_object();
}

}  // namespace gtv::analysis::detail
