#pragma once
// The report's assembly with the graph handed in: analyze() builds one for the call, AnalysedTrace its shared one.
#include <functional>

#include "gtv/analysis/report.h"
#include "gtv/causal/happens_before.h"

namespace gtv::analysis::detail {

// `graph` is called once, on a worker thread under Parallelism::Threads, beside the parts that need only the trace.
[[nodiscard]] Report analyze_with(const std::function<const causal::HappensBefore&()>& graph, const Trace& trace,
                                  Parallelism parallelism);

}  // namespace gtv::analysis::detail
