#pragma once
// How wrong was the stopwatch? For each recorded Measurement, the truth is its host interval extended to the end
// of the GPU work launched inside it (joined by flows; without flows, GPU work overlapping the interval), and
// the error of the reported number against that truth.
#include <cstdint>
#include <string>
#include <vector>

#include "gtv/model/trace.h"

namespace gtv::analysis {

struct MeasurementTruth {
  std::string name;
  MeasurementMethod method = MeasurementMethod::Other;
  TimeNs reported_ns = 0;
  TimeNs host_start_ns = 0;
  TimeNs host_end_ns = 0;
  bool by_flows = false;  // GPU work found through launches (else by overlap)
  std::size_t gpu_activity_count = 0;
  TimeNs gpu_first_start_ns = 0;  // 0 when no GPU work
  TimeNs gpu_last_end_ns = 0;
  TimeNs gpu_busy_ns = 0;     // union of that work over all GPUs
  TimeNs truth_ns = 0;        // host start to the later of host end and last GPU end
  TimeNs error_ns = 0;        // reported - truth (negative: the method missed time)
  double relative_error = 0;  // error / truth, 0 when truth is 0
  std::string verdict;
};

struct MethodError {
  MeasurementMethod method = MeasurementMethod::Other;
  std::size_t count = 0;
  double mean_relative_error = 0;  // signed mean
  double mean_abs_relative_error = 0;
};

struct TimingTruth {
  std::vector<MeasurementTruth> measurements;  // in the trace's order
  std::vector<MethodError> methods;            // in enum order, only methods present
  std::vector<std::string> findings;
};

[[nodiscard]] TimingTruth analyze_timing_truth(const Trace& trace);

}  // namespace gtv::analysis
