#pragma once
// What a scenario function gets, and the pieces every scenario is made of: building the models, the labelled
// warm-up, iteration and forward ranges, and a timed loop measured the three ways the seed compared.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine.h"
#include "gtv/collect/host_recorder.h"
#include "gtv/experiments/runner.h"

namespace gtv::exp {

struct ScenarioContext {
  RunConfig config;                // as given, with hidden resolved
  NetShape shape;                  // from config
  std::vector<int> model_devices;  // one per model; kCpuDevice on the CPU
  Engine& engine;
  collect::HostRecorder& host;
  std::function<void(std::string_view)> progress;   // never empty
  std::optional<ProcessGroupConfig> process_group;  // the ddp scenarios: this process's rank
  std::string phase;                                // the timed or warm-up phase running now, for iterate's progress

  [[nodiscard]] bool on_gpu() const { return engine.cuda_available(); }
  [[nodiscard]] int model_count() const { return static_cast<int>(model_devices.size()); }
  // The distinct devices the models use, in first-use order.
  [[nodiscard]] std::vector<int> devices_in_use() const;
};

using ScenarioFn = void (*)(ScenarioContext&);

struct ScenarioEntry {
  std::string_view name;  // as in the catalogue (catalog.cpp)
  ScenarioFn run = nullptr;
  bool launch_blocking = false;  // needs CUDA_LAUNCH_BLOCKING=1 set before CUDA starts in this process
  bool in_processes = false;     // run by run_in_processes instead of run
};

// The `processes` scenario: worker processes forked before this process starts CUDA (scenarios_processes.cpp).
[[nodiscard]] RunResult run_in_processes(const RunConfig& config, const std::function<void(std::string_view)>& report);

// The ddp scenarios. rank_from_environment: this process's rank when a launcher (torchrun, or run_in_ranks) set
// RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (LOCAL_RANK: its GPU); nullopt when RANK is not set; an error naming
// the variable when one is missing or malformed. run_in_ranks starts the ranks of config on this machine.
[[nodiscard]] Expected<std::optional<ProcessGroupConfig>> rank_from_environment();
[[nodiscard]] RunResult run_in_ranks(const RunConfig& config, const std::function<void(std::string_view)>& report);
// A rank's GPU: devices[local_rank] when devices are given (cycled), else local_rank; kCpuDevice without GPUs.
[[nodiscard]] Expected<int> rank_device(const ProcessGroupConfig& rank, int gpu_count, const std::vector<int>& devices);
// Settles the backend of ctx.process_group (the one asked for, else NCCL on GPUs and Gloo on the CPU) and records
// the rank in the trace's metadata; an error when this build or machine cannot run it.
[[nodiscard]] Status prepare_rank(ScenarioContext& ctx);

// What runs each catalogued scenario (scenario_table.cpp); find_entry is nullptr for names not in the catalogue.
[[nodiscard]] const std::vector<ScenarioEntry>& scenario_table();
[[nodiscard]] const ScenarioEntry* find_entry(std::string_view name);

// Builds one model per entry of model_devices inside a "build models" phase.
void build_models(ScenarioContext& ctx);

// One forward of model inside a Forward range "model M forward" on its device.
void forward_in_range(ScenarioContext& ctx, int model, const ForwardOptions& options);

// When config.warmup: one untimed pass of body inside a WarmUp range, then synchronize.
void warm_up(ScenarioContext& ctx, const std::function<void()>& body, const std::string& name = "warm-up");

// config.iters iterations of body(i), each in an Iteration range; says how many are done through progress
// ("timed loop: 57 of 200 iterations") at most every 100 ms and after the last.
void iterate(ScenarioContext& ctx, const std::function<void(int)>& body);

// Runs body once inside a Phase range called name and records what three timing methods report for it:
// stopwatch without synchronize (the seed's), stopwatch after synchronize, CUDA events (GPU only).
// kind: Phase for timed loops, WarmUp when the measured work is itself a first, cold call. gpu_work: false for
// work on the CPU, which CUDA events cannot see (no event measurement then).
void timed(ScenarioContext& ctx, const std::string& name, const std::function<void()>& body,
           RangeKind kind = RangeKind::Phase, bool gpu_work = true);

// The two matrix sizes of warmup and cpu-vs-gpu: 4 and 4000 with a GPU; 4 and the hidden size on the CPU, so
// the CPU run stays short.
[[nodiscard]] std::vector<int> matmul_sizes(const ScenarioContext& ctx);

// The scenario functions (scenarios_*.cpp).
void run_baseline(ScenarioContext& ctx);
void run_sequential(ScenarioContext& ctx);
void run_sequential_to(ScenarioContext& ctx);
void run_list(ScenarioContext& ctx);
void run_streams(ScenarioContext& ctx);
void run_cuda_graph(ScenarioContext& ctx);
void run_threads(ScenarioContext& ctx);
void run_threads_streams(ScenarioContext& ctx);
void run_copy_pageable(ScenarioContext& ctx);
void run_copy_pageable_nonblocking(ScenarioContext& ctx);
void run_copy_pinned(ScenarioContext& ctx);
void run_copy_batched(ScenarioContext& ctx);
void run_timing_methods(ScenarioContext& ctx);
void run_warmup(ScenarioContext& ctx);
void run_cpu_vs_gpu(ScenarioContext& ctx);
void run_launch_blocking(ScenarioContext& ctx);
void run_ddp(ScenarioContext& ctx);
void run_ddp_overlap(ScenarioContext& ctx);

}  // namespace gtv::exp
