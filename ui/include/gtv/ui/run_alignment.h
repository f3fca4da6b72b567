#pragma once
// Where runs line up when they are stacked for comparison. Pure functions with no Qt, unit tested on their own.
#include <optional>
#include <vector>

#include "gtv/analysis/report.h"
#include "gtv/model/trace.h"

namespace gtv::ui {

// The first steady-state GPU kernel (analysis::steady_part, which compare uses too): the first kernel starting at
// or after the end of the last WarmUp range; without WarmUp ranges, the first kernel. Its start (relative to the trace
// origin), or nullopt when the trace has no kernel after the warm-up.
[[nodiscard]] std::optional<TimeNs> steady_state_anchor_ns(const Trace& trace);

// The anchor used for alignment: steady_state_anchor_ns, else the trace start (a trace without kernels still
// stacks, at its beginning).
[[nodiscard]] TimeNs alignment_anchor_ns(const Trace& trace);
// The same from the steady part the trace's report holds (what the views use: no second computation).
[[nodiscard]] TimeNs alignment_anchor_ns(const Trace& trace, const analysis::Report& report);

// From the alignment anchor to the end of the last GPU activity (kernel, copy or memset): the steady part of the
// run, compared across runs without their start-up. 0 when no GPU activity ends after the anchor.
[[nodiscard]] TimeNs steady_span_ns(const Trace& trace);

// Shift of each run's time axis against the first run: offsets[i] = anchors[i] - anchors[0], so that time t in
// run 0 is shown beside time t + offsets[i] in run i. Empty for no anchors.
[[nodiscard]] std::vector<TimeNs> alignment_offsets_ns(const std::vector<TimeNs>& anchors_ns);

}  // namespace gtv::ui
