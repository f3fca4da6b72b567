#include "gtv/model/cuda_calls.h"

#include <string>

#include "gtv/base/text.h"

namespace gtv {
namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

}  // namespace

CudaCall cuda_call(std::string_view n) {
  if (n == "cudaStreamSynchronize" || n == "cuStreamSynchronize") return CudaCall::StreamSynchronize;
  if (n == "cudaDeviceSynchronize" || n == "cuCtxSynchronize" || n == "cudaThreadSynchronize")
    return CudaCall::DeviceSynchronize;
  if (n == "cudaEventSynchronize" || n == "cuEventSynchronize") return CudaCall::EventSynchronize;
  if (n == "cudaEventQuery" || n == "cuEventQuery" || n == "cudaStreamQuery" || n == "cuStreamQuery")
    return CudaCall::Query;
  if (n.starts_with("cudaMemcpy") || n.starts_with("cuMemcpy"))
    return contains(n, "Async") ? CudaCall::AsyncCopy : CudaCall::SyncCopy;
  if (n == "cudaFree" || n == "cuMemFree" || n == "cuMemFree_v2" || n == "cudaFreeHost" || n == "cuMemFreeHost")
    return CudaCall::Free;
  if (n.starts_with("cudaLaunchKernel") || n.starts_with("cuLaunchKernel")) return CudaCall::KernelLaunch;
  if (n.starts_with("cudaLaunch") || n.starts_with("cuLaunch") || n.starts_with("cudaGraphLaunch") ||
      n.starts_with("cuGraphLaunch"))
    return CudaCall::OtherLaunch;
  return CudaCall::Other;
}

bool is_loading_record(std::string_view name) {
  const std::string n = lower_case(name);
  if (n.starts_with("cupti") || contains(n, "buffer")) return false;
  return contains(n, "lazy") || contains(n, "module load") || contains(n, "function load");
}

bool is_module_load_call(std::string_view n) { return n.starts_with("cuLibraryLoad") || n.starts_with("cuModuleLoad"); }

RecordRole record_role(std::string_view name) {
  if (is_module_load_call(name)) return RecordRole::LazyLoading;
  const std::string n = lower_case(name);
  if (contains(n, "command buffer full")) return RecordRole::QueueFull;
  if (n.starts_with("cupti") || contains(n, "buffer") || contains(n, "instrumentation"))
    return RecordRole::TracingOverhead;
  if (contains(n, "lazy") || contains(n, "module load") || contains(n, "function load")) return RecordRole::LazyLoading;
  return RecordRole::None;
}

bool is_queue_full_record(std::string_view name) { return contains(lower_case(name), "command buffer full"); }

}  // namespace gtv
