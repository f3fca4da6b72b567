#pragma once
// A lane is one row of the timeline: a host thread (pid, tid) or a GPU stream (device, stream). Its events are
// sorted by start (longer first on ties) and carry their nesting depth; events at one depth never overlap.
#include <cstdint>
#include <string>
#include <vector>

#include "gtv/model/event.h"

namespace gtv {

enum class LaneKind : std::uint8_t { HostThread, GpuStream };

using LaneIndex = std::uint32_t;

struct LaneKey {
  LaneKind kind = LaneKind::HostThread;
  std::int64_t pid = 0;  // host process id; for GPU lanes the device index (Kineto's convention)
  std::int64_t tid = 0;  // host thread id; for GPU lanes the stream id
  friend bool operator==(const LaneKey&, const LaneKey&) = default;
  friend auto operator<=>(const LaneKey&, const LaneKey&) = default;
};

[[nodiscard]] inline LaneKey host_lane_key(std::int64_t pid, std::int64_t tid) {
  return {LaneKind::HostThread, pid, tid};
}
[[nodiscard]] inline LaneKey gpu_lane_key(std::int64_t device, std::int64_t stream) {
  return {LaneKind::GpuStream, device, stream};
}

class Lane {
 public:
  LaneKey key;
  std::string name;  // "python 1234 / thread 5678", "stream 7"; from thread_name metadata when present
  std::int64_t sort_index = 0;
  std::vector<Event> events;
  // by_depth[d] lists the indices (into events) of the events at depth d, in start order.
  std::vector<std::vector<std::uint32_t>> by_depth;

  [[nodiscard]] bool is_gpu() const { return key.kind == LaneKind::GpuStream; }
  [[nodiscard]] std::int64_t device() const { return key.pid; }
  [[nodiscard]] std::int64_t stream() const { return key.tid; }
  [[nodiscard]] int depth_count() const { return static_cast<int>(by_depth.size()); }
};

}  // namespace gtv
