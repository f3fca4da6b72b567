#pragma once
// Per-kernel statistics: count, total, mean, min, max and share of kernel time, over all GPUs and per GPU.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/analysis/kernel_names.h"
#include "gtv/model/trace.h"

namespace gtv::analysis {

struct KernelStat {
  std::string name;          // short; "name [2]" when two different kernels shorten to the same text
  std::string full_name;     // demangled, as complete as the trace has it
  std::int64_t device = -1;  // -1 in the all-GPU table
  std::size_t count = 0;
  TimeNs total_ns = 0;
  TimeNs mean_ns = 0;
  TimeNs min_ns = 0;
  TimeNs max_ns = 0;
  double share = 0;  // of the kernel time of the table (all GPUs, or this GPU)
};

struct KernelStats {
  TimeNs total_kernel_ns = 0;
  std::size_t kernel_count = 0;
  std::vector<KernelStat> kernels;     // all GPUs; by total time, largest first, then name
  std::vector<KernelStat> per_device;  // by device, then as above
};

[[nodiscard]] KernelStats analyze_kernels(const Trace& trace);

}  // namespace gtv::analysis
