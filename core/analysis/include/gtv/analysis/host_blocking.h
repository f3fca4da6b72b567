#pragma once
// Where host threads waited for the GPU: explicit synchronization (stream, device, event), synchronous copies,
// and asynchronous copies that silently block because their host memory is pageable.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/model/trace.h"

namespace gtv::analysis {

enum class BlockingKind : std::uint8_t {
  StreamSync,     // cudaStreamSynchronize, "Stream Sync"
  DeviceSync,     // cudaDeviceSynchronize, cuCtxSynchronize
  EventSync,      // cudaEventSynchronize
  OtherSync,      // another cuda_sync event on a host thread
  SyncCopy,       // cudaMemcpy and other copies without Async: the host waits by definition
  PageableAsyncCopy,  // cudaMemcpyAsync to/from pageable memory: "async" in name only
};
[[nodiscard]] std::string_view to_string(BlockingKind kind);  // "stream synchronize", ...

struct BlockingCall {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::string name;
  BlockingKind kind = BlockingKind::StreamSync;
  TimeNs start_ns = 0;
  TimeNs duration_ns = 0;
  std::int64_t device = -1;  // GPU of the joined copy, -1 if unknown
  bool to_pageable = false;  // PageableAsyncCopy: the pageable side is the destination
};

struct ThreadBlocking {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::string name;
  std::size_t call_count = 0;
  TimeNs blocked_ns = 0;  // union of the thread's blocking calls (nested calls count once)
  TimeNs span_ns = 0;     // first start to last end of the thread's events
  double blocked_share = 0;  // blocked / span
};

struct HostBlocking {
  std::vector<ThreadBlocking> threads;  // only threads that blocked, in lane order
  std::vector<BlockingCall> calls;      // outermost blocking calls, by start
  TimeNs total_blocked_ns = 0;          // sum over threads
  std::vector<std::string> findings;    // plain words, largest first
  std::string headline;                 // what blocked most ("cudaMemcpyAsync to pageable memory blocked ...")
};

// The kind of a host API call by name alone; false if it does not block by itself (async copies need their
// memory kind, known only through the flow to the copy).
[[nodiscard]] bool blocking_kind_of_call(std::string_view name, BlockingKind& kind);
[[nodiscard]] bool is_async_copy_call(std::string_view name);

[[nodiscard]] HostBlocking analyze_host_blocking(const Trace& trace);

}  // namespace gtv::analysis
