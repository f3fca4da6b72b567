#pragma once
// The predicted run as a trace to draw: every event the happens-before graph holds (the outermost CUDA calls of
// each host thread, every kernel, copy and memset) at its replayed start and end, GPU work on the stream and GPU
// the changes gave it; the events the graph does not hold move with their neighbours (below). Marked as a
// prediction in its metadata (scenario "predicted: streams", a note, the source tool), never to be mistaken for a
// recording.
//
// Events the graph does not hold:
//  - host events (framework ops, annotations, calls nested in a call, tracer overhead, instants), the ranges and
//    the measurements keep their place beside their thread's calls: a time inside a call moves with the call's
//    start (cut at its end), a time after a call with the call's end (cut at the next call's start, so nesting
//    holds where the host's own work shrank); before the thread's first call, with that call's start. The
//    measurements' ends move by the rule the prediction's window uses, so the predicted trace's window is exactly
//    Prediction::predicted_ns long; each measurement reports its predicted host interval.
//  - events on GPU lanes that are not GPU work (GPU-side annotations) and the counters are left out; the
//    trace's notes say how many.
#include <span>
#include <string>

#include "gtv/base/expected.h"
#include "gtv/model/trace.h"
#include "gtv/whatif/change.h"
#include "gtv/whatif/predict.h"

namespace gtv::whatif {

struct PredictedRun {
  Prediction prediction;
  Trace trace;  // the predicted run, on the recording's clock (the window starts where the recorded one does)
};

// predict(), and the predicted run built from the same best-estimate replay, on the analysed trace's graph. Errors
// as predict's.
[[nodiscard]] Expected<PredictedRun> predict_run(const analysis::AnalysedTrace& analysed,
                                                 std::span<const Change> changes, const Options& options = {});
// On a trace analysed for this call alone (tests, one-shot tools).
[[nodiscard]] Expected<PredictedRun> predict_run(const Trace& trace, std::span<const Change> changes,
                                                 const Options& options = {});

// "streams", "placement=0,0,0 + streams": the changes as the title and notes name them.
[[nodiscard]] std::string changes_text(std::span<const Change> changes);

// The scenario a predicted run carries: "predicted: " + changes_text.
[[nodiscard]] std::string predicted_title(std::span<const Change> changes);

// Whether a trace is a run predict_run built (its configuration names the changes), not a recording.
[[nodiscard]] bool is_predicted_run(const Trace& trace);

}  // namespace gtv::whatif
