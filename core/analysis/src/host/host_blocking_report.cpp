#include <algorithm>

#include "report/report_document.h"

namespace gtv::analysis::detail {
namespace {

// Each kind of stall with its total over all threads, largest first.
Table stalls_table(const HostBlocking& h) {
  Table t{{"stall", "calls", "total"}, {false, true, true}, {}, {}};
  for (const StallTotal& s : h.stalls) {
    t.rows.push_back({std::string(to_string(s.kind)), std::to_string(s.call_count), format_duration(s.total_ns)});
    if (s.kind == BlockingKind::SynchronousLaunch)
      t.note =
          "Synchronous launches are counted only where the kernel ran long enough to tell (see above): their "
          "total is a lower bound.";
  }
  return t;
}

// The longest blocking calls.
Table calls_table(const Report& r, Listing listing) {
  const HostBlocking& h = r.blocking;
  std::vector<const BlockingCall*> calls;
  for (const BlockingCall& c : h.calls) calls.push_back(&c);
  std::stable_sort(calls.begin(), calls.end(),
                   [](const BlockingCall* a, const BlockingCall* b) { return a->duration_ns > b->duration_ns; });
  Table t{{"thread", "call", "kind", "at", "blocked"}, {false, false, false, true, true}, {}, {}};
  const std::size_t shown = listed_count(calls.size(), listing, kMaxTableRows);
  for (std::size_t i = 0; i < shown; ++i)
    t.rows.push_back({std::to_string(calls[i]->tid), calls[i]->name, std::string(to_string(calls[i]->kind)),
                      at(r, calls[i]->start_ns), format_duration(calls[i]->duration_ns)});
  t.note = more_rows_note(calls.size(), shown, "blocking calls");
  return t;
}

}  // namespace

Section blocking_section(const Report& r, Listing listing) {
  const HostBlocking& h = r.blocking;
  // One sentence per kind of wait of each thread and one per thread, longest wait first.
  Section sec{"Host blocking", listed_lines(h.findings, 0, listing, "finding", "findings"), {}};
  if (h.calls.empty()) return sec;
  sec.tables.push_back(stalls_table(h));
  sec.tables.push_back(calls_table(r, listing));
  return sec;
}

void blocking_json(JsonWriter& w, const Report& r) {
  const HostBlocking& h = r.blocking;
  w.key("host_blocking").begin_object().field("total_blocked_ns", h.total_blocked_ns).key("threads").begin_array();
  for (const ThreadBlocking& t : h.threads)
    w.begin_object()
        .field("pid", t.pid)
        .field("tid", t.tid)
        .field("name", t.name)
        .field("calls", U(t.call_count))
        .field("blocked_ns", t.blocked_ns)
        .field("span_ns", t.span_ns)
        .field("blocked_share", t.blocked_share, 4)
        .end_object();
  w.end_array().key("stalls").begin_array();
  for (const StallTotal& s : h.stalls)
    w.begin_object()
        .field("kind", blocking_kind_key(s.kind))
        .field("count", U(s.call_count))
        .field("total_ns", s.total_ns)
        .field("lower_bound", s.kind == BlockingKind::SynchronousLaunch)
        .end_object();
  w.end_array().key("calls").begin_array();
  for (std::size_t i = 0; i < h.calls.size() && i < kMaxJsonRows; ++i) {
    const BlockingCall& c = h.calls[i];
    w.begin_object()
        .field("tid", c.tid)
        .field("name", c.name)
        .field("kind", to_string(c.kind))
        .field("kind_key", blocking_kind_key(c.kind))
        .field("start_ns", c.start_ns)
        .field("duration_ns", c.duration_ns)
        .field("device", c.device)
        .end_object();
  }
  w.end_array();
  json_strings(w, "findings", h.findings);
  w.end_object();
}

}  // namespace gtv::analysis::detail
