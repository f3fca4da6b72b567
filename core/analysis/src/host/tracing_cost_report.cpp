#include "report/report_document.h"

namespace gtv::analysis::detail {

Section tracing_cost_section(const Report& r, Listing) { return Section{"Tracing cost", {r.tracing.line}, {}}; }

void tracing_cost_json(JsonWriter& w, const Report& r) {
  const TracingCost& c = r.tracing;
  w.key("tracing_cost").begin_object().field("known", c.known).field("overhead_records", U(c.overhead_records));
  w.field("buffer_flushes", U(c.buffer_flushes)).field("tracer_threads", U(c.tracer_threads));
  w.field("on_traced_threads_ns", c.on_traced_threads_ns).field("on_tracer_threads_ns", c.on_tracer_threads_ns);
  w.field("inside_region_ns", c.inside_region_ns).field("on_unnamed_threads_ns", c.on_unnamed_threads_ns);
  w.key("dropped_records");
  if (c.dropped_known)
    w.value(c.dropped_records);
  else
    w.null();
  w.field("line", c.line).end_object();
}

}  // namespace gtv::analysis::detail
