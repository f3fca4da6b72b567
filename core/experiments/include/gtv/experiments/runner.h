#pragma once
// Running a scenario: the seed's experiments (LargeFcNet on one or more GPUs, or on the CPU when there is none)
// under host range recording, PyTorch op callbacks and, where the build and machine have it, CUPTI tracing.
// This header has no torch or CUDA types; the library behind it links LibTorch, and only gtv-run and the
// experiment tests link it.
#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/experiments/catalog.h"
#include "gtv/experiments/run_config.h"
#include "gtv/model/trace.h"

namespace gtv::exp {

struct RunResult {
  RunResult() = default;
  RunResult(std::optional<Trace> trace_of_run, Status status_of_run)
      : trace(std::move(trace_of_run)), status(std::move(status_of_run)) {}
  std::optional<Trace> trace;   // what ran, also when the run failed part way (e.g. out of GPU memory)
  Status status = ok_status();  // the first error, one line
  // A run of several ranks (the ddp scenarios): each rank's own trace, by rank, as its process recorded it;
  // `trace` is them merged on one clock. Empty for runs of one process.
  std::vector<Trace> rank_traces;
};

// progress receives short human-readable lines ("warm-up", "iteration 3/10", notices); may be empty.
[[nodiscard]] RunResult run_scenario(const RunConfig& config, const std::function<void(std::string_view)>& progress);

// CUDA GPUs LibTorch can use here (0 without CUDA or without a GPU).
[[nodiscard]] int cuda_device_count();

// The device of each of `models` models: devices cycled when given (each must be in 0..gpu_count-1), else
// round-robin over the GPUs (3 models on 2 GPUs: 0, 1, 0); all -1 (the CPU) when gpu_count is 0 and no devices
// are asked for. Errors name the bad index and the GPUs there are.
[[nodiscard]] Expected<std::vector<int>> assign_devices(int models, int gpu_count, const std::vector<int>& devices);

}  // namespace gtv::exp
