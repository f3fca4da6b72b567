#pragma once
// The region of interest of a trace: the part the verdicts are about. The timed measurements when the trace has
// any (from the earliest measured host start to the latest end of the work they measured, so the workers' timed
// loops of a multi-process run form one window), else the whole trace.
#include <string>

#include "gtv/analysis/timing_truth.h"
#include "gtv/model/trace.h"

namespace gtv::analysis {

struct Region {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  bool from_measurements = false;
  std::string name;  // "the timed loop", "the timed measurements" or "the whole trace": used in sentences
  [[nodiscard]] TimeNs length_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

[[nodiscard]] Region region_of_interest(const Trace& trace, const TimingTruth& timing);

}  // namespace gtv::analysis
