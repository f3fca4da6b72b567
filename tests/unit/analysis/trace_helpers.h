#pragma once
// Small helpers to build synthetic traces for the analysis tests.
#include <string_view>

#include "gtv/model/trace_builder.h"

namespace gtv::analysis::testing {

inline Event make_event(TraceBuilder& b, std::string_view name, TimeNs start_ns, TimeNs duration_ns, EventKind kind,
                        std::uint64_t correlation = kNoCorrelation) {
  Event e;
  e.name = b.intern(name);
  e.start_ns = start_ns;
  e.duration_ns = duration_ns;
  e.kind = kind;
  e.correlation_id = correlation;
  return e;
}

inline void kernel(TraceBuilder& b, std::int64_t device, std::int64_t stream, std::string_view name, TimeNs start_ns,
                   TimeNs duration_ns, std::uint64_t correlation = kNoCorrelation) {
  b.add_kernel(b.lane(gpu_lane_key(device, stream)),
               make_event(b, name, start_ns, duration_ns, EventKind::Kernel, correlation), KernelDetail{});
}

inline void memcpy_event(TraceBuilder& b, std::int64_t device, std::int64_t stream, TimeNs start_ns, TimeNs duration_ns,
                         MemcpyDetail detail = {}, std::uint64_t correlation = kNoCorrelation) {
  b.add_memcpy(b.lane(gpu_lane_key(device, stream)),
               make_event(b, "Memcpy", start_ns, duration_ns, EventKind::Memcpy, correlation), detail);
}

inline void memset_event(TraceBuilder& b, std::int64_t device, std::int64_t stream, TimeNs start_ns,
                         TimeNs duration_ns) {
  b.add_memset(b.lane(gpu_lane_key(device, stream)), make_event(b, "Memset", start_ns, duration_ns, EventKind::Memset),
               MemsetDetail{});
}

inline void host_call(TraceBuilder& b, std::int64_t pid, std::int64_t tid, std::string_view name, TimeNs start_ns,
                      TimeNs duration_ns, EventKind kind = EventKind::Runtime,
                      std::uint64_t correlation = kNoCorrelation) {
  b.add_event(b.lane(host_lane_key(pid, tid)), make_event(b, name, start_ns, duration_ns, kind, correlation));
}

inline Trace build(TraceBuilder& b) {
  Expected<Trace> t = b.build();
  if (!t) throw std::runtime_error(t.error().message);
  return std::move(t).value();
}

}  // namespace gtv::analysis::testing
