#pragma once
// balanced-ranks: predicted from the collectives' arrivals of a run merged from ranks (see balanced_ranks.cpp).
#include "gtv/base/expected.h"
#include "gtv/causal/critical_path.h"
#include "gtv/model/trace.h"
#include "gtv/whatif/predict.h"

namespace gtv::whatif {

// Fills `out` (whose window, recorded_ns and whole_trace are set) with the prediction for `window`; an error says
// why the change does not apply (not a merged run, no collective every rank waits for, nobody waited).
[[nodiscard]] Expected<Ok> predict_balanced_ranks(const Trace& trace, const causal::Window& window, Prediction& out);

}  // namespace gtv::whatif
