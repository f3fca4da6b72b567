#include "report/report_document.h"

namespace gtv::analysis::detail {

Section idle_causes_section(const Report& r, Listing listing) {
  const IdleCauses& idle = r.idle;
  // One line per GPU (or one line saying there is nothing to explain), in the order of idle.gpus.
  Section sec{"Why the GPUs were idle", listed_lines(idle.lines, 0, listing, "GPU", "GPUs"), {}};
  if (idle.totals.empty()) return sec;
  Table t{{"GPU", "cause", "detail", "total", "share of region", "pieces", "saving when removed"},
          {false, false, false, true, true, true, true},
          {},
          {}};
  const double region_ns = static_cast<double>(idle.region.length_ns());
  const std::size_t shown = listed_count(idle.totals.size(), listing, kMaxTableRows);
  for (std::size_t i = 0; i < shown; ++i) {
    const IdleCauseTotal& c = idle.totals[i];
    t.rows.push_back({std::to_string(c.device), std::string(to_string(c.cause)), c.detail, format_duration(c.total_ns),
                      percent(safe_ratio(double(c.total_ns), region_ns), 1), std::to_string(c.intervals),
                      c.saving_ns < 0 ? "-" : format_duration(c.saving_ns)});
  }
  t.note = more_rows_note(idle.totals.size(), shown, "causes");
  sec.tables.push_back(std::move(t));
  return sec;
}

void idle_causes_json(JsonWriter& w, const Report& r) {
  const IdleCauses& idle = r.idle;
  w.key("idle_causes").begin_array();
  for (const IdleCauseTotal& c : idle.totals)
    w.begin_object()
        .field("device", c.device)
        .field("cause", idle_cause_key(c.cause))
        .field("detail", c.detail)
        .field("total_ns", c.total_ns)
        .field("intervals", U(c.intervals))
        .field("saving_ns", c.saving_ns)
        .end_object();
  w.end_array();
  w.key("idle")
      .begin_object()
      .field("region_start_ns", idle.region.start_ns)
      .field("region_end_ns", idle.region.end_ns)
      .field("region", idle.region.name)
      .key("gpus")
      .begin_array();
  for (const GpuIdle& g : idle.gpus)
    w.begin_object().field("device", g.device).field("busy_ns", g.busy_ns).field("idle_ns", g.idle_ns).end_object();
  w.end_array().key("intervals").begin_array();
  for (std::size_t i = 0; i < idle.intervals.size() && i < kMaxJsonRows; ++i) {
    const IdleInterval& v = idle.intervals[i];
    w.begin_object()
        .field("device", v.device)
        .field("start_ns", v.start_ns)
        .field("end_ns", v.end_ns)
        .field("cause", idle_cause_key(v.cause))
        .field("detail", v.detail)
        .end_object();
  }
  w.end_array().field("interval_count", U(idle.intervals.size()));
  json_strings(w, "lines", idle.lines);
  w.field("headline", idle.headline).end_object();
}

}  // namespace gtv::analysis::detail
