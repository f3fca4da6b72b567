#include "oracle_checks.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace gtv::oracle {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;

std::string device_text(std::int64_t device) { return "[device " + std::to_string(device) + "]"; }

// A missing object or array is a failure; the caller then skips what is inside it.
std::optional<array> array_at(Checker& c, element obj, std::string_view key, const std::string& what) {
  array a;
  const bool found = obj.at_key(key).get_array().get(a) == simdjson::SUCCESS;
  c.expect(found, "analyze --json has no array " + what);
  return found ? std::optional<array>(a) : std::nullopt;
}

std::optional<element> object_at(Checker& c, element obj, std::string_view key, const std::string& what) {
  element e;
  const bool found = obj.at_key(key).get(e) == simdjson::SUCCESS && e.is_object();
  c.expect(found, "analyze --json has no object " + what);
  return found ? std::optional<element>(e) : std::nullopt;
}

std::string string_of(element obj, std::string_view key) {
  std::string_view s;
  return obj.at_key(key).get_string().get(s) == simdjson::SUCCESS ? std::string(s) : std::string();
}

// The entry of a list of per-GPU objects that has the device; nullopt when none has.
std::optional<element> entry_for(Checker& c, array list, std::int64_t device, const std::string& what) {
  for (element e : list)
    if (c.int_of(what + ".device", e, "device") == device) return e;
  return std::nullopt;
}

void same_concurrency(Checker& c, const std::string& where, element json, const ConcurrencyNumbers& n) {
  c.same_count(where + ".gpu_count", json, "gpu_count", n.gpu_count);
  c.same_ns(where + ".any_busy_ns", json, "any_busy_ns", n.any_busy_ns);
  c.same_ns(where + ".overlap_ns", json, "overlap_ns", n.overlap_ns);
  c.same_ns(where + ".sum_busy_ns", json, "sum_busy_ns", n.sum_busy_ns);
  c.same_ratio(where + ".effective_parallelism", json, "effective_parallelism", n.effective_parallelism);
  c.same_ratio(where + ".overlap_share", json, "overlap_share", n.overlap_share);
}

}  // namespace

void check_busy(Checker& c, const Oracle& o, element report) {
  const Numbers& n = o.numbers();
  const std::optional<element> busy_json = object_at(c, report, "busy", "busy");
  if (!busy_json) return;
  const element busy = *busy_json;
  c.same_ns("busy.window_start_ns", busy, "window_start_ns", n.trace_start_ns);
  c.same_ns("busy.window_end_ns", busy, "window_end_ns", n.trace_end_ns);
  const std::optional<array> gpus_json = array_at(c, busy, "gpus", "busy.gpus");
  if (!gpus_json) return;
  const array gpus = *gpus_json;
  c.expect(gpus.size() == n.gpus.size(),
           "busy.gpus has " + std::to_string(gpus.size()) + " GPUs, the oracle finds " + std::to_string(n.gpus.size()));
  for (const GpuNumbers& g : n.gpus) {
    const std::string what = "busy.gpus" + device_text(g.device);
    const std::optional<element> json = entry_for(c, gpus, g.device, what);
    c.expect(json.has_value(), what + " is missing");
    if (!json) continue;
    c.same_ns(what + ".busy_ns", *json, "busy_ns", g.busy_ns);
    c.same_ns(what + ".idle_ns", *json, "idle_ns", n.trace_end_ns - n.trace_start_ns - g.busy_ns);
    c.same_ns(what + ".kernel_ns", *json, "kernel_ns", g.kernel_ns);
    const TimeNs window_ns = n.trace_end_ns - n.trace_start_ns;
    c.same_ratio(what + ".utilization", *json, "utilization",
                 window_ns == 0 ? 0.0 : double(g.busy_ns) / double(window_ns));
    c.same_count(what + ".kernel_count", *json, "kernel_count", g.kernel_count);
    c.same_count(what + ".activity_count", *json, "activity_count", g.activity_count);
  }
  const std::optional<array> streams_json = array_at(c, busy, "streams", "busy.streams");
  if (!streams_json) return;
  const array streams = *streams_json;
  c.expect(streams.size() == n.streams.size(), "busy.streams has " + std::to_string(streams.size()) +
                                                   " streams, the oracle finds " + std::to_string(n.streams.size()));
  for (const StreamNumbers& s : n.streams) {
    const std::string what =
        "busy.streams[device " + std::to_string(s.device) + " stream " + std::to_string(s.stream) + "]";
    bool found = false;
    for (element e : streams) {
      if (c.int_of(what, e, "device") != s.device || c.int_of(what, e, "stream") != s.stream) continue;
      found = true;
      c.same_ns(what + ".busy_ns", e, "busy_ns", s.busy_ns);
      c.same_count(what + ".activity_count", e, "activity_count", s.activity_count);
    }
    c.expect(found, what + " is missing");
  }
}

