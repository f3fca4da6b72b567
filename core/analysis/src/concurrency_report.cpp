#include <map>

#include "report_document.h"

namespace gtv::analysis::detail {

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
  if (c.gpu_count < 2) return sec;  // one GPU: the verdict says it all; overlap and parallelism have no meaning
  sec.lines.push_back("At least one GPU busy: " + format_duration(c.any_busy_ns) +
                      "; two or more: " + format_duration(c.overlap_ns) + " (" + percent(c.overlap_share) + ").");
  sec.lines.push_back("Sum of per-GPU busy time: " + format_duration(c.sum_busy_ns) + "; effective parallelism " +
                      fixed(c.effective_parallelism, 2) + " (1.00 = serial, " + std::to_string(c.gpu_count) +
                      ".00 = all GPUs always together).");
  sec.lines.push_back("Ideal: " + format_duration(c.ideal_ns) + " (the busiest GPU alone, if all work overlapped).");
  std::map<int, TimeNs> at_level;
  for (const ConcurrencyStep& s : c.steps) at_level[s.busy_gpus] += s.end_ns - s.start_ns;
  Table t{{"GPUs busy", "time", "share of active time"}, {true, true, true}, {}, {}};
  const TimeNs active_ns = c.steps.empty() ? 0 : c.steps.back().end_ns - c.steps.front().start_ns;
  // By level, fewest GPUs first. The JSON report has only the step count, not this table: the note says so.
  const std::size_t shown = listed_rows(at_level.size(), listing);
  for (const auto& [level, ns] : at_level) {
    if (t.rows.size() == shown) break;
    t.rows.push_back(
        {std::to_string(level), format_duration(ns), percent(safe_ratio(double(ns), double(active_ns)), 1)});
  }
  t.note = left_out_line(at_level.size(), shown, "level", "levels", "gtv-cli analyze --all lists them");
  sec.tables.push_back(std::move(t));
  return sec;
}

void concurrency_json(JsonWriter& w, const Report& r) {
  const Concurrency& c = r.concurrency;
  w.key("concurrency").begin_object().field("gpu_count", U(c.gpu_count)).field("any_busy_ns", c.any_busy_ns);
  w.field("overlap_ns", c.overlap_ns).field("sum_busy_ns", c.sum_busy_ns).field("ideal_ns", c.ideal_ns);
  w.field("busiest_device", c.busiest_device).field("effective_parallelism", c.effective_parallelism, 4);
  w.field("overlap_share", c.overlap_share, 4).field("step_count", U(c.steps.size())).field("verdict", c.verdict);
  const Concurrency& rc = r.region_concurrency;
  w.key("region").begin_object().field("name", r.region.name).field("from_measurements", r.region.from_measurements);
  w.field("start_ns", r.region.start_ns).field("end_ns", r.region.end_ns).field("gpu_count", U(rc.gpu_count));
  w.field("any_busy_ns", rc.any_busy_ns).field("overlap_ns", rc.overlap_ns).field("sum_busy_ns", rc.sum_busy_ns);
  w.field("effective_parallelism", rc.effective_parallelism, 4).field("overlap_share", rc.overlap_share, 4);
  w.field("verdict", rc.verdict).end_object();
  w.end_object();
}

}  // namespace gtv::analysis::detail
