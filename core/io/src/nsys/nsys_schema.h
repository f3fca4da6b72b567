#pragma once
// What gtv reads of Nsight Systems' SQLite export (`nsys export --type sqlite`), named as in NVIDIA's "SQLite
// Schema Reference" (Nsight Systems documentation, schema 3.x). Tables are created lazily, so any of them may be
// missing from a report; columns are looked up by name, so added columns and reordered ones do not matter.
#include <cstdint>
#include <string_view>

#include "gtv/model/cupti_kinds.h"
#include "gtv/model/event.h"

namespace gtv::io::nsys {

inline constexpr std::string_view kStringIds = "StringIds";
inline constexpr std::string_view kKernels = "CUPTI_ACTIVITY_KIND_KERNEL";
inline constexpr std::string_view kCopies = "CUPTI_ACTIVITY_KIND_MEMCPY";
inline constexpr std::string_view kMemsets = "CUPTI_ACTIVITY_KIND_MEMSET";
inline constexpr std::string_view kRuntimeCalls = "CUPTI_ACTIVITY_KIND_RUNTIME";
inline constexpr std::string_view kNvtxEvents = "NVTX_EVENTS";
inline constexpr std::string_view kGpus = "TARGET_INFO_GPU";
inline constexpr std::string_view kThreadNames = "ThreadNames";
inline constexpr std::string_view kProcesses = "PROCESSES";
inline constexpr std::string_view kExportInfo = "META_DATA_EXPORT";
inline constexpr std::string_view kSessionStart = "TARGET_INFO_SESSION_START_TIME";

// The tables that hold events, in the order they are read (runtime calls first: their processes number the
// correlation ids, see NsysReader::correlation).
inline constexpr std::string_view kEventTables[] = {kRuntimeCalls, kKernels, kCopies, kMemsets, kNvtxEvents};

// Every table gtv reads; none may be a view or a virtual table.
inline constexpr std::string_view kTablesRead[] = {kStringIds,    kKernels,    kCopies,      kMemsets,
                                                   kRuntimeCalls, kNvtxEvents, kGpus,        kThreadNames,
                                                   kProcesses,    kExportInfo, kSessionStart};

// Serialized global ids ("Serialized process and thread identifiers" in NVIDIA's SQLite examples): the process
// id is in bits 24..47, the thread id in bits 0..23.
[[nodiscard]] inline std::int64_t pid_of(std::int64_t global_id) { return (global_id >> 24) & 0xFFFFFF; }
[[nodiscard]] inline std::int64_t tid_of(std::int64_t global_tid) { return global_tid & 0xFFFFFF; }

// NVTX_EVENTS.eventType values (ENUM_NSYS_EVENT_TYPE).
inline constexpr std::int64_t kNvtxMark = 34;
inline constexpr std::int64_t kNvtxPushPopRange = 59;
inline constexpr std::int64_t kNvtxStartEndRange = 60;

// copyKind, srcKind, dstKind and memKind hold CUPTI's enum values (CUpti_ActivityMemcpyKind,
// CUpti_ActivityMemoryKind), which ENUM_CUDA_MEMCPY_OPER and ENUM_CUDA_MEM_KIND name: the model's table reads them.
using gtv::copy_kind_from_cupti;
using gtv::memory_kind_from_cupti;

// nsys names runtime calls by CUPTI's callback names, which end in the version of the API
// ("cudaLaunchKernel_v7000"); Kineto, gtv's recorder and its analyses use the name without it.
[[nodiscard]] std::string_view runtime_call_name(std::string_view name);

}  // namespace gtv::io::nsys