void check_summary(Checker& c, const Trace& trace, const Oracle& o, element report) {
  const Numbers& n = o.numbers();
  const std::optional<element> summary = object_at(c, report, "summary", "summary");
  if (!summary) return;
  c.same_ns("summary.start_ns", *summary, "start_ns", n.file_start_ns);
  c.same_ns("summary.end_ns", *summary, "end_ns", n.file_end_ns);
  c.same_ns("summary.duration_ns", *summary, "duration_ns", n.file_end_ns - n.file_start_ns);
  c.same_ns("summary.activity_start_ns", *summary, "activity_start_ns", n.trace_start_ns);
  c.same_ns("summary.activity_end_ns", *summary, "activity_end_ns", n.trace_end_ns);
  std::size_t events = 0;
  for (const Lane& lane : trace.lanes()) events += lane.events.size();
  c.same_count("summary.event_count", *summary, "event_count", events);
  c.same_count("summary.flow_count", *summary, "flow_count", trace.flows().size());
  c.same_count("summary.measurement_count", *summary, "measurement_count", trace.measurements().size());
  const std::optional<array> gpus = array_at(c, *summary, "gpus", "summary.gpus");
  if (!gpus) return;
  for (const GpuNumbers& g : n.gpus) {
    const std::string what = "summary.gpus" + device_text(g.device);
    std::optional<element> json;
    for (element e : *gpus)
      if (c.int_of(what + ".index", e, "index") == g.device) json = e;
    c.expect(json.has_value(), what + " is missing");
    if (!json) continue;
    c.same_ns(what + ".busy_ns", *json, "busy_ns", g.busy_ns);
    c.same_ns(what + ".kernel_ns", *json, "kernel_ns", g.kernel_ns);
    c.same_count(what + ".kernel_count", *json, "kernel_count", g.kernel_count);
  }
}

void check_concurrency(Checker& c, const Oracle& o, element report) {
  const Numbers& n = o.numbers();
  const std::optional<element> whole_json = object_at(c, report, "concurrency", "concurrency");
  if (!whole_json) return;
  const element whole = *whole_json;
  same_concurrency(c, "concurrency", whole, n.whole);
  c.same_ns("concurrency.ideal_ns", whole, "ideal_ns", n.whole.ideal_ns);
  // The busiest GPU is one whose busy time is the ideal (ties: any of them).
  const std::int64_t busiest = c.int_of("concurrency.busiest_device", whole, "busiest_device");
  const auto is_busiest = [&](const GpuNumbers& g) { return g.device == busiest && g.busy_ns == n.whole.ideal_ns; };
  c.expect(n.whole.gpu_count == 0 ? busiest == -1 : std::any_of(n.gpus.begin(), n.gpus.end(), is_busiest),
           "concurrency.busiest_device is " + std::to_string(busiest) + ", whose busy time is not the largest (" +
               std::to_string(n.whole.ideal_ns) + " ns)");
  const std::optional<element> region_json = object_at(c, whole, "region", "concurrency.region");
  if (!region_json) return;
  const element region = *region_json;
  c.same_flag("concurrency.region.from_measurements", region, "from_measurements", n.region_from_measurements);
  c.same_ns("concurrency.region.start_ns", region, "start_ns", n.region_start_ns);
  c.same_ns("concurrency.region.end_ns", region, "end_ns", n.region_end_ns);
  same_concurrency(c, "concurrency.region", region, n.region);
}

