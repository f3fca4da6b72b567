#pragma once
// Synthetic traces for the causal tests: host calls, GPU work joined to them by correlation id, overhead records.
#include "../analysis/trace_helpers.h"
#include "gtv/causal/critical_path.h"

namespace gtv::causal::testing {

using analysis::testing::build;
using analysis::testing::host_call;
using analysis::testing::kernel;
using analysis::testing::make_event;
using analysis::testing::memcpy_event;

inline constexpr TimeNs us = kNsPerUs;

// cudaLaunchKernel on host thread (1, 1) at [call_us, call_us + call_len_us), its kernel on (device, stream).
inline void launch(TraceBuilder& b, std::uint64_t corr, TimeNs call_us, TimeNs call_len_us, std::int64_t device,
                   std::int64_t stream, TimeNs kernel_us, TimeNs kernel_len_us, std::int64_t tid = 1) {
  host_call(b, 1, tid, "cudaLaunchKernel", call_us * us, call_len_us * us, EventKind::Runtime, corr);
  kernel(b, device, stream, "gemm", kernel_us * us, kernel_len_us * us, corr);
}

inline void overhead(TraceBuilder& b, std::string_view name, TimeNs start_us, TimeNs len_us, std::int64_t tid = 1) {
  host_call(b, 1, tid, name, start_us * us, len_us * us, EventKind::Overhead);
}

inline void measure(TraceBuilder& b, TimeNs start_us, TimeNs end_us, std::int64_t tid = 1) {
  Measurement m;
  m.name = "timed loop";
  m.method = MeasurementMethod::StopwatchNoSync;
  m.host_start_ns = start_us * us;
  m.host_end_ns = end_us * us;
  m.reported_ns = m.host_end_ns - m.host_start_ns;
  m.pid = 1;
  m.tid = tid;
  b.add_measurement(m);
}

// The node of the event that starts at start_us on a lane.
inline NodeId node_at(const HappensBefore& g, const LaneKey& key, TimeNs start_us) {
  const auto lane = g.trace().find_lane(key);
  if (!lane) return kNoNode;
  const HappensBefore::IdRange r = g.lane_nodes(*lane);
  for (NodeId n = r.first; n < r.last; ++n)
    if (g.recorded_start(n) == start_us * us) return n;
  return kNoNode;
}

// The window length in microseconds after a removal (the unchanged replay when empty).
inline double window_us(const HappensBefore& g, const Removal& removal = {}) {
  return double(window_in(g, replay(g, removal), window_of(g)).length_ns()) / double(us);
}

}  // namespace gtv::causal::testing
