#pragma once
// What-if predictions: the recorded run's happens-before graph with changes applied, replayed; the timed
// region's predicted length with a band, the new critical path and every assumption the prediction made.
//
// The band holds the unchanged replay's error, the run-to-run spread of a recording and each change's own model
// error (each change replays once with its optimistic and once with its pessimistic assumptions).
#include <span>
#include <string>
#include <vector>

#include "gtv/analysis/analysed_trace.h"
#include "gtv/analysis/format.h"
#include "gtv/base/expected.h"
#include "gtv/causal/critical_path.h"
#include "gtv/model/trace.h"
#include "gtv/whatif/change.h"

namespace gtv::whatif {

// One kind of time on the predicted critical path ("GPU 0 kernel", "host launching"), longest first.
struct PathShare {
  std::string what;
  TimeNs ns = 0;
};

struct Prediction {
  std::string window;        // "the timed loop", "the whole trace": what was measured and predicted
  bool whole_trace = false;  // the trace has no timed measurement: the whole trace was predicted
  TimeNs recorded_ns = 0;    // the window's recorded length
  TimeNs replayed_ns = 0;    // the unchanged replay's window (equal to recorded_ns when the replay is exact)
  TimeNs predicted_ns = 0;
  TimeNs low_ns = 0;  // the band
  TimeNs high_ns = 0;
  std::vector<PathShare> path;           // the predicted critical path by kind of time
  std::vector<std::string> applied;      // what each change did, one sentence each
  std::vector<std::string> assumptions;  // every assumption, one sentence each
  std::vector<std::string> warnings;     // graph anomalies that widened the band
  [[nodiscard]] double speedup() const { return predicted_ns > 0 ? double(recorded_ns) / double(predicted_ns) : 0.0; }
};

// How the prediction reads the trace.
struct Options {
  // The ranges that name the work's owners (the CLI's --owners): '*' matches any run of characters, a pattern
  // without '*' any name containing it. Empty: gtv's model forward ranges, else ranges named "model N".
  std::string owners;
};

// Applies the changes in order to the analysed trace's graph (built on first need, shared by every prediction on
// it) and predicts. An error (one line) says why a change does not apply to this trace ("no pageable copies in this
// trace: nothing to change") or names a GPU or model the trace lacks.
[[nodiscard]] Expected<Prediction> predict(const analysis::AnalysedTrace& analysed, std::span<const Change> changes,
                                           const Options& options = {});
// One prediction on a trace analysed for it alone (its graph built and dropped): tests and one-shot tools. Front
// ends hold an AnalysedTrace and call the above.
[[nodiscard]] Expected<Prediction> predict(const Trace& trace, std::span<const Change> changes,
                                           const Options& options = {});

// One change tried alone.
struct Trial {
  Change change;
  Expected<Prediction> prediction;  // or why it does not apply, the change named first ("pinned: ...")
};
// Every change that needs no parameter, in the table's order, each tried alone on the one graph: what the What if
// dialog offers.
[[nodiscard]] std::vector<Trial> try_each_change(const analysis::AnalysedTrace& analysed, const Options& options = {});

// The window the predictions measure, as the recording has it (causal::window_of on the analysed trace's graph).
[[nodiscard]] causal::WindowTimes recorded_window(const analysis::AnalysedTrace& analysed);

using analysis::Format;  // text, Markdown, JSON: the one Format of every report
[[nodiscard]] std::string format_prediction(const Prediction& p, std::span<const Change> changes, Format format);

}  // namespace gtv::whatif