void check_timing(Checker& c, const Oracle& o, element report) {
  const Numbers& n = o.numbers();
  const std::optional<element> timing_json = object_at(c, report, "timing", "timing");
  if (!timing_json) return;
  const element timing = *timing_json;
  const std::optional<array> list_json = array_at(c, timing, "measurements", "timing.measurements");
  if (!list_json) return;
  const array list = *list_json;
  c.expect(list.size() == n.measurements.size(), "timing.measurements has " + std::to_string(list.size()) +
                                                     " entries, the trace " + std::to_string(n.measurements.size()));
  std::size_t i = 0;
  for (element json : list) {
    if (i == n.measurements.size()) break;
    const MeasurementNumbers& m = n.measurements[i];
    const std::string what = "timing.measurements[" + std::to_string(i++) + " \"" + m.name + "\"]";
    c.expect(string_of(json, "name") == m.name, what + ": analyze names it \"" + string_of(json, "name") + "\"");
    c.same_ns(what + ".reported_ns", json, "reported_ns", m.reported_ns);
    c.same_ns(what + ".host_start_ns", json, "host_start_ns", m.host_start_ns);
    c.same_ns(what + ".host_end_ns", json, "host_end_ns", m.host_end_ns);
    c.same_flag(what + ".by_flows", json, "by_flows", m.by_flows);
    c.same_count(what + ".gpu_activity_count", json, "gpu_activity_count", m.gpu_activity_count);
    c.same_ns(what + ".gpu_busy_ns", json, "gpu_busy_ns", m.gpu_busy_ns);
    c.same_ns(what + ".truth_ns", json, "truth_ns", m.truth_ns);
    c.same_ns(what + ".error_ns", json, "error_ns", m.error_ns);
    c.same_ratio(what + ".relative_error", json, "relative_error", m.relative_error);
  }
  // Per method: how many measurements used it and their mean signed and absolute relative error.
  const std::optional<array> methods = array_at(c, timing, "methods", "timing.methods");
  if (!methods) return;
  std::size_t methods_found = 0;
  for (std::size_t k = 0; k < n.measurements.size(); ++k) {
    const std::string& method = n.measurements[k].method;
    bool first = true;
    for (std::size_t j = 0; j < k; ++j) first = first && n.measurements[j].method != method;
    if (!first) continue;
    ++methods_found;
    std::size_t count = 0;
    double signed_sum = 0;
    double abs_sum = 0;
    for (const MeasurementNumbers& m : n.measurements) {
      if (m.method != method) continue;
      ++count;
      signed_sum += m.relative_error;
      abs_sum += std::fabs(m.relative_error);
    }
    const std::string what = "timing.methods[" + method + "]";
    bool found = false;
    for (element json : *methods) {
      if (string_of(json, "method") != method) continue;
      found = true;
      c.same_count(what + ".count", json, "count", count);
      c.same_ratio(what + ".mean_relative_error", json, "mean_relative_error", signed_sum / double(count));
      c.same_ratio(what + ".mean_abs_relative_error", json, "mean_abs_relative_error", abs_sum / double(count));
    }
    c.expect(found, what + " is missing");
  }
  c.expect(methods->size() == methods_found, "timing.methods has " + std::to_string(methods->size()) +
                                                 " methods, the measurements use " + std::to_string(methods_found));
}

