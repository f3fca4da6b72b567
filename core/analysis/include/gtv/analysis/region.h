#pragma once
// The region of interest of a trace: the part the verdicts are about. The timed measurements when the trace has
// any (from the earliest measured host start to the latest end of the work they measured, so the workers' timed
// loops of a multi-process run form one window), else the whole trace. Measurements with gaps between them make
// a window that is more than what they measured: its name says so ("the span of the timed measurements"), and
// `measured` keeps the measurements themselves for the figures that must not count the gaps.
#include <string>
#include <vector>

#include "gtv/analysis/intervals.h"
#include "gtv/analysis/timing_truth.h"
#include "gtv/model/trace.h"

namespace gtv::analysis {

struct Region {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  bool from_measurements = false;
  // The window [start_ns, end_ns) in sentences: "the timed loop", "the span of the timed measurements" (first
  // start to last end, when there are gaps between them), "the whole trace".
  std::string name;
  // Each measurement's host start to the end of the work it measured (MeasurementTruth::truth_ns), merged: the
  // window without the gaps between measurements. The whole window when it does not come from measurements.
  std::vector<Interval> measured;
  // The measurements themselves in sentences: "the timed loop", "the timed measurements"; name when no gaps.
  std::string measured_name;
  [[nodiscard]] TimeNs length_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  [[nodiscard]] bool has_gaps() const { return measured.size() > 1; }
};

[[nodiscard]] Region region_of_interest(const Trace& trace, const TimingTruth& timing);

}  // namespace gtv::analysis
