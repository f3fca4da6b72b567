#pragma once
// Busy and idle time of each GPU and stream: the union of its kernels, copies and memsets, so overlapping work
// on several streams of one GPU counts once.
#include <cstdint>
#include <string>
#include <vector>

#include "gtv/analysis/intervals.h"
#include "gtv/model/trace.h"

namespace gtv::analysis {

struct StreamBusy {
  std::int64_t device = 0;
  std::int64_t stream = 0;
  std::string name;
  std::size_t activity_count = 0;  // kernels + copies + memsets
  TimeNs busy_ns = 0;              // inside the window
  TimeNs idle_ns = 0;
  double utilization = 0;  // busy / window, 0..1
};

struct GpuBusy {
  std::int64_t device = 0;
  std::size_t stream_count = 0;
  std::size_t activity_count = 0;
  std::size_t kernel_count = 0;
  TimeNs kernel_ns = 0;  // plain sum of kernel durations (counts overlapping kernels twice)
  TimeNs busy_ns = 0;    // union of all activity inside the window
  TimeNs idle_ns = 0;
  double utilization = 0;
  TimeNs first_start_ns = 0;  // of any activity; 0 when there is none
  TimeNs last_end_ns = 0;
  std::vector<Interval> busy;  // merged busy intervals (unclipped)
};

struct BusyAnalysis {
  TimeNs window_start_ns = 0;
  TimeNs window_end_ns = 0;
  std::vector<GpuBusy> gpus;        // by device index; only devices with GPU lanes
  std::vector<StreamBusy> streams;  // by device, then stream
  std::vector<Interval> any_busy;   // union over all GPUs
  // Saturates: a window given by a caller may span more than an int64 holds.
  [[nodiscard]] TimeNs window_ns() const { return saturating_sub(window_end_ns, window_start_ns); }
};

// Merged busy intervals of one GPU lane (events of GPU activity kinds only).
[[nodiscard]] std::vector<Interval> lane_busy_intervals(const Lane& lane);

// Over the whole trace span.
[[nodiscard]] BusyAnalysis analyze_busy(const Trace& trace);
[[nodiscard]] BusyAnalysis analyze_busy(const Trace& trace, TimeNs window_start_ns, TimeNs window_end_ns);

}  // namespace gtv::analysis
