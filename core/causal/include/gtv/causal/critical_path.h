#pragma once
// The critical path of a window: the chain of work and waits whose lengthening lengthens the window. Walked back
// from the point that ends the window along the input that set each time, so its segments tile the window exactly:
// their lengths sum to the window's length.
//
// A window is what the analyses call the region of interest: the whole trace, or the timed measurements. A
// measurement's window ends when its host interval ends or when the GPU work launched inside it ends, whichever
// is later (what the work took); in a replay the same rule gives the window's new end.
#include <array>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "gtv/base/enum_table.h"
#include "gtv/causal/happens_before.h"
#include "gtv/causal/replay.h"

namespace gtv::causal {

struct Window {
  TimeNs start_ns = 0;  // as recorded
  TimeNs end_ns = 0;
  // The measured host intervals; empty: the whole trace.
  struct Measured {
    LaneIndex lane = kNoLane;  // the measuring thread
    TimeNs host_start_ns = 0;
    TimeNs host_end_ns = 0;
  };
  static constexpr LaneIndex kNoLane = 0xffffffffu;
  std::vector<Measured> measured;
  std::vector<NodeId> work;  // the GPU work the measurements' truth covers: their ends can end the window
};

// The window of a trace: its measurements, with the GPU work launched inside each (only by the measuring process
// when several processes launched work), as the timing-truth analysis counts it; else the whole trace.
[[nodiscard]] Window window_of(const HappensBefore& graph);

struct WindowTimes {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  [[nodiscard]] TimeNs length_ns() const { return end_ns > start_ns ? saturating_sub(end_ns, start_ns) : 0; }
};

// Where the window starts and ends in a replay (for the unchanged replay: where it does in the recording).
[[nodiscard]] WindowTimes window_in(const HappensBefore& graph, const Timeline& timeline, const Window& window);

enum class SegmentKind : std::uint8_t {
  Kernel,         // a kernel computing (GPU, stream: the node's)
  Copy,           // a copy
  Memset,         // a memset
  Communication,  // a collective kernel's transfer after the last rank arrived
  HostLaunch,     // a launch call's own time
  HostSyncCall,   // the own time of a call that waits (synchronize, blocking copy, free)
  HostCall,       // another API call's own time
  LazyLoading,    // parts of calls and gaps
  TracingOverhead,
  HostOwnWork,         // the host thread's own work between calls (framework, Python, the program)
  LaunchLatency,       // from the launch call's start to the GPU starting the work it launched
  StreamGap,           // a stream's gap between finished work and its next queued work
  HeldByOtherStreams,  // queued work waiting while other streams' work held the GPU's multiprocessors
  EventWait,           // held by an event wait beyond the waited-for work's end
  SyncWake,            // from the waited-for work's end to the waiting call's return
  NotRecorded,         // before the first recorded event of the path's thread or stream
};
inline constexpr std::array<EnumEntry<SegmentKind>, 16> kSegmentKinds{{
    {SegmentKind::Kernel, "kernel", "kernel"},
    {SegmentKind::Copy, "copy", "copy"},
    {SegmentKind::Memset, "memset", "memset"},
    {SegmentKind::Communication, "communication", "collective transfer"},
    {SegmentKind::HostLaunch, "host_launch", "host launching"},
    {SegmentKind::HostSyncCall, "host_sync_call", "host in a waiting call"},
    {SegmentKind::HostCall, "host_call", "host API call"},
    {SegmentKind::LazyLoading, "lazy_loading", "lazy module loading"},
    {SegmentKind::TracingOverhead, "tracing_overhead", "tracing overhead"},
    {SegmentKind::HostOwnWork, "host_own_work", "host own work"},
    {SegmentKind::LaunchLatency, "launch_latency", "launch latency"},
    {SegmentKind::StreamGap, "stream_gap", "stream gap"},
    {SegmentKind::HeldByOtherStreams, "held_by_other_streams", "GPU held by other streams"},
    {SegmentKind::EventWait, "event_wait", "event wait"},
    {SegmentKind::SyncWake, "sync_wake", "host waking from a wait"},
    {SegmentKind::NotRecorded, "not_recorded", "not recorded"},
}};
static_assert(in_enum_order(kSegmentKinds));
inline constexpr int kSegmentKindCount = static_cast<int>(kSegmentKinds.size());
[[nodiscard]] std::string_view to_string(SegmentKind kind);    // "kernel", "copy", "host launching", ...
[[nodiscard]] std::string_view segment_key(SegmentKind kind);  // stable JSON key: "kernel", "host_launch", ...
[[nodiscard]] bool on_gpu(SegmentKind kind);                   // Kernel, Copy, Memset, Communication
// What a node's own time is: a kernel (a collective's transfer), a copy, a launch call, a call that waits, ...
[[nodiscard]] SegmentKind own_segment_kind(const HappensBefore& graph, NodeId node);

struct Segment {
  TimeNs start_ns = 0;  // in the timeline walked
  TimeNs end_ns = 0;
  SegmentKind kind = SegmentKind::NotRecorded;
  NodeId node = kNoNode;  // the node whose time or input it is (the target, for an input's delay)
  // GPU time the walk reached through a host call's wait (a synchronize, a blocking copy, a drain): the call that
  // waited for it; kNoNode elsewhere.
  NodeId via = kNoNode;
  [[nodiscard]] TimeNs length_ns() const { return end_ns - start_ns; }
};

struct CriticalPath {
  WindowTimes window;
  std::vector<Segment> segments;  // in time order; they tile [window.start_ns, window.end_ns)
  bool truncated = false;         // the walk stopped at its step limit (corrupt links): segments do not tile
};

[[nodiscard]] CriticalPath critical_path(const HappensBefore& graph, const Timeline& timeline, const Window& window,
                                         const Removal& removal = {});

// What a removal does to a window: its length before and after. The saving is what the cause removed cost.
struct Effect {
  TimeNs before_ns = 0;
  TimeNs after_ns = 0;
  [[nodiscard]] TimeNs saving_ns() const { return before_ns - after_ns; }
};
// `unchanged` is the graph's unchanged replay (computed once by the caller for many removals).
[[nodiscard]] Effect effect_of(const HappensBefore& graph, const Timeline& unchanged, const Window& window,
                               const Removal& removal);
// The same, replayed along the plan's order (many removals of one graph).
[[nodiscard]] Effect effect_of(const ReplayPlan& plan, const Window& window, const Removal& removal);
// Nodes recorded as starting inside the window: a cause removed only there changes what the window holds, not
// where the host is when it begins.
[[nodiscard]] std::function<bool(NodeId)> inside(const HappensBefore& graph, const Window& window);

}  // namespace gtv::causal
