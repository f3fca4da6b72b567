#pragma once
// Raw CUPTI activity records -> gtv records. Pure functions: no CUPTI calls, so they are unit-tested with
// synthetic records on machines without a GPU. The record layouts are named in cupti_records.h. The work on the
// timeline (kernels, copies, memsets, API calls, synchronizations) converts in record_conversion.cpp; the records
// about the machine and the tracer, and NVTX markers, in machine_and_marker_records.cpp.
#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "cupti_records.h"
#include "gtv/collect/records.h"

namespace gtv::collect::cupti {

[[nodiscard]] CopyKind copy_kind_from_cupti(std::uint32_t cupti_memcpy_kind);
// Pageable vs pinned decides whether a copy can overlap anything, so this mapping matters.
[[nodiscard]] MemoryKind memory_kind_from_cupti(std::uint32_t cupti_memory_kind);
[[nodiscard]] SyncKind sync_kind_from_cupti(std::uint32_t cupti_sync_type);
[[nodiscard]] std::string_view overhead_name(std::uint32_t cupti_overhead_kind);
// The demangled kernel name, or the name as given when it is not a mangled C++ name; "" for nullptr.
[[nodiscard]] std::string demangle(const char* name);
// cuptiGetCallbackName gives "cudaLaunchKernel_v7000": the runtime's version suffix (_v and 4+ digits) goes;
// driver names keep theirs, which are part of the real name (cuMemcpyDtoHAsync_v2).
[[nodiscard]] std::string api_name_from_callback_name(std::string_view callback_name);
// "runtime API 211" when CUPTI cannot name a callback id.
[[nodiscard]] std::string fallback_api_name(ApiKind api, std::uint32_t cbid);
// CUPTI's 32-bit "invalid" ids (CUPTI_INVALID_STREAM_ID ...) become gtv's -1.
[[nodiscard]] std::int64_t id_or_unknown(std::uint32_t cupti_id);

// sm_count: multiprocessors of the kernel's device (from its DEVICE record), 0 if unknown; gives blocks per SM.
[[nodiscard]] KernelRecord to_kernel_record(const KernelActivity& k, std::int32_t sm_count);
[[nodiscard]] MemcpyRecord to_memcpy_record(const MemcpyActivity& m);
[[nodiscard]] MemcpyRecord to_memcpy_record(const PeerMemcpyActivity& m);
[[nodiscard]] MemsetRecord to_memset_record(const MemsetActivity& m);
// name: cuptiGetCallbackName's answer, looked up by the caller (a CUPTI call, so not done here).
[[nodiscard]] ApiCallRecord to_api_record(const ApiActivity& a, ApiKind api, std::string name);
[[nodiscard]] SyncRecord to_sync_record(const SyncActivity& s);
[[nodiscard]] CudaEventRecord to_event_record(const CudaEventActivity& e);
[[nodiscard]] OverheadRecord to_overhead_record(const OverheadActivity& o);
[[nodiscard]] DeviceRecord to_device_record(const DeviceActivity& d);
[[nodiscard]] ContextRecord to_context_record(const ContextActivity& c);
// nullopt for operations other than allocation and release (pool bookkeeping).
[[nodiscard]] std::optional<MemoryRecord> to_memory_record(const MemoryActivity& m);

// NVTX ranges arrive as two MARKER records: the start (with a name) and the end (same id, no name), possibly
// in different buffers. Instantaneous markers come as one record.
class MarkerPairer {
 public:
  // The finished marker when r completes one (an end whose start was seen, or an instant), else nullopt.
  [[nodiscard]] std::optional<MarkerRecord> add(const MarkerActivity& r);
  // Starts still waiting for their end (ranges left open when recording stopped).
  [[nodiscard]] std::size_t open_count() const { return open_.size(); }
  // Ends whose start was never seen (the start came before recording began).
  [[nodiscard]] std::size_t orphan_end_count() const { return orphan_ends_; }

 private:
  std::map<std::uint32_t, MarkerRecord> open_;
  std::size_t orphan_ends_ = 0;
};

}  // namespace gtv::collect::cupti
