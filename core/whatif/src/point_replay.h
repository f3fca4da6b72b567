#pragma once
// The prediction's best-estimate replay kept for drawing it: the edited plan, its timeline and the window, so the
// predicted run can be built as a Trace (predicted_run.h) from the same replay the prediction measured.
#include <span>

#include "gtv/whatif/predict.h"
#include "plan.h"

namespace gtv::whatif {

struct PointReplay {
  Plan plan;
  causal::Timeline timeline;
  causal::Window window;
};

// predict() on a graph the caller keeps alive; `point` (may be null) receives the best-estimate replay.
[[nodiscard]] Expected<Prediction> predict_on(const causal::HappensBefore& graph, std::span<const Change> changes,
                                              PointReplay* point, const Options& options = {});

}  // namespace gtv::whatif
