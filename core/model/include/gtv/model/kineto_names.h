#pragma once
// Kineto's vocabulary (PyTorch profiler traces): category names, "args" keys, flow categories, metadata event
// names and the display names Kineto gives copies, memsets and threads. Every importer and the writer spell them
// from here, so a trace read from another format (an Nsight Systems export) names its events exactly as the same
// activity recorded by Kineto would.
#include <cstdint>
#include <string>
#include <string_view>

#include "gtv/model/event.h"

namespace gtv::kineto {

// TraceMetadata::source_tool of a trace read from a PyTorch profiler (Kineto) file.
inline constexpr std::string_view kSourceTool = "PyTorch Profiler (Kineto)";

// Event categories ("cat").
inline constexpr std::string_view kCategoryKernel = "kernel";
inline constexpr std::string_view kCategoryGpuMemcpy = "gpu_memcpy";
inline constexpr std::string_view kCategoryGpuMemset = "gpu_memset";
inline constexpr std::string_view kCategoryCudaRuntime = "cuda_runtime";
inline constexpr std::string_view kCategoryCudaDriver = "cuda_driver";
inline constexpr std::string_view kCategoryCudaSync = "cuda_sync";
inline constexpr std::string_view kCategoryCpuOp = "cpu_op";
inline constexpr std::string_view kCategoryUserAnnotation = "user_annotation";
inline constexpr std::string_view kCategoryGpuUserAnnotation = "gpu_user_annotation";  // an annotation on a GPU lane
inline constexpr std::string_view kCategoryOverhead = "overhead";
inline constexpr std::string_view kCategoryInstant = "instant";
// Kineto's span of the whole profile ("PyTorch Profiler (0)" on the "Spans" process): a marker, not activity.
inline constexpr std::string_view kCategoryProfilerSpan = "Trace";

// Flow categories: a launch to its GPU work, a forward op to its backward op; and gtv's own, which Kineto does not
// write: the GPU work a synchronization waited for to what waited (FlowKind::Dependency).
inline constexpr std::string_view kFlowLaunchToGpu = "ac2g";
inline constexpr std::string_view kFlowForwardToBackward = "fwdbwd";
inline constexpr std::string_view kFlowDependency = "gtv_dependency";

// Names of "cuda_sync" events (Kineto's syncTypeString, which gtv's recorder uses too) and the args of the event
// waits: the stream the waited-for event was recorded on and the correlation id of that cudaEventRecord.
inline constexpr std::string_view kSyncEventSynchronize = "Event Sync";
inline constexpr std::string_view kSyncStreamWaitEvent = "Stream Wait Event";
inline constexpr std::string_view kSyncStreamSynchronize = "Stream Sync";
inline constexpr std::string_view kSyncContextSynchronize = "Context Sync";
inline constexpr std::string_view kArgWaitOnStream = "wait_on_stream";
inline constexpr std::string_view kArgWaitOnEventRecordCorrelation = "wait_on_cuda_event_record_corr_id";

// "args" keys of events.
inline constexpr std::string_view kArgDevice = "device";
inline constexpr std::string_view kArgStream = "stream";
inline constexpr std::string_view kArgCorrelation = "correlation";
inline constexpr std::string_view kArgGrid = "grid";
inline constexpr std::string_view kArgBlock = "block";
inline constexpr std::string_view kArgRegistersPerThread = "registers per thread";
inline constexpr std::string_view kArgSharedMemory = "shared memory";
inline constexpr std::string_view kArgBlocksPerSm = "blocks per SM";
inline constexpr std::string_view kArgOccupancy = "est. achieved occupancy %";
inline constexpr std::string_view kArgGraphId = "graph id";  // kernels of a CUDA graph launch
inline constexpr std::string_view kArgGraphNodeId = "graph node id";
inline constexpr std::string_view kArgBytes = "bytes";
inline constexpr std::string_view kArgMemoryBandwidth = "memory bandwidth (GB/s)";
inline constexpr std::string_view kArgCopyKind = "copy kind";
inline constexpr std::string_view kArgSrcKind = "src kind";
inline constexpr std::string_view kArgDstKind = "dst kind";
inline constexpr std::string_view kArgDstDevice = "dst device";
inline constexpr std::string_view kArgMemoryKind = "memory kind";
inline constexpr std::string_view kArgValue = "value";
inline constexpr std::string_view kArgExternalId = "External id";
inline constexpr std::string_view kArgEventIndex = "Ev Idx";

// PyTorch's memory events (profile_memory=True): an instant per allocation or free in the caching allocators,
// with the allocator's totals after it. "Device Type" 0 (and "Device Id" -1) is the CPU.
inline constexpr std::string_view kMemoryEventName = "[memory]";
inline constexpr std::string_view kArgTotalAllocated = "Total Allocated";
inline constexpr std::string_view kArgTotalReserved = "Total Reserved";
inline constexpr std::string_view kArgDeviceId = "Device Id";
inline constexpr std::string_view kArgDeviceType = "Device Type";

// Metadata ("M") events and their args.
inline constexpr std::string_view kMetaProcessName = "process_name";
inline constexpr std::string_view kMetaProcessLabels = "process_labels";
inline constexpr std::string_view kMetaProcessSortIndex = "process_sort_index";
inline constexpr std::string_view kMetaThreadName = "thread_name";
inline constexpr std::string_view kMetaThreadSortIndex = "thread_sort_index";
inline constexpr std::string_view kArgName = "name";
inline constexpr std::string_view kArgLabels = "labels";
inline constexpr std::string_view kArgSortIndex = "sort_index";

// Display names.
[[nodiscard]] std::string memcpy_event_name(const MemcpyDetail& detail);  // "Memcpy HtoD (Pageable -> Device)"
[[nodiscard]] std::string memset_event_name(const MemsetDetail& detail);  // "Memset (Device)"
[[nodiscard]] std::string thread_lane_name(std::int64_t tid, std::string_view thread_name);  // "thread 7 (python)"

// PyTorch's multiprocessing DataLoader's __next__ ("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"):
// the main thread waiting for the worker processes to deliver the next batch, or receiving it. The single-process
// iterator's __next__ ("..._SingleProcessDataLoaderIter.__next__") loads the batch itself and is not one.
[[nodiscard]] bool is_data_loader_next(std::string_view name);

// A profiler step's annotation ("ProfilerStep#3"): from one profiler.step() call to the next.
[[nodiscard]] bool is_profiler_step(std::string_view name);

}  // namespace gtv::kineto