void check_idle(Checker& c, const Oracle& o, element report) {
  const Numbers& n = o.numbers();
  const std::optional<element> idle_json = object_at(c, report, "idle", "idle");
  if (!idle_json) return;
  const element idle = *idle_json;
  c.same_ns("idle.region_start_ns", idle, "region_start_ns", n.region_start_ns);
  c.same_ns("idle.region_end_ns", idle, "region_end_ns", n.region_end_ns);
  const std::optional<array> gpus_json = array_at(c, idle, "gpus", "idle.gpus");
  if (!gpus_json) return;
  const array gpus = *gpus_json;
  const std::optional<array> causes_json = array_at(c, report, "idle_causes", "idle_causes");
  if (!causes_json) return;
  const array causes = *causes_json;
  const std::optional<array> intervals_json = array_at(c, idle, "intervals", "idle.intervals");
  if (!intervals_json) return;
  const array intervals = *intervals_json;
  const bool all_intervals = std::int64_t(intervals.size()) == c.int_of("idle.interval_count", idle, "interval_count");
  std::size_t with_work = 0;
  for (const GpuNumbers& g : n.gpus) {
    if (g.busy_ns == 0) continue;  // a GPU whose work has no length has no idle time to explain
    ++with_work;
    const std::string what = "idle.gpus" + device_text(g.device);
    const std::optional<element> json = entry_for(c, gpus, g.device, what);
    c.expect(json.has_value(), what + " is missing");
    if (!json) continue;
    const TimeNs idle_ns = n.region_ns() - g.region_busy_ns;
    c.same_ns(what + ".busy_ns", *json, "busy_ns", g.region_busy_ns);
    c.same_ns(what + ".idle_ns", *json, "idle_ns", idle_ns);
    if (n.region_ns() == 0) continue;
    TimeNs causes_ns = 0;
    for (element cause : causes)
      if (c.int_of("idle_causes[].device", cause, "device") == g.device)
        causes_ns += c.int_of("idle_causes[].total_ns", cause, "total_ns");
    c.same_value("sum of idle_causes" + device_text(g.device) + ".total_ns", double(causes_ns), double(idle_ns),
                 relative_tolerance(double(causes_ns), double(idle_ns)));
    for (element cause : causes) {
      if (c.int_of("idle_causes[].device", cause, "device") != g.device) continue;
      const TimeNs saving_ns = c.int_of("idle_causes[].saving_ns", cause, "saving_ns");
      c.expect(saving_ns == -1 || (saving_ns >= 0 && saving_ns <= n.region_ns()),
               "idle_causes" + device_text(g.device) + "[" + string_of(cause, "cause") + "].saving_ns is " +
                   std::to_string(saving_ns) + ": neither -1 (no removal) nor inside 0.." +
                   std::to_string(n.region_ns()));
      // A cause is blamed for idle time only up to what removing it gives back.
      const TimeNs blamed_ns = c.int_of("idle_causes[].total_ns", cause, "total_ns");
      c.expect(saving_ns == -1 || blamed_ns <= saving_ns,
               "idle_causes" + device_text(g.device) + "[" + string_of(cause, "cause") + "] blames " +
                   std::to_string(blamed_ns) + " ns, more than removing it gives back (" + std::to_string(saving_ns) +
                   " ns)");
    }
    // The JSON lists the first 1000 pieces: each listed one is checked, their sum only when all are listed.
    TimeNs pieces_ns = 0;
    TimeNs last_end_ns = n.region_start_ns;
    for (element iv : intervals) {
      if (c.int_of("idle.intervals[].device", iv, "device") != g.device) continue;
      const TimeNs start_ns = c.int_of("idle.intervals[].start_ns", iv, "start_ns");
      const TimeNs end_ns = c.int_of("idle.intervals[].end_ns", iv, "end_ns");
      const std::string at = "idle.intervals" + device_text(g.device) + " [" + std::to_string(start_ns) + ", " +
                             std::to_string(end_ns) + ")";
      c.expect(start_ns >= last_end_ns && end_ns <= n.region_end_ns && start_ns < end_ns,
               at + " is not in order inside the region, after the previous piece (ending " +
                   std::to_string(last_end_ns) + ")");
      const TimeNs busy_inside_ns = o.busy_within(g.device, start_ns, end_ns);
      c.expect(busy_inside_ns == 0, at + " holds " + std::to_string(busy_inside_ns) + " ns of the GPU's work");
      pieces_ns += end_ns - start_ns;
      last_end_ns = end_ns;
    }
    if (all_intervals)
      c.same_value("sum of idle.intervals" + device_text(g.device), double(pieces_ns), double(idle_ns),
                   relative_tolerance(double(pieces_ns), double(idle_ns)));
  }
  c.expect(gpus.size() == with_work, "idle.gpus has " + std::to_string(gpus.size()) + " GPUs, the oracle finds " +
                                         std::to_string(with_work) + " with work");
}

