#pragma once
// Where host threads waited for the GPU, each stall named and totalled: explicit synchronization (stream, device,
// event), synchronous copies, asynchronous copies that silently block because their host memory is pageable,
// implicit synchronization (cudaFree and friends), launches that waited because the launch queue was full
// (CUPTI's "command buffer full" overhead records), and launches that waited for the GPU to drain so the driver
// could load a module lazily.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/base/enum_table.h"
#include "gtv/model/trace.h"

namespace gtv::analysis {

enum class BlockingKind : std::uint8_t {
  StreamSync,         // cudaStreamSynchronize, "Stream Sync"
  DeviceSync,         // cudaDeviceSynchronize, cuCtxSynchronize
  EventSync,          // cudaEventSynchronize
  OtherSync,          // another cuda_sync event on a host thread
  SyncCopy,           // cudaMemcpy and other copies without Async: the host waits by definition
  PageableAsyncCopy,  // cudaMemcpyAsync to/from pageable memory: "async" in name only
  ImplicitSync,       // cudaFree, cudaFreeHost, cudaHostAlloc...: calls that synchronize the device as a side effect
  LaunchQueueFull,    // a launch waited for room in the GPU's command queue ("command buffer full")
  LazyLoadingDrain,   // a launch waited for queued GPU work to finish so its module could be loaded lazily
  SynchronousLaunch,  // a launch returned only after its own kernel finished (what CUDA_LAUNCH_BLOCKING=1 does)
};
inline constexpr std::array<EnumEntry<BlockingKind>, 10> kBlockingKinds{{
    {BlockingKind::StreamSync, "stream_sync", "stream synchronize"},
    {BlockingKind::DeviceSync, "device_sync", "device synchronize"},
    {BlockingKind::EventSync, "event_sync", "event synchronize"},
    {BlockingKind::OtherSync, "other_sync", "synchronization"},
    {BlockingKind::SyncCopy, "sync_copy", "synchronous copy"},
    {BlockingKind::PageableAsyncCopy, "pageable_async_copy", "async copy with pageable memory"},
    {BlockingKind::ImplicitSync, "implicit_sync", "implicit synchronization"},
    {BlockingKind::LaunchQueueFull, "launch_queue_full", "launch queue full"},
    {BlockingKind::LazyLoadingDrain, "lazy_loading_drain", "lazy loading drained the GPU"},
    {BlockingKind::SynchronousLaunch, "synchronous_launch", "synchronous launch"},
}};
static_assert(in_enum_order(kBlockingKinds));
inline constexpr int kBlockingKindCount = static_cast<int>(kBlockingKinds.size());
[[nodiscard]] std::string_view to_string(BlockingKind kind);          // "stream synchronize", ...
[[nodiscard]] std::string_view blocking_kind_key(BlockingKind kind);  // stable JSON key: "stream_sync", ...

struct BlockingCall {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::string name;
  BlockingKind kind = BlockingKind::StreamSync;
  TimeNs start_ns = 0;
  TimeNs duration_ns = 0;
  std::int64_t device = -1;  // GPU of the joined copy, -1 if unknown
  bool to_pageable = false;  // PageableAsyncCopy: the pageable side is the destination
  // LaunchQueueFull: the start of the launch call that waited (the record's own start when none encloses it).
  // Several waits inside one launch are one call.
  TimeNs launch_start_ns = -1;
};

struct ThreadBlocking {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::string name;
  std::size_t call_count = 0;
  TimeNs blocked_ns = 0;     // union of the thread's blocking calls (nested calls count once)
  TimeNs span_ns = 0;        // first start to last end of the thread's events
  double blocked_share = 0;  // blocked / span
};

// One kind of stall with its total over the trace: "launch queue full: 136.9 ms in 412 launches".
struct StallTotal {
  BlockingKind kind = BlockingKind::StreamSync;
  std::size_t call_count = 0;
  TimeNs total_ns = 0;
};

struct HostBlocking {
  std::vector<ThreadBlocking> threads;  // only threads that blocked, in lane order
  std::vector<StallTotal> stalls;       // per kind over all threads, largest total first
  std::vector<BlockingCall> calls;      // outermost blocking calls, by start
  TimeNs total_blocked_ns = 0;          // sum over threads
  std::vector<std::string> findings;    // plain words, largest first
  std::string headline;                 // what blocked most ("cudaMemcpyAsync to pageable memory blocked ...")
};

// The kind of a host API call by name alone; false if it does not block by itself (async copies need their
// memory kind, known only through the flow to the copy).
[[nodiscard]] bool blocking_kind_of_call(std::string_view name, BlockingKind& kind);
[[nodiscard]] bool is_async_copy_call(std::string_view name);

// What blocked, as a short noun phrase to use inside a sentence: "cudaMemcpyAsync to pageable memory",
// "cudaDeviceSynchronize", "synchronous cudaMemcpy", "launch queue full", "lazy module loading drained the GPU".
[[nodiscard]] std::string describe_blocking(const BlockingCall& call);

[[nodiscard]] HostBlocking analyze_host_blocking(const Trace& trace);

}  // namespace gtv::analysis
