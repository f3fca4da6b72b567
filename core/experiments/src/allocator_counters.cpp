#include "allocator_counters.h"

#include "gtv/model/counter_names.h"

#if GTV_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>

#include <cstddef>
#endif

namespace gtv::exp {
namespace {

#if GTV_TORCH_CUDA
// StatType::AGGREGATE (every pool together) indexes the allocator's StatArrays: 0 in LibTorch 1.13 and 2.x, whose
// namespaces for it differ.
constexpr std::size_t kAggregateStat = 0;

struct AllocatorBytes {
  double allocated = 0;
  double reserved = 0;
};

// The allocator's current bytes on device. Before the allocator has started (no CUDA tensor yet) it holds nothing,
// and getDeviceStats says so by throwing.
AllocatorBytes allocator_bytes(int device) {
  try {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
    return {static_cast<double>(stats.allocated_bytes[kAggregateStat].current),
            static_cast<double>(stats.reserved_bytes[kAggregateStat].current)};
  } catch (const c10::Error&) {
    return {};
  }
}

void sample(collect::TraceRecorder& recorder, const std::vector<int>& devices, collect::UnixNs time_ns) {
  for (int device : devices) {
    const AllocatorBytes bytes = allocator_bytes(device);
    recorder.add_counter_sample(device, counters::kTorchAllocated, time_ns, bytes.allocated);
    recorder.add_counter_sample(device, counters::kTorchReserved, time_ns, bytes.reserved);
  }
}
#endif

}  // namespace

AllocatorCounters::AllocatorCounters(collect::HostRecorder& host, const std::vector<int>& devices) : host_(host) {
#if GTV_TORCH_CUDA
  std::vector<int> gpus;
  for (int d : devices)
    if (d >= 0) gpus.push_back(d);
  if (gpus.empty()) return;
  host_.set_range_boundary_hook(
      [&recorder = host_.recorder(), gpus](collect::UnixNs time_ns) { sample(recorder, gpus, time_ns); });
  hooked_ = true;
#else
  (void)devices;
#endif
}

AllocatorCounters::~AllocatorCounters() {
  if (hooked_) host_.set_range_boundary_hook({});
}

}  // namespace gtv::exp
