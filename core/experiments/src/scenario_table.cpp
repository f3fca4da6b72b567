// What runs each scenario of the catalogue (catalog.cpp): one row per scenario name.
#include <algorithm>

#include "scenario.h"

namespace gtv::exp {

const std::vector<ScenarioEntry>& scenario_table() {
  static const std::vector<ScenarioEntry> table = {
      {"baseline", &run_baseline},
      {"sequential", &run_sequential},
      {"sequential-to", &run_sequential_to},
      {"list", &run_list},
      {"streams", &run_streams},
      {"threads", &run_threads},
      {"threads-streams", &run_threads_streams},
      {"copy-pageable", &run_copy_pageable},
      {"copy-pinned", &run_copy_pinned},
      {"copy-pageable-nonblocking", &run_copy_pageable_nonblocking},
      {"copy-batched", &run_copy_batched},
      {"timing-methods", &run_timing_methods},
      {"warmup", &run_warmup},
      {"cpu-vs-gpu", &run_cpu_vs_gpu},
      {"processes", nullptr, false, true},
      {"launch-blocking", &run_launch_blocking, true},
      {"cuda-graph", &run_cuda_graph},
      {"ddp", &run_ddp},  // ranks (catalogue): run_in_ranks starts them, each runs this
      {"ddp-overlap", &run_ddp_overlap},
  };
  return table;
}

const ScenarioEntry* find_entry(std::string_view name) {
  if (!find_scenario(name)) return nullptr;  // only catalogued scenarios run
  const auto& table = scenario_table();
  auto it = std::find_if(table.begin(), table.end(), [&](const ScenarioEntry& e) { return e.name == name; });
  return it == table.end() ? nullptr : &*it;
}

}  // namespace gtv::exp