namespace {

// A host lane's record_function ranges: its annotations but the profiler's steps.
std::vector<const Event*> user_ranges(const Trace& trace, const Lane& lane) {
  std::vector<const Event*> out;
  for (const Event& e : lane.events)
    if (e.kind == EventKind::Annotation && !trace.name(e).starts_with("ProfilerStep#")) out.push_back(&e);
  return out;
}

// The host's own work between calls on the critical path, by the innermost range over it, computed apart from the
// analysis: every piece of an own-work segment between two range boundaries goes to the range with the latest
// start among those over it (the shorter on a tie), on the segment's own thread, or for a thread with no ranges on
// its process's thread with the most ("" for time outside any range).
std::map<std::string, TimeNs> own_work_by_range(const Trace& trace,
                                                const std::vector<std::tuple<LaneIndex, TimeNs, TimeNs>>& own) {
  std::map<std::string, TimeNs> out;
  std::map<LaneIndex, std::vector<const Event*>> ranges_of;  // the ranges each segment's thread counts in
  for (const auto& [lane, start_ns, end_ns] : own) {
    auto [it, fresh] = ranges_of.try_emplace(lane);
    if (fresh) {
      it->second = user_ranges(trace, trace.lane(lane));
      if (it->second.empty()) {
        std::vector<const Event*> most;
        for (const Lane& other : trace.lanes()) {
          if (other.is_gpu() || other.key.pid != trace.lane(lane).key.pid) continue;
          std::vector<const Event*> r = user_ranges(trace, other);
          if (r.size() > most.size()) most = std::move(r);
        }
        it->second = std::move(most);
      }
    }
    const std::vector<const Event*>& ranges = it->second;
    std::vector<TimeNs> cuts = {start_ns, end_ns};
    for (const Event* r : ranges) {
      if (r->start_ns > start_ns && r->start_ns < end_ns) cuts.push_back(r->start_ns);
      if (r->end_ns() > start_ns && r->end_ns() < end_ns) cuts.push_back(r->end_ns());
    }
    std::sort(cuts.begin(), cuts.end());
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      if (cuts[i + 1] == cuts[i]) continue;
      const Event* inner = nullptr;
      for (const Event* r : ranges)
        if (r->start_ns <= cuts[i] && r->end_ns() >= cuts[i + 1] &&
            (inner == nullptr || r->start_ns > inner->start_ns ||
             (r->start_ns == inner->start_ns && r->duration_ns < inner->duration_ns)))
          inner = r;
      out[inner == nullptr ? std::string() : std::string(trace.name(*inner))] += cuts[i + 1] - cuts[i];
    }
  }
  return out;
}

}  // namespace

