#pragma once
// balanced-ranks over plain per-rank values: the model of the prediction (balanced_ranks.cpp), shared by the what-if
// of a merged run (from its trace) and the reduction of rank summaries (from what each summary keeps).
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "gtv/analysis/stragglers.h"
#include "gtv/base/expected.h"
#include "gtv/whatif/predict.h"

namespace gtv::whatif {

// What the model needs of one rank beyond its collectives, in the window.
struct BalancedRankWork {
  TimeNs last_measurement_end_ns = std::numeric_limits<TimeNs>::min();  // its last measurement's end; min: none
  TimeNs bound_ns = 0;     // the longest own work of one of its threads or GPUs in the window
  std::string bound_what;  // "thread 686's own work", "GPU 1's work"
  // The time any of its GPUs ran its work in the window (kernels, copies, memsets; communication kernels left out),
  // and its GPUs as its own file numbers them: ranks that name the same GPU may share one.
  TimeNs gpu_work_ns = 0;
  std::vector<std::int64_t> local_devices;
};

struct BalancedRanksInput {
  TimeNs window_start_ns = 0;
  TimeNs window_end_ns = 0;
  std::vector<BalancedRankWork> ranks;  // indexed as Stragglers::ranks
  std::string backend;                  // the run's ("nccl", "gloo"; empty: not said)
  // [collective][rank], indexed as Stragglers::collectives and their per-rank vectors: the rank's own work between
  // its arrival and its end (its host threads' recorded ops and calls, waits left out).
  std::vector<std::vector<TimeNs>> own_work_ns;
};

// What the predictions of a run measure, from its measurements' names in order (repeats kept or not): "the whole
// trace" for none, "the measured 'timed loop'" for one name, else the span of them, first and last named.
[[nodiscard]] std::string window_name(std::span<const std::string> measurement_names);

// Fills `out` (whose window, whole_trace and recorded_ns are set) with the prediction for the window, its band
// with 1% each way for the spread between recordings of one run; an error says why the change does not apply (fewer
// than two ranks, no collective every rank waits for, nobody waited).
[[nodiscard]] Expected<Ok> predict_balanced_ranks(const analysis::Stragglers& s, const BalancedRanksInput& in,
                                                  Prediction& out);

}  // namespace gtv::whatif
