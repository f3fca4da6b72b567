#pragma once
// Small traces for the what-if tests: models' forward ranges and GEMMs of a known share of a 100-multiprocessor GPU.
#include <string>

#include "../causal/causal_helpers.h"

namespace gtv::whatif::testing {

using causal::testing::build;
using causal::testing::host_call;
using causal::testing::make_event;

inline constexpr TimeNs kUs = causal::testing::us;

inline void forward(TraceBuilder& b, int model, TimeNs start_us, TimeNs end_us, std::int64_t tid = 1) {
  b.add_range(Range{"model " + std::to_string(model) + " forward", RangeKind::Forward, start_us * kUs, end_us * kUs, 1,
                    tid, 0});
}

// A GPU of 100 multiprocessors; a kernel of `blocks` blocks of 256 threads and 32 registers a thread (8 blocks
// fit on a multiprocessor) asks for blocks / 800 of it.
inline void gpu_with_100_sms(TraceBuilder& b) {
  DeviceInfo d;
  d.index = 0;
  d.compute_major = 9;
  d.sm_count = 100;
  b.add_device(d);
}

inline void launch_gemm(TraceBuilder& b, std::uint64_t corr, TimeNs call_us, TimeNs kernel_us, TimeNs len_us,
                        int blocks) {
  host_call(b, 1, 1, "cudaLaunchKernel", call_us * kUs, 5 * kUs, EventKind::Runtime, corr);
  KernelDetail k;
  k.grid[0] = blocks;
  k.grid[1] = k.grid[2] = 1;
  k.block[0] = 256;
  k.block[1] = k.block[2] = 1;
  k.registers_per_thread = 32;
  b.add_kernel(b.lane(gpu_lane_key(0, 7)),
               make_event(b, "gemm", kernel_us * kUs, len_us * kUs, EventKind::Kernel, corr), k);
}

// Two models' kernels of 100 us on stream 7, the second queued behind the first; a synchronize waits for both
// and returns at 212 us, 2 us after the work. No measurement: the caller adds one or not.
inline void add_two_models_on_one_stream(TraceBuilder& b, int blocks) {
  gpu_with_100_sms(b);
  forward(b, 0, 0, 20);
  forward(b, 1, 20, 40);
  launch_gemm(b, 1, 5, 10, 100, blocks);                             // handed over at 10 us, started at once
  launch_gemm(b, 2, 25, 110, 100, blocks);                           // handed over at 30 us, queued behind the first
  host_call(b, 1, 1, "cudaDeviceSynchronize", 40 * kUs, 172 * kUs);  // returns at 212 us
}

}  // namespace gtv::whatif::testing
