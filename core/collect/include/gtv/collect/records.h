#pragma once
// Plain records that a collector (CUPTI, a test, a replay) hands to an ActivitySink. Times are absolute Unix
// nanoseconds (CUPTI's clock on Linux is CLOCK_REALTIME, the same as std::chrono::system_clock); the
// TraceRecorder turns them into times relative to its origin. Details reuse the model's side-table structs so
// nothing is translated twice.
#include <cstdint>
#include <string>

#include "gtv/base/time.h"
#include "gtv/model/event.h"
#include "gtv/model/records.h"

namespace gtv::collect {

using UnixNs = std::int64_t;  // absolute time, ns since the Unix epoch

inline constexpr std::int32_t kUnknownDevice = -1;
inline constexpr std::int64_t kUnknownStream = -1;

struct KernelRecord {
  std::string name;  // demangled when possible
  UnixNs start_ns = 0;
  UnixNs end_ns = 0;
  std::int32_t device = kUnknownDevice;
  std::uint32_t context_id = 0;
  std::int64_t stream = kUnknownStream;
  std::uint64_t correlation_id = kNoCorrelation;
  KernelDetail detail;
};

struct MemcpyRecord {
  UnixNs start_ns = 0;
  UnixNs end_ns = 0;
  std::int32_t device = kUnknownDevice;  // the device whose stream ran the copy (source device of a peer copy)
  std::uint32_t context_id = 0;
  std::int64_t stream = kUnknownStream;
  std::uint64_t correlation_id = kNoCorrelation;
  MemcpyDetail detail;  // bytes, copy kind, pageable/pinned/device on each side, dst_device of peer copies
};

struct MemsetRecord {
  UnixNs start_ns = 0;
  UnixNs end_ns = 0;
  std::int32_t device = kUnknownDevice;
  std::uint32_t context_id = 0;
  std::int64_t stream = kUnknownStream;
  std::uint64_t correlation_id = kNoCorrelation;
  MemsetDetail detail;
};

enum class ApiKind : std::uint8_t { Runtime, Driver };

// A CUDA runtime or driver API call on a host thread.
struct ApiCallRecord {
  ApiKind api = ApiKind::Runtime;
  std::uint32_t cbid = 0;  // CUPTI callback id (CUpti_runtime_api_trace_cbid / CUpti_driver_api_trace_cbid)
  std::string name;        // "cudaLaunchKernel", "cuMemcpyDtoHAsync_v2"
  UnixNs start_ns = 0;
  UnixNs end_ns = 0;
  std::int64_t pid = 0;
  std::int64_t tid = 0;  // OS thread id (gettid) where known, else CUPTI's thread id
  std::uint64_t correlation_id = kNoCorrelation;
  std::int32_t return_value = 0;  // cudaError_t / CUresult
};

enum class SyncKind : std::uint8_t {
  Unknown,
  EventSynchronize,
  StreamWaitEvent,
  StreamSynchronize,
  ContextSynchronize
};
[[nodiscard]] std::string_view to_string(SyncKind kind);  // "Event Sync", "Stream Wait Event", ...

inline constexpr std::int64_t kUnknownCudaEvent = -1;
inline constexpr std::uint64_t kNoEventSyncId = 0;

// The host waited on the GPU, or a stream was made to wait for an event. CUPTI's SYNCHRONIZATION records carry no
// thread id, only the correlation id of the API call that waited; the TraceRecorder places the record on that
// call's host lane (see trace_recorder.h) and links it to the work it waited for.
struct SyncRecord {
  SyncKind kind = SyncKind::Unknown;
  UnixNs start_ns = 0;
  UnixNs end_ns = 0;
  std::int32_t device = kUnknownDevice;  // from the context, when known
  std::uint32_t context_id = 0;
  std::int64_t stream = kUnknownStream;  // StreamSynchronize: the stream waited on; StreamWaitEvent: the stream
                                         // made to wait
  std::uint64_t correlation_id = kNoCorrelation;
  std::int64_t cuda_event = kUnknownCudaEvent;   // EventSynchronize, StreamWaitEvent: the event waited on
  std::uint64_t event_sync_id = kNoEventSyncId;  // the CudaEventRecord this waits on, where CUPTI says
};

// A cudaEventRecord (CUPTI CUDA_EVENT): the event completes once the work queued on `stream` before it has.
struct CudaEventRecord {
  std::int32_t device = kUnknownDevice;
  std::uint32_t context_id = 0;
  std::int64_t stream = kUnknownStream;
  std::int64_t cuda_event = kUnknownCudaEvent;
  std::uint64_t correlation_id = kNoCorrelation;  // the cudaEventRecord call's
  std::uint64_t event_sync_id = kNoEventSyncId;   // matches SyncRecord::event_sync_id of the waits on this record
};

// Time the tracer or the driver spent on itself (CUPTI buffer flush, lazy function loading, compilation).
struct OverheadRecord {
  std::string name;  // "CUPTI buffer flush", "lazy function loading"
  UnixNs start_ns = 0;
  UnixNs end_ns = 0;
  bool on_host = true;  // true: (pid, tid) is set; false: (device, stream) is set
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::int32_t device = kUnknownDevice;
  std::int64_t stream = kUnknownStream;
  std::uint64_t correlation_id = kNoCorrelation;
};

// An NVTX range or instant (CUPTI MARKER start and end already paired).
struct MarkerRecord {
  std::string name;
  std::string domain;  // empty for the default domain
  UnixNs start_ns = 0;
  UnixNs end_ns = 0;  // == start_ns for an instant marker
  bool instant = false;
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::uint64_t id = 0;  // CUPTI marker id
};

struct DeviceRecord {
  DeviceInfo info;  // index, name, memory, compute capability, SM count
};

// A CUDA context: which device it lives on and which stream id is its legacy default stream.
struct ContextRecord {
  std::uint32_t context_id = 0;
  std::int32_t device = kUnknownDevice;
  std::int64_t null_stream = kUnknownStream;
};

enum class MemoryOperation : std::uint8_t { Allocate, Release };

// A device or pinned allocation/free (CUPTI MEMORY2), used to plot memory in use per device.
struct MemoryRecord {
  MemoryOperation operation = MemoryOperation::Allocate;
  MemoryKind memory_kind = MemoryKind::Unknown;
  UnixNs time_ns = 0;
  std::int64_t bytes = 0;
  std::uint64_t address = 0;
  std::int32_t device = kUnknownDevice;
  std::int64_t stream = kUnknownStream;
  std::int64_t pid = 0;
  std::uint64_t correlation_id = kNoCorrelation;
};

}  // namespace gtv::collect
