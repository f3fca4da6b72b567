#pragma once
// The events of a trace. An Event is a compact POD; per-kind details (launch configuration, bytes, copy kind)
// live in side tables of the Trace, found through Event::detail.
#include <cstdint>
#include <string_view>

#include "gtv/base/string_pool.h"
#include "gtv/base/time.h"

namespace gtv {

enum class EventKind : std::uint8_t {
  Kernel,      // GPU kernel                                   (Kineto cat "kernel")
  Memcpy,      // GPU copy                                     ("gpu_memcpy")
  Memset,      // GPU memset                                   ("gpu_memset")
  Runtime,     // CUDA runtime API call on a host thread       ("cuda_runtime")
  Driver,      // CUDA driver API call                         ("cuda_driver")
  Sync,        // synchronization (stream/event/device wait)   ("cuda_sync")
  CpuOp,       // framework operator (aten::mm)                ("cpu_op")
  Annotation,  // user range (record_function, NVTX)           ("user_annotation", "gpu_user_annotation")
  Overhead,    // tracer/driver overhead (CUPTI OVERHEAD)      ("overhead")
  Instant,     // zero-length marker ("i" events)
  Other,       // any other category, kept with its name
};
inline constexpr int kEventKindCount = 11;

[[nodiscard]] std::string_view to_string(EventKind kind);
// Kineto category for a kind ("kernel", "gpu_memcpy", ...).
[[nodiscard]] std::string_view kineto_category(EventKind kind);
[[nodiscard]] bool is_gpu_activity(EventKind kind);  // Kernel, Memcpy, Memset

inline constexpr std::uint32_t kNoDetail = 0xffffffffu;
inline constexpr std::uint32_t kNoArgs = 0xffffffffu;
inline constexpr std::uint64_t kNoCorrelation = 0;
inline constexpr std::int64_t kNoExternalId = INT64_MIN;  // Trace::external_id: none

struct Event {
  TimeNs start_ns = 0;  // relative to the trace origin
  TimeNs duration_ns = 0;
  std::uint64_t correlation_id = kNoCorrelation;  // joins a launch (host) to its GPU activity
  StringId name = kEmptyString;
  std::uint32_t detail = kNoDetail;  // index into the kind's side table (kernels, memcpys, memsets), or the
                                     // category name for EventKind::Other
  std::uint16_t depth = 0;           // nesting level within its lane, assigned by the builder
  EventKind kind = EventKind::Other;
  std::uint32_t args = kNoArgs;  // the file's args that the model does not hold (Trace::extra_args); fits in the
                                 // padding after kind

  [[nodiscard]] TimeNs end_ns() const { return start_ns + duration_ns; }
};
static_assert(sizeof(Event) == 40, "Event must stay compact: it is stored once per event");

// Side tables.
struct KernelDetail {
  std::int32_t grid[3] = {0, 0, 0};
  std::int32_t block[3] = {0, 0, 0};
  std::int32_t registers_per_thread = 0;
  std::int32_t shared_memory_bytes = 0;  // static + dynamic
  std::int32_t blocks_per_sm_x100 = 0;   // Kineto "blocks per SM" x 100, 0 if unknown
  std::int32_t occupancy_pct = -1;       // Kineto "est. achieved occupancy %", -1 if unknown
  // A kernel that a CUDA graph launch ran names its graph and the graph's node (CUPTI's graphId and graphNodeId,
  // Kineto's "graph id" and "graph node id"); 0 for a kernel launched on its own, as CUPTI reports it. Its
  // correlation id is then the graph launch's (cudaGraphLaunch), shared by every kernel of that launch.
  std::uint32_t graph_id = 0;
  std::uint64_t graph_node_id = 0;
  [[nodiscard]] bool launched_by_graph() const { return graph_id != 0; }
  friend bool operator==(const KernelDetail&, const KernelDetail&) = default;
};

enum class CopyKind : std::uint8_t { Unknown, HostToDevice, DeviceToHost, DeviceToDevice, HostToHost, PeerToPeer };
enum class MemoryKind : std::uint8_t { Unknown, Pageable, Pinned, Device, Managed };

[[nodiscard]] std::string_view to_string(CopyKind kind);    // "HtoD", "DtoH", "DtoD", "HtoH", "PtoP"
[[nodiscard]] std::string_view to_string(MemoryKind kind);  // "Pageable", "Pinned", "Device", "Managed"
[[nodiscard]] CopyKind copy_kind_from_string(std::string_view text);
[[nodiscard]] MemoryKind memory_kind_from_string(std::string_view text);

struct MemcpyDetail {
  std::int64_t bytes = 0;
  CopyKind copy_kind = CopyKind::Unknown;
  MemoryKind src_kind = MemoryKind::Unknown;
  MemoryKind dst_kind = MemoryKind::Unknown;
  std::int32_t dst_device = -1;  // peer copies
  friend bool operator==(const MemcpyDetail&, const MemcpyDetail&) = default;
};

struct MemsetDetail {
  std::int64_t bytes = 0;
  MemoryKind memory_kind = MemoryKind::Unknown;
  std::int32_t value = 0;
  friend bool operator==(const MemsetDetail&, const MemsetDetail&) = default;
};

}  // namespace gtv