void check_critical_path(Checker& c, const Trace& trace, const Oracle& o, element report) {
  const Numbers& n = o.numbers();
  const std::optional<element> cp_json = object_at(c, report, "critical_path", "critical_path");
  if (!cp_json) return;
  const element cp = *cp_json;
  c.same_ns("critical_path.region_start_ns", cp, "region_start_ns", n.region_start_ns);
  c.same_ns("critical_path.region_end_ns", cp, "region_end_ns", n.region_end_ns);
  c.same_flag("critical_path.truncated", cp, "truncated", false);
  const std::optional<array> segments_json = array_at(c, cp, "segments", "critical_path.segments");
  if (!segments_json) return;
  const array segments = *segments_json;
  if (segments.size() == 0) {
    // The path is made of CUDA calls and GPU work: without any in the trace (or without a region) there is none.
    bool has_path_work = false;
    for (const Lane& lane : trace.lanes())
      for (const Event& e : lane.events)
        has_path_work =
            has_path_work ||
            (lane.is_gpu() ? e.kind == EventKind::Kernel || e.kind == EventKind::Memcpy || e.kind == EventKind::Memset
                           : e.kind == EventKind::Runtime || e.kind == EventKind::Driver || e.kind == EventKind::Sync);
    c.expect(n.region_ns() == 0 || !has_path_work,
             "critical_path has no segments, though the trace has CUDA calls or GPU work in a region of " +
                 std::to_string(n.region_ns()) + " ns");
    c.same_ns("critical_path.length_ns (no path)", cp, "length_ns", 0);
    return;
  }
  c.same_ns("critical_path.length_ns", cp, "length_ns", n.region_ns());
  const TimeNs length_ns = c.int_of("critical_path.length_ns", cp, "length_ns");
  TimeNs sum_ns = 0;
  TimeNs first_ns = 0;
  TimeNs cursor_ns = 0;
  std::size_t i = 0;
  std::vector<std::tuple<LaneIndex, TimeNs, TimeNs>> own;  // the own work between calls: lane, start, end
  for (element s : segments) {
    const TimeNs start_ns = c.int_of("critical_path.segments[].start_ns", s, "start_ns");
    const TimeNs end_ns = c.int_of("critical_path.segments[].end_ns", s, "end_ns");
    const std::string what = "critical_path.segments[" + std::to_string(i) + "] [" + std::to_string(start_ns) + ", " +
                             std::to_string(end_ns) + ")";
    if (i++ == 0) first_ns = cursor_ns = start_ns;
    c.expect(start_ns == cursor_ns, what + " does not start where the previous segment ended (" +
                                        std::to_string(cursor_ns) + "): a gap or an overlap");
    c.expect(end_ns > start_ns, what + " has no length");
    sum_ns += end_ns - start_ns;
    cursor_ns = end_ns;
    const std::string kind = string_of(s, "kind");
    if (kind == "host_own_work" && c.has(s, "cause") && c.has(s, "lane")) {
      const std::int64_t lane = c.int_of(what + ".lane", s, "lane");
      if (lane >= 0 && std::size_t(lane) < trace.lanes().size() && !trace.lane(LaneIndex(lane)).is_gpu())
        own.emplace_back(LaneIndex(lane), start_ns, end_ns);
    }
    const bool gpu_kind = kind == "kernel" || kind == "copy" || kind == "memset" || kind == "communication";
    if (!gpu_kind || !c.has(s, "lane")) continue;
    const std::int64_t lane = c.int_of(what + ".lane", s, "lane");
    const std::int64_t index = c.int_of(what + ".event", s, "event");
    const bool exists = lane >= 0 && std::size_t(lane) < trace.lanes().size() && index >= 0 &&
                        std::size_t(index) < trace.lane(LaneIndex(lane)).events.size();
    c.expect(exists, what + " (" + kind + ") names no event of the trace");
    if (!exists) continue;
    const Lane& l = trace.lane(LaneIndex(lane));
    const Event& e = l.events[std::size_t(index)];
    if (kind == "communication" && !l.is_gpu()) {
      // A collective on host threads (Gloo): its transfer after the last rank's arrival is the wait before the
      // call that takes the result, so it names that call and ends no later than it does.
      c.expect(
          e.kind == EventKind::Runtime || e.kind == EventKind::Driver,
          what + " (communication on a host lane) names a " + std::string(to_string(e.kind)) + ", not a CUDA call");
      c.expect(end_ns <= e.end_ns(), what + " (communication on a host lane) ends after its call [" +
                                         std::to_string(e.start_ns) + ", " + std::to_string(e.end_ns()) + ")");
      continue;
    }
    const EventKind want = kind == "copy"     ? EventKind::Memcpy
                           : kind == "memset" ? EventKind::Memset
                                              : EventKind::Kernel;
    c.expect(l.is_gpu() && e.kind == want, what + " (" + kind + ") names a " + std::string(to_string(e.kind)) + " on " +
                                               (l.is_gpu() ? "a GPU lane" : "a host lane"));
    c.expect(start_ns >= e.start_ns && end_ns <= e.end_ns(), what + " (" + kind + ") lies outside its event [" +
                                                                 std::to_string(e.start_ns) + ", " +
                                                                 std::to_string(e.end_ns()) + ")");
    if (c.has(s, "device")) c.expect(c.int_of(what, s, "device") == l.device(), what + ": device is not its lane's");
  }
  c.same_value("sum of critical_path.segments", double(sum_ns), double(length_ns), 0, "critical_path.length_ns");
  // The shares table ("GPU 0 computing 99%") is the same time cut by kind and place.
  if (const std::optional<array> shares = array_at(c, cp, "shares", "critical_path.shares")) {
    TimeNs shares_ns = 0;
    for (element share : *shares) shares_ns += c.int_of("critical_path.shares[].total_ns", share, "total_ns");
    c.same_value("sum of critical_path.shares", double(shares_ns), double(length_ns), 0, "critical_path.length_ns");
  }
  // "The host's own work between calls on the critical path, by the innermost range it ran in": listed only where
  // some of it ran inside a range.
  if (const std::optional<array> by_range = array_at(c, cp, "own_work_by_range", "critical_path.own_work_by_range")) {
    std::map<std::string, TimeNs> want = own_work_by_range(trace, own);
    const bool any_inside = std::any_of(want.begin(), want.end(), [](const auto& kv) { return !kv.first.empty(); });
    if (!any_inside) want.clear();
    std::map<std::string, TimeNs> got;
    for (element r : *by_range)
      got[string_of(r, "range")] += c.int_of("critical_path.own_work_by_range[].total_ns", r, "total_ns");
    for (const auto& [name, ns] : want) {
      const auto it = got.find(name);
      c.same_value("critical_path.own_work_by_range['" + name + "']", it == got.end() ? -1.0 : double(it->second),
                   double(ns), 0, "the oracle's sum over the path's own-work segments");
    }
    for (const auto& [name, ns] : got)
      c.expect(want.count(name) != 0, "critical_path.own_work_by_range has '" + name + "' (" + std::to_string(ns) +
                                          " ns), which the oracle does not find on the path");
  }
  // "Without X the region would be N shorter": no removal saves more than the whole region, or costs time.
  if (const std::optional<array> causes = array_at(c, cp, "causes", "critical_path.causes")) {
    for (element cause : *causes) {
      const std::string what =
          "critical_path.causes[" + string_of(cause, "key") + " " + string_of(cause, "detail") + "]";
      const TimeNs saving_ns = c.int_of(what + ".saving_ns", cause, "saving_ns");
      const TimeNs on_path_ns = c.int_of(what + ".on_path_ns", cause, "on_path_ns");
      c.expect(saving_ns >= 0 && saving_ns <= n.region_ns(),
               what + ".saving_ns is " + std::to_string(saving_ns) + ", outside 0.." + std::to_string(n.region_ns()));
      c.expect(on_path_ns >= 0 && on_path_ns <= n.region_ns(),
               what + ".on_path_ns is " + std::to_string(on_path_ns) + ", outside 0.." + std::to_string(n.region_ns()));
    }
  }
  c.same_value("critical_path.segments end - start", double(cursor_ns - first_ns), double(n.region_ns()),
               relative_tolerance(double(cursor_ns - first_ns), double(n.region_ns())));
}

