#pragma once
// Two traces (or two scenarios) side by side: wall time, GPU busy time, overlap, speedup, and per-kernel changes.
#include <string>
#include <vector>

#include "gtv/analysis/format.h"
#include "gtv/model/trace.h"

namespace gtv::analysis {

struct RunFigures {
  std::string label;
  TimeNs wall_ns = 0;        // trace span
  TimeNs gpu_busy_ns = 0;    // union over GPUs
  TimeNs gpu_busy_sum_ns = 0;
  TimeNs overlap_ns = 0;     // 2+ GPUs busy
  double effective_parallelism = 0;
  TimeNs kernel_ns = 0;
  std::size_t kernel_count = 0;
  std::size_t gpu_count = 0;
  TimeNs host_blocked_ns = 0;
};

struct KernelDiff {
  std::string name;  // short
  std::string full_name;
  std::size_t count_a = 0;
  std::size_t count_b = 0;
  TimeNs total_a_ns = 0;
  TimeNs total_b_ns = 0;
  TimeNs delta_ns = 0;  // b - a
};

struct Comparison {
  RunFigures a;
  RunFigures b;
  double speedup = 0;  // wall a / wall b: > 1 means B is faster; 0 when unknown
  std::vector<KernelDiff> kernels;  // by |delta| (largest first), then full name
  std::string verdict;
};

[[nodiscard]] RunFigures run_figures(const Trace& trace, std::string label);
[[nodiscard]] Comparison compare(const Trace& a, const Trace& b, std::string label_a = "A", std::string label_b = "B");
[[nodiscard]] std::string format_comparison(const Comparison& comparison, Format format);

}  // namespace gtv::analysis
