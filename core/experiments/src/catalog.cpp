// The scenario catalogue: one row per scenario. Adding a scenario = a function in a scenarios_*.cpp file, a row
// here and resources/scenarios/NAME.md.
#include <algorithm>

#include "scenario.h"

namespace gtv::exp {

const std::vector<ScenarioEntry>& scenario_table() {
  static const std::vector<ScenarioEntry> table = {
      {{"baseline", "each model alone, the yardstick for the others", false}, &run_baseline},
      {{"sequential", "method 1: the models called one after another each iteration", false}, &run_sequential},
      {{"sequential-to", "method 2: as sequential, with a redundant .to(device) of the input", false},
       &run_sequential_to},
      {{"list", "method 3: each iteration's outputs collected in a list", false}, &run_list},
      {{"streams", "one CUDA stream per model, the answer the seed proposed", true}, &run_streams},
      {{"threads", "one host thread per model, default streams", false}, &run_threads},
      {{"threads-streams", "one host thread and one stream per model", true}, &run_threads_streams},
      {{"copy-pageable", "each output copied to the host with .to(kCPU): serializes everything", true},
       &run_copy_pageable},
      {{"copy-pinned", "outputs copied non_blocking into pinned buffers, one synchronize at the end", true},
       &run_copy_pinned},
      {{"copy-pageable-nonblocking", "non_blocking copies into pageable memory: still synchronous", true},
       &run_copy_pageable_nonblocking},
      {{"copy-batched", "outputs stay on the GPU, one copy per model at the end", true}, &run_copy_batched},
      {{"timing-methods", "one model timed by stopwatch, stopwatch after synchronize and CUDA events", true},
       &run_timing_methods},
      {{"warmup", "first against second matrix product and forward: where the cold-start time goes", true},
       &run_warmup},
      {{"cpu-vs-gpu", "the same matrix products on the CPU and on each GPU, small and large", true}, &run_cpu_vs_gpu},
      {{"processes", "one worker process per GPU, each with its own CUPTI, traces merged", true}, nullptr, false, true},
      {{"launch-blocking", "sequential with CUDA_LAUNCH_BLOCKING=1: the case that really is serial", true},
       &run_launch_blocking,
       true},
  };
  return table;
}

const ScenarioEntry* find_entry(std::string_view name) {
  const auto& table = scenario_table();
  auto it = std::find_if(table.begin(), table.end(), [&](const ScenarioEntry& e) { return e.info.name == name; });
  return it == table.end() ? nullptr : &*it;
}

std::vector<ScenarioInfo> list_scenarios() {
  std::vector<ScenarioInfo> infos;
  for (const auto& entry : scenario_table()) infos.push_back(entry.info);
  return infos;
}

std::optional<ScenarioInfo> find_scenario(std::string_view name) {
  const ScenarioEntry* entry = find_entry(name);
  if (entry == nullptr) return std::nullopt;
  return entry->info;
}

}  // namespace gtv::exp
