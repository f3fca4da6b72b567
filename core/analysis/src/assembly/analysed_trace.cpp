#include "gtv/analysis/analysed_trace.h"

#include <utility>

#include "assembly/report_assembly.h"

namespace gtv::analysis {

AnalysedTrace::AnalysedTrace(std::shared_ptr<const Trace> trace, Parallelism parallelism)
    : trace_(std::move(trace)), parallelism_(parallelism) {}

AnalysedTrace::~AnalysedTrace() = default;

std::shared_ptr<const AnalysedTrace> AnalysedTrace::make(Trace trace, Parallelism parallelism) {
  return std::make_shared<const AnalysedTrace>(std::make_shared<const Trace>(std::move(trace)), parallelism);
}

const causal::HappensBefore& AnalysedTrace::graph() const {
  std::call_once(graph_once_, [this] {
    graph_ = std::make_unique<const causal::HappensBefore>(causal::HappensBefore::build(*trace_));
    graph_ready_.store(true, std::memory_order_release);
  });
  return *graph_;
}

const Report& AnalysedTrace::report() const {
  std::call_once(report_once_, [this] {
    report_ = std::make_unique<const Report>(
        detail::analyze_with([this]() -> const causal::HappensBefore& { return graph(); }, *trace_, parallelism_));
    report_ready_.store(true, std::memory_order_release);
  });
  return *report_;
}

std::size_t AnalysedTrace::bytes_used() const { return has_graph() ? graph_->memory_bytes() : 0; }

}  // namespace gtv::analysis
