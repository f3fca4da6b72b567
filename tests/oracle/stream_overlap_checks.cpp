// Overlap inside each GPU (its streams, copies beside kernels) and of the host threads launching work, wherever the
// report has it, on the window the report names for it.
#include <optional>

#include "oracle_checks.h"

namespace gtv::oracle {

using simdjson::dom::array;
using simdjson::dom::element;

namespace {

std::string device_text(std::int64_t device) { return "[device " + std::to_string(device) + "]"; }

struct Window {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
};

// The window an object states about itself: window_start_ns/window_end_ns, region_start_ns/region_end_ns or
// start_ns/end_ns, else the window of the object around it; the report itself is about the whole trace.
Window window_of(element obj, Window outer) {
  for (const auto& [from, to] : {std::pair{"window_start_ns", "window_end_ns"},
                                 std::pair{"region_start_ns", "region_end_ns"}, std::pair{"start_ns", "end_ns"}}) {
    std::int64_t a = 0;
    std::int64_t b = 0;
    if (obj.at_key(from).get_int64().get(a) == simdjson::SUCCESS &&
        obj.at_key(to).get_int64().get(b) == simdjson::SUCCESS)
      return {a, b};
  }
  return outer;
}

// Per-GPU stream overlap keys (analyze's names) and the oracle's value for each.
void same_stream_overlap(Checker& c, const std::string& what, element json, const StreamOverlapNumbers& s) {
  const std::pair<const char*, TimeNs> times[] = {
      {"multi_stream_ns", s.multi_stream_ns},
      {"stream_overlap_ns", s.multi_stream_ns},
      {"stream_busy_sum_ns", s.stream_busy_sum_ns},
      {"kernel_busy_ns", s.kernel_busy_ns},
      {"copy_busy_ns", s.copy_busy_ns},
      {"copy_compute_overlap_ns", s.copy_compute_overlap_ns},
  };
  for (const auto& [key, ns] : times)
    if (c.has(json, key)) c.same_ns(what + "." + key, json, key, ns);
  if (c.has(json, "busy_ns")) c.same_ns(what + ".busy_ns", json, "busy_ns", s.busy_ns);
  if (c.has(json, "stream_count")) c.same_count(what + ".stream_count", json, "stream_count", s.stream_count);
  if (c.has(json, "max_busy_streams"))
    c.same_count(what + ".max_busy_streams", json, "max_busy_streams", s.max_busy_streams);
  if (c.has(json, "stream_parallelism"))
    c.same_ratio(what + ".stream_parallelism", json, "stream_parallelism", s.stream_parallelism);
  if (c.has(json, "multi_stream_share"))
    c.same_ratio(what + ".multi_stream_share", json, "multi_stream_share", s.multi_stream_share);
}

bool is_stream_overlap(Checker& c, element obj) {
  return c.has(obj, "device") && (c.has(obj, "stream_parallelism") || c.has(obj, "multi_stream_ns") ||
                                  c.has(obj, "stream_overlap_ns") || c.has(obj, "copy_compute_overlap_ns"));
}

bool is_host_launch_overlap(Checker& c, element obj) {
  return c.has(obj, "launching_ns") && c.has(obj, "concurrent_ns");
}

// Walks the whole report: every object with per-GPU stream overlap or host launch overlap is compared on the
// window it (or an object around it) states. Returns how many were found.
std::size_t walk_overlap(Checker& c, const Oracle& o, element e, const std::string& path, Window window) {
  std::size_t found = 0;
  if (e.is_array()) {
    std::size_t i = 0;
    const array items = e.get_array().value_unsafe();
    for (element item : items) found += walk_overlap(c, o, item, path + "[" + std::to_string(i++) + "]", window);
    return found;
  }
  if (!e.is_object()) return 0;
  window = window_of(e, window);
  const bool gpu = is_stream_overlap(c, e);
  const bool host = is_host_launch_overlap(c, e);
  if (gpu || host) {
    ++found;
    if (gpu) {
      const std::int64_t device = c.int_of(path + ".device", e, "device");
      same_stream_overlap(c, path + device_text(device), e,
                          o.stream_overlap_within(device, window.start_ns, window.end_ns));
    }
    if (host) {
      const HostLaunchNumbers h = o.host_launch_within(window.start_ns, window.end_ns);
      c.same_ns(path + ".launching_ns", e, "launching_ns", h.launching_ns);
      c.same_ns(path + ".concurrent_ns", e, "concurrent_ns", h.concurrent_ns);
      if (c.has(e, "thread_count")) c.same_count(path + ".thread_count", e, "thread_count", h.thread_count);
      if (c.has(e, "process_count")) c.same_count(path + ".process_count", e, "process_count", h.process_count);
      if (c.has(e, "max_threads")) c.same_count(path + ".max_threads", e, "max_threads", std::uint64_t(h.max_threads));
    }
  }
  const simdjson::dom::object fields = e.get_object().value_unsafe();
  for (const auto [key, value] : fields)
    found += walk_overlap(c, o, value, path.empty() ? std::string(key) : path + "." + std::string(key), window);
  return found;
}

}  // namespace

std::size_t check_stream_overlap(Checker& c, const Oracle& o, element report) {
  return walk_overlap(c, o, report, "", Window{o.numbers().trace_start_ns, o.numbers().trace_end_ns});
}

}  // namespace gtv::oracle