void check_communication(Checker& c, const Oracle& o, element report) {
  const Numbers& n = o.numbers();
  const std::optional<element> comm_json = object_at(c, report, "communication", "communication");
  if (!comm_json) return;
  const element comm = *comm_json;
  const std::optional<array> devices_json = array_at(c, comm, "devices", "communication.devices");
  if (!devices_json) return;
  const array devices = *devices_json;
  c.expect(devices.size() == n.communication.size(), "communication.devices has " + std::to_string(devices.size()) +
                                                         " GPUs, the oracle finds " +
                                                         std::to_string(n.communication.size()));
  for (const CommunicationNumbers& d : n.communication) {
    const std::string what = "communication.devices" + device_text(d.device);
    const std::optional<element> json = entry_for(c, devices, d.device, what);
    c.expect(json.has_value(), what + " is missing");
    if (!json) continue;
    c.same_count(what + ".communication_kernels", *json, "communication_kernels", d.communication_kernels);
    c.same_ns(what + ".communication_ns", *json, "communication_ns", d.communication_ns);
    c.same_ns(what + ".computation_ns", *json, "computation_ns", d.computation_ns);
    c.same_ns(what + ".memory_ns", *json, "memory_ns", d.memory_ns);
    c.same_ns(what + ".overlap_ns", *json, "overlap_ns", d.overlap_ns);
    c.same_ns(what + ".exposed_ns", *json, "exposed_ns", d.exposed_ns);
    c.same_ratio(what + ".overlap_ratio", *json, "overlap_ratio", d.overlap_ratio);
  }
}

}  // namespace gtv::oracle
