#pragma once
// What-if predictions: the recorded run's happens-before graph with changes applied, replayed; the timed
// region's predicted length with a band, the new critical path and every assumption the prediction made.
//
// The band holds the unchanged replay's error, the run-to-run spread of a recording and each change's own model
// error (each change replays once with its optimistic and once with its pessimistic assumptions).
#include <span>
#include <string>
#include <vector>

#include "gtv/base/expected.h"
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

// Applies the changes in order and predicts. An error (one line) says why a change does not apply to this
// trace ("no pageable copies in this trace: nothing to change") or names a GPU or model the trace lacks.
[[nodiscard]] Expected<Prediction> predict(const Trace& trace, std::span<const Change> changes,
                                           const Options& options = {});

enum class Format : std::uint8_t { Text, Markdown, Json };
[[nodiscard]] std::string format_prediction(const Prediction& p, std::span<const Change> changes, Format format);

}  // namespace gtv::whatif
