#pragma once
// What the names of CUDA calls and CUPTI records say about dependencies: which calls launch work, which wait for
// the GPU, which records are the tracer's own time or lazy module loading. Read from the model's one CUDA call
// vocabulary (gtv/model/cuda_calls.h), which the host-blocking analysis reads too. Internal to gtv_causal.
#include <cstdint>
#include <string_view>

#include "gtv/model/cuda_calls.h"

namespace gtv::causal::detail {

enum class CallWait : std::uint8_t {
  None,         // returns without waiting for the GPU
  Explicit,     // stream / device / event synchronize
  Implicit,     // a synchronous copy, cudaFree: waits as a side effect
  AsyncCopy,    // cudaMemcpyAsync: waits only when its host memory is pageable (known from its copy)
  NonBlocking,  // cudaEventQuery, cudaStreamQuery: asks without waiting (a sync record inside one is no wait)
};
[[nodiscard]] CallWait call_wait(std::string_view api_name);
[[nodiscard]] bool is_launch_call(std::string_view api_name);
// What a synchronize waits for by its name: all work queued on the thread's current device (cudaDeviceSynchronize
// and its driver and legacy names), or that of one stream (cudaStreamSynchronize, cuStreamSynchronize).
enum class SyncScope : std::uint8_t { None, Device, Stream };
[[nodiscard]] SyncScope sync_scope(std::string_view api_name);

// The role of a CUPTI overhead record or a call nested in another (gtv/model/cuda_calls.h).
using gtv::record_role;
using gtv::RecordRole;

// A range the thread spends waiting for another process: PyTorch's "enumerate(DataLoader)#_MultiProcessing
// DataLoaderIter.__next__", in which the main thread waits for the DataLoader's worker processes to deliver the next
// batch (the single-process iterator loads the batch itself: its range is work).
[[nodiscard]] bool is_waiting_range(std::string_view name);

}  // namespace gtv::causal::detail
