#pragma once
// Running a scenario: the seed's experiments (LargeFcNet on one or more GPUs, or on the CPU when there is none)
// under host range recording, PyTorch op callbacks and, where the build and machine have it, CUPTI tracing.
// This header has no torch or CUDA types, so gtv-cli and tests include it freely.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/model/trace.h"

namespace gtv::exp {

struct ScenarioInfo {
  std::string name;        // "sequential"
  std::string summary;     // one line for `gtv-cli list`
  bool needs_gpu = false;  // true: without a CUDA GPU the scenario cannot show its point (it may still run)
};

// Every scenario this build knows, in catalogue order.
[[nodiscard]] std::vector<ScenarioInfo> list_scenarios();
[[nodiscard]] std::optional<ScenarioInfo> find_scenario(std::string_view name);

// The scenario's explanation (resources/scenarios/NAME.md, embedded at build time); nullopt for unknown names.
[[nodiscard]] std::optional<std::string_view> scenario_explanation(std::string_view name);

struct RunConfig {
  std::string scenario;
  int models = 3;
  int input = 100;
  int hidden = 0;  // 0: 10000 on a GPU, 512 on the CPU
  int output = 100;
  double dropout = 0.4;
  int batch = 100;
  int iters = 10;
  std::vector<int> devices;  // GPU of each model (cycled when shorter); empty: round-robin over the GPUs present
  bool warmup = true;        // run one untimed warm-up pass first (recorded as a WarmUp range)
  bool all_api = false;      // keep the noisy CUDA API ids (cudaGetDevice ...) in the CUPTI trace
  bool trace_ops = true;     // PyTorch op ranges (RecordFunction callbacks) as CpuOp events
  bool cupti = true;         // trace GPU activity with CUPTI when the build and machine allow
  bool force_cpu = false;    // run on the CPU even when a GPU is present
  // Asked before each iteration (from the running thread): true stops the run there with the error
  // "cancelled" (the UI's Cancel). Empty: never cancelled.
  std::function<bool()> cancelled;
  // Called right before each timed phase starts (outside its measurement): the `processes` scenario uses it to
  // start every worker's timed loop at the same moment. May be empty.
  std::function<void()> before_timed_work;
};

struct RunResult {
  std::optional<Trace> trace;   // what ran, also when the run failed part way (e.g. out of GPU memory)
  Status status = ok_status();  // the first error, one line
};

// progress receives short human-readable lines ("warm-up", "iteration 3/10", notices); may be empty.
[[nodiscard]] RunResult run_scenario(const RunConfig& config, const std::function<void(std::string_view)>& progress);

// CUDA GPUs LibTorch can use here (0 without CUDA or without a GPU).
[[nodiscard]] int cuda_device_count();

// The device of each of `models` models: devices cycled when given (each must be in 0..gpu_count-1), else
// round-robin over the GPUs (3 models on 2 GPUs: 0, 1, 0); all -1 (the CPU) when gpu_count is 0 and no devices
// are asked for. Errors name the bad index and the GPUs there are.
[[nodiscard]] Expected<std::vector<int>> assign_devices(int models, int gpu_count, const std::vector<int>& devices);

// Default hidden size when RunConfig::hidden is 0.
inline constexpr int kDefaultHiddenGpu = 10000;
inline constexpr int kDefaultHiddenCpu = 512;

}  // namespace gtv::exp
