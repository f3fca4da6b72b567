#include <algorithm>

#include "report/report_document.h"

namespace gtv::analysis::detail {

Section critical_path_section(const Report& r, Listing listing) {
  const CriticalPathAnalysis& c = r.critical;
  if (c.length_ns == 0) return {};
  Section sec{"What bounds " + c.region.name, c.lines, {}};
  Table shares{{"on the critical path", "time", "share"}, {false, true, true}, {}, {}};
  const std::size_t shown = listed_count(c.shares.size(), listing, kMaxTableRows);
  for (std::size_t i = 0; i < shown; ++i)
    shares.rows.push_back({share_phrase(c.shares[i]), format_duration(c.shares[i].total_ns),
                           percent(safe_ratio(double(c.shares[i].total_ns), double(c.length_ns)), 1)});
  shares.note = more_rows_note(c.shares.size(), shown, "parts");
  sec.tables.push_back(std::move(shares));
  if (c.causes.empty()) return sec;
  Table causes{{"cause, removed inside " + c.region.name, "on the path", "GPU work waited for", "saving when removed"},
               {false, true, true, true},
               {},
               {}};
  std::vector<const CauseSaving*> by_saving;
  for (const CauseSaving& s : c.causes) by_saving.push_back(&s);
  std::stable_sort(by_saving.begin(), by_saving.end(),
                   [](const CauseSaving* a, const CauseSaving* b) { return a->saving_ns > b->saving_ns; });
  for (const CauseSaving* s : by_saving)
    causes.rows.push_back({s->cause, format_duration(s->on_path_ns),
                           s->waited_ns > 0 ? format_duration(s->waited_ns) : "-", format_duration(s->saving_ns)});
  causes.note = "Each saving is a replay of the run with that cause taken out inside " + c.region.name +
                " (the unchanged replay reproduces it to " + format_duration(c.replay_error_ns) + ").";
  sec.tables.push_back(std::move(causes));
  return sec;
}

void critical_path_json(JsonWriter& w, const Report& r) {
  const CriticalPathAnalysis& c = r.critical;
  w.key("critical_path")
      .begin_object()
      .field("region", c.region.name)
      .field("region_start_ns", c.region.start_ns)
      .field("region_end_ns", c.region.end_ns)
      .field("length_ns", c.length_ns)
      .field("replay_error_ns", c.replay_error_ns)
      .field("truncated", c.truncated)
      .key("segments")
      .begin_array();
  for (const PathSegment& s : c.segments) {
    w.begin_object().field("start_ns", s.start_ns).field("end_ns", s.end_ns).field("kind", causal::segment_key(s.kind));
    if (s.has_event) w.field("lane", U(s.event.lane)).field("event", U(s.event.index));
    if (s.device >= 0) w.field("device", s.device);
    if (s.cause >= 0) w.field("cause", c.causes[static_cast<std::size_t>(s.cause)].key);
    w.end_object();
  }
  w.end_array().key("shares").begin_array();
  for (const PathShare& s : c.shares)
    w.begin_object()
        .field("kind", causal::segment_key(s.kind))
        .field("where", s.where)
        .field("context", context_key(s.context))
        .field("range", s.range)
        .field("total_ns", s.total_ns)
        .field("segments", U(s.segments))
        .end_object();
  w.end_array().key("own_work_by_range").begin_array();
  for (const RangeWork& range : c.own_work_by_range)
    w.begin_object().field("range", range.range).field("total_ns", range.total_ns).end_object();
  w.end_array().key("causes").begin_array();
  for (const CauseSaving& s : c.causes)
    w.begin_object()
        .field("key", s.key)
        .field("cause", s.cause)
        .field("detail", s.detail)
        .field("on_path_ns", s.on_path_ns)
        .field("waited_ns", s.waited_ns)
        .field("saving_ns", s.saving_ns)
        .field("replayed_ns", s.replayed_ns)
        .end_object();
  w.end_array();
  json_strings(w, "anomalies", c.anomalies);
  json_strings(w, "lines", c.lines);
  w.field("headline", c.headline).end_object();
}

}  // namespace gtv::analysis::detail
