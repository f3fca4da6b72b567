#pragma once
// What a trace tab shows first, kept free of widgets so it can be unit tested: the time window that answers the
// question (the timed work, not the start-up before it) and the verdict line above the plot.
#include <string>

#include "gtv/analysis/report.h"
#include "gtv/model/trace.h"
#include "gtv/ui/time_mapping.h"

namespace gtv::ui {

// Padding on each side of the first view, as a fraction of its span, so the first and last kernels of the timed
// work do not touch the edges of the plot.
inline constexpr double kFirstViewPadding = 0.03;

// The window a trace opens on (trace nanoseconds): the region of the timed measurements when the trace has any,
// else its steady part (after the warm-up), else the whole trace as fit shows it.
[[nodiscard]] TimeWindow first_view_window(const Trace& trace, const analysis::Report& report);

// The headline above the plot: the region's concurrency and the idle cause (the report's first two verdict
// sentences), in one line of plain text.
[[nodiscard]] std::string verdict_line(const analysis::Report& report);

}  // namespace gtv::ui
