#pragma once
// A trace as every front end holds it once it is open: the immutable Trace, its happens-before graph and its
// Report, each made on first need and then kept and shared. The report's critical path, every what-if prediction
// (one or a dialog's many), the predicted run and the window's measurements read the one graph, so it is built once
// per trace; nothing above core builds a graph or computes an analysis of its own.
//
// Thread-safe: the graph and the report are made once even when several threads ask at once (the later ones wait
// for the first). Neither copied nor moved (the graph points into the Trace): share it by shared_ptr.
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>

#include "gtv/analysis/report.h"
#include "gtv/causal/happens_before.h"
#include "gtv/model/trace.h"

namespace gtv::analysis {

class AnalysedTrace {
 public:
  explicit AnalysedTrace(std::shared_ptr<const Trace> trace, Parallelism parallelism = Parallelism::Threads);
  [[nodiscard]] static std::shared_ptr<const AnalysedTrace> make(Trace trace,
                                                                 Parallelism parallelism = Parallelism::Threads);
  AnalysedTrace(const AnalysedTrace&) = delete;
  AnalysedTrace& operator=(const AnalysedTrace&) = delete;
  ~AnalysedTrace();

  [[nodiscard]] const Trace& trace() const { return *trace_; }
  [[nodiscard]] const std::shared_ptr<const Trace>& shared_trace() const { return trace_; }
  // Built on the first call; the same graph afterwards.
  [[nodiscard]] const causal::HappensBefore& graph() const;
  // Computed on the first call (from graph(), built beside the parts that need only the trace); the same afterwards.
  [[nodiscard]] const Report& report() const;
  [[nodiscard]] bool has_graph() const { return graph_ready_.load(std::memory_order_acquire); }
  [[nodiscard]] bool has_report() const { return report_ready_.load(std::memory_order_acquire); }
  // What this holds beyond the Trace and the Report: the graph's nodes, edges and side tables once it is built
  // (about 20 bytes a call or GPU work item), 0 before.
  [[nodiscard]] std::size_t bytes_used() const;

 private:
  std::shared_ptr<const Trace> trace_;
  Parallelism parallelism_;
  mutable std::once_flag graph_once_;
  mutable std::once_flag report_once_;
  mutable std::unique_ptr<const causal::HappensBefore> graph_;
  mutable std::unique_ptr<const Report> report_;
  mutable std::atomic<bool> graph_ready_ = false;
  mutable std::atomic<bool> report_ready_ = false;
};

}  // namespace gtv::analysis
