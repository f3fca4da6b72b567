#pragma once
// Analysis results the timeline draws over the lanes, as plain values so the view does not depend on how the
// analysis computes them: shaded warm-up segments, measurement brackets, iteration marks, the overlap strip.
#include <string>
#include <vector>

#include "gtv/base/time.h"

namespace gtv::ui {

struct ShadedSegment {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::string label;  // the cause: "context creation", "lazy module loading"
};

struct Bracket {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::string label;  // "stopwatch: 11.4 ms"
  int method = 0;     // colour index
};

struct Mark {
  TimeNs time_ns = 0;
  std::string label;
};

// A step function: from each point until the next, `value` GPUs were busy.
struct Step {
  TimeNs time_ns = 0;
  int value = 0;
};

struct OverlayData {
  std::vector<ShadedSegment> warmup;
  std::vector<Bracket> brackets;
  std::vector<Mark> iterations;
  std::vector<Step> busy_gpus;
  int gpu_count = 0;
};

}  // namespace gtv::ui
