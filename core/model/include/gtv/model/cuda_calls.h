#pragma once
// The CUDA call vocabulary: what the name of a runtime or driver call, or of a CUPTI record, says about the GPU.
// One table for every reader of names: the happens-before graph (core/causal: which calls wait, which launch) and
// the host-blocking, warm-up and tracing-cost analyses (core/analysis), so the critical path and the host-blocking
// analysis agree about which calls wait.
#include <cstdint>
#include <string_view>

namespace gtv {

enum class CudaCall : std::uint8_t {
  Other,              // returns without waiting for the GPU (and launches nothing)
  StreamSynchronize,  // cudaStreamSynchronize, cuStreamSynchronize
  DeviceSynchronize,  // cudaDeviceSynchronize, cuCtxSynchronize, cudaThreadSynchronize
  EventSynchronize,   // cudaEventSynchronize, cuEventSynchronize
  Query,              // cudaEventQuery, cudaStreamQuery and their driver calls: ask without waiting
  SyncCopy,           // cudaMemcpy*, cuMemcpy* without "Async": waits for the GPU as a side effect
  AsyncCopy,          // the *Async copies: wait only when their host memory is pageable (known from the copy)
  Free,               // cudaFree, cuMemFree(_v2), cudaFreeHost, cuMemFreeHost: wait for all work on the device (the
                      // stream-ordered *Async frees do not)
  KernelLaunch,       // cudaLaunchKernel*, cuLaunchKernel*
  OtherLaunch,        // the other launches of GPU work: cudaLaunch*, cuLaunch*, cudaGraphLaunch*, cuGraphLaunch*
};
[[nodiscard]] CudaCall cuda_call(std::string_view api_name);

// Stream, device or event synchronize.
[[nodiscard]] constexpr bool is_explicit_sync(CudaCall c) {
  return c == CudaCall::StreamSynchronize || c == CudaCall::DeviceSynchronize || c == CudaCall::EventSynchronize;
}
// A call that hands work to the GPU: a kernel launch, a graph launch, a host function launch...
[[nodiscard]] constexpr bool launches_work(CudaCall c) {
  return c == CudaCall::KernelLaunch || c == CudaCall::OtherLaunch;
}

// CUPTI's records of module or lazy function loading, in every spelling seen ("lazy function loading", "Lazy
// Function Loading", "module loading", "Module Load"); its own records ("CUPTI buffer flush", "Activity Buffer
// Request", "CUPTI instrumentation") are tracer cost, not loading.
[[nodiscard]] bool is_loading_record(std::string_view name);
// The driver calls that load a module: cuLibraryLoad*, cuModuleLoad*.
[[nodiscard]] bool is_module_load_call(std::string_view api_name);
// The launch queue being full: "command buffer full" in any case (gtv's spelling and Kineto's).
[[nodiscard]] bool is_queue_full_record(std::string_view name);

// The role of a CUPTI overhead record or of a call nested in another, with one lower-casing of its name: module
// loading (a module-load call, or a loading record), the tracer's own time ("CUPTI ...", "... buffer ...", "...
// instrumentation"), the launch queue being full.
enum class RecordRole : std::uint8_t { None, LazyLoading, TracingOverhead, QueueFull };
[[nodiscard]] RecordRole record_role(std::string_view name);

}  // namespace gtv
