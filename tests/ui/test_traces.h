#pragma once
// Small traces built in code for the UI tests: one host thread launching kernels on two GPUs, with flows.
#include "gtv/model/trace_builder.h"

namespace gtv::ui::test {

inline constexpr std::int64_t kPid = 100;
inline constexpr std::int64_t kTid = 1;

// Host lane (100, 1): an op "forward" [0, 100 us) and three cudaLaunchKernel calls inside it (correlation 1..3).
// GPU 0 stream 7: kernels "k" [20, 40) us (corr 1), "gemm_big" [50, 90) us (corr 2).
// GPU 1 stream 7: kernel "relu_small" [60, 80) us (corr 3). Times in ns.
inline Trace small_trace() {
  TraceBuilder b;
  b.process(kPid).name = "python";
  b.add_device({0, "NVIDIA H200", 0, 9, 0, 132});
  b.add_device({1, "NVIDIA H200", 0, 9, 0, 132});
  const LaneIndex host = b.lane(host_lane_key(kPid, kTid));
  const LaneIndex gpu0 = b.lane(gpu_lane_key(0, 7));
  const LaneIndex gpu1 = b.lane(gpu_lane_key(1, 7));
  auto event = [&](TimeNs start_us, TimeNs dur_us, EventKind kind, const char* name, std::uint64_t corr) {
    Event e;
    e.start_ns = start_us * 1000;
    e.duration_ns = dur_us * 1000;
    e.kind = kind;
    e.name = b.intern(name);
    e.correlation_id = corr;
    return e;
  };
  b.add_event(host, event(0, 100, EventKind::CpuOp, "forward", 0));
  b.add_event(host, event(5, 5, EventKind::Runtime, "cudaLaunchKernel", 1));
  b.add_event(host, event(15, 5, EventKind::Runtime, "cudaLaunchKernel", 2));
  b.add_event(host, event(25, 5, EventKind::Runtime, "cudaLaunchKernel", 3));
  KernelDetail k;
  k.grid[0] = 128;
  k.grid[1] = 1;
  k.grid[2] = 1;
  k.block[0] = 256;
  k.block[1] = 1;
  k.block[2] = 1;
  k.registers_per_thread = 32;
  b.add_kernel(gpu0, event(20, 20, EventKind::Kernel, "k", 1), k);
  b.add_kernel(gpu0, event(50, 40, EventKind::Kernel, "gemm_big", 2), k);
  b.add_kernel(gpu1, event(60, 20, EventKind::Kernel, "relu_small", 3), k);
  return std::move(b.build().value());
}

}  // namespace gtv::ui::test
