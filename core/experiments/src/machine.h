#pragma once
// What the trace says about the machine, and GPU activity tracing around a run (CUPTI where the build has it).
#include <memory>

#include "scenario.h"

namespace gtv::exp {

// Host name, CPU, LibTorch version, GPU names, driver and CUPTI versions; DeviceInfo for the GPUs in use.
void record_machine(ScenarioContext& ctx);

// Starts CUPTI for a GPU run when the build and config allow; on failure the run goes on untraced with a note.
class GpuTracing {
 public:
  explicit GpuTracing(ScenarioContext& ctx);
  ~GpuTracing();
  GpuTracing(const GpuTracing&) = delete;
  GpuTracing& operator=(const GpuTracing&) = delete;
  // Flushes and stops (the caller has synchronized the devices); notes the record counts. Idempotent.
  void stop();

 private:
  struct Impl;
  ScenarioContext& ctx_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gtv::exp
