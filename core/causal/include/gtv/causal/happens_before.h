#pragma once
// The run as a happens-before graph: what had to finish before each piece of work could start or end. Built once
// per Trace from its events, launch flows, dependency links, synchronizations and ranks; read by replay (which
// recomputes every start and end, possibly with a cause removed) and by the critical path.
//
// Nodes are the work that dependencies connect: the outermost CUDA API call of each nest on a host thread (the
// launches, copies and synchronizations; framework ops and annotations around them are the host's own work), and
// every kernel, copy and memset on a GPU stream. A node has a start point and an end point; an edge goes from a
// point of one node to a point of another with a delay:
//
//   program order   previous call's end    -> next call's start     (delay: the host's own work between them)
//   launch          launch call's end      -> its GPU work's start  (work is handed over late in the call: the
//                                                                   delay may be negative, a few microseconds)
//   stream order    previous work's end    -> next work's start     (a stream runs its work in launch order)
//   event wait      the waited-for work's end -> the held work's start (cudaStreamWaitEvent)
//   sync            the waited-for work's end -> the waiting call's end (stream/device/event synchronize)
//   implicit sync   the last work's end    -> a blocking copy's, cudaFree's end
//   queue full      a finished work's end  -> the end of a launch that waited for room in the launch queue
//   lazy-load drain a finished work's end  -> the end of a launch that drained the GPU to load a module
//   collective      each peer rank's arrival (its collective kernel's start) -> the collective kernel's end;
//                   for a collective run on host threads (Gloo), each rank's arrival (the first call inside its
//                   "gloo:*" range) -> the start of each rank's first call in its range after the last rank arrived
//                   (delay: the transfer after the last arrival); the time a rank waited there for the last one
//                   is no gap of its thread
//   thread handoff  a thread's last call before it handed work over -> the first call of the worker's share, and
//                   the worker's last call -> the handing thread's next call (PyTorch's main thread runs the
//                   forward and hands the backward to the autograd engine thread, which Kineto's fwdbwd flows show;
//                   it waits in backward() until the engine is done). The delay is split where the other thread's
//                   recorded activity begins or ends; the time one thread waited for the other is no gap of it.
//                   Likewise a thread the profiled main thread started (it records neither ops nor ranges): its
//                   bursts of calls between two calls of the main thread, its start-up before each not recorded.
//
// Program order bridges only a thread's recorded time: where a thread recorded nothing between two calls (no op,
// no annotation, no record), it was waiting for something the graph does not know; that time is kept as a part
// of the gap ("not recorded"), never as the thread's own work.
//
// Each node's recorded start is set by one *binding* input (the latest one); the graph keeps which, so that an
// unchanged replay reproduces the recording exactly and the critical path can be walked back. An edge the
// recording contradicts (a kernel that started before its launch, pytorch/kineto#1380) is not a dependency of that
// recording: it is left out and counted. Work that overlaps the work before it on one stream (a kernel launched with
// programmatic dependent launch, a CUDA graph's kernels) keeps its stream order with the overlap it had: it may
// start that long before its predecessor ends, no longer (counted too).
//
// Parts of a host call's own time, or of the gap before it, that a named cause spent (lazy module loading inside a
// launch, a CUPTI buffer request) are kept per node, so a cause can be removed by shortening exactly that time.
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "gtv/model/trace.h"

namespace gtv::causal {

using NodeId = std::uint32_t;

// A thread that records its ops steps from one op to the next with nothing recorded for a few microseconds (the
// autograd engine's own steps between its ops take 6 us at the median and 12-16 us at p90 on the PyTorch fixtures;
// Python between two ops as long): a silent stretch this long or longer is a wait, or code nobody recorded.
inline constexpr TimeNs kUnrecordedMinNs = 20 * kNsPerUs;
inline constexpr NodeId kNoNode = 0xffffffffu;

enum class NodeKind : std::uint8_t { HostCall, Kernel, Copy, Memset };

enum class EdgeKind : std::uint8_t {
  ProgramOrder,
  Launch,
  StreamOrder,
  EventWait,
  Sync,
  ImplicitSync,
  QueueFull,
  LazyLoadDrain,
  Collective,
  Handoff,
};
inline constexpr int kEdgeKindCount = 10;
[[nodiscard]] std::string_view to_string(EdgeKind kind);  // "program order", "launch", ...
[[nodiscard]] constexpr std::uint32_t bit(EdgeKind kind) { return 1u << static_cast<unsigned>(kind); }

// Time inside a host call, or inside the gap before it, that a named cause spent.
enum class PartKind : std::uint8_t {
  LazyLoading,      // module or function loading on first launch (cuLibraryLoadData, CUPTI's loading records)
  TracingOverhead,  // the tracer's own work on this thread (CUPTI buffer requests, instrumentation)
  Unrecorded,       // gap time in which the thread recorded nothing: waiting for something unknown, not its work
};
inline constexpr int kPartKindCount = 3;
[[nodiscard]] std::string_view to_string(PartKind kind);  // "lazy module loading", "tracing overhead", ...
[[nodiscard]] constexpr std::uint32_t bit(PartKind kind) { return 1u << static_cast<unsigned>(kind); }

// Which input set a node's recorded start; Root: none (the first call of a thread, work with no launch recorded).
enum class StartBinding : std::uint8_t { Root, Chain, Launch, Extra };

struct Node {
  EventRef ref;                 // the event in the Trace
  NodeId chain_prev = kNoNode;  // the previous node of its host thread, or of its GPU stream
  NodeId launch = kNoNode;      // GPU work: the host call that launched it
  NodeKind kind = NodeKind::HostCall;
  StartBinding start_binding = StartBinding::Root;
  bool end_bound : 1 = false;  // an extra end edge (a sync, a drain...) set the recorded end, not its own time
  // GPU work whose recorded start came well after its inputs allowed while work of another stream of its GPU ran
  // throughout: the GPU's multiprocessors were held by that work (kernels of several streams share them).
  bool held_by_other_streams : 1 = false;
  // A call that waits for work it launched itself (a blocking copy, a synchronous launch): that work leaves from
  // the call's start, since the call's end waits for it; other launches hand their work over at their end.
  bool waits_for_own_work : 1 = false;
  // A call that stages its own copy of pageable host memory (cudaMemcpyAsync to or from pageable memory): the copy
  // runs while the call copies the data through a pinned staging buffer, and the call returns about when the copy
  // ends, so the copy leaves from the call's start too.
  bool stages_own_copy : 1 = false;
  // Whether the sparse tables hold anything for it: replay skips their lookups for the many nodes that have none.
  bool has_edges : 1 = false;
  bool has_parts : 1 = false;
  bool has_own_time : 1 = false;
  bool has_gap_wait : 1 = false;
  bool communication : 1 = false;  // a collective's kernel (NCCL): its own time is a transfer
  [[nodiscard]] bool launches_from_start() const { return waits_for_own_work || stages_own_copy; }
};
static_assert(sizeof(Node) == 20, "a node is stored for every call and GPU work item");

// An edge other than program order, stream order and launch (those are Node fields). `to_end`: it arrives at the
// target's end (sync, queue full, drain, collective), else at its start (event wait, thread handoff).
struct Edge {
  NodeId from = kNoNode;
  NodeId to = kNoNode;
  EdgeKind kind = EdgeKind::EventWait;
  bool binding = false;     // it set the target's recorded start or end
  bool into_start = false;  // a collective edge into a host call (Gloo's): it arrives at the call's start
  [[nodiscard]] bool to_end() const { return !into_start && kind != EdgeKind::EventWait && kind != EdgeKind::Handoff; }
  // Collective edges leave their source's start (the peer's arrival); the others leave its end.
  [[nodiscard]] bool from_start() const { return kind == EdgeKind::Collective; }
};

struct Part {
  NodeId node = kNoNode;
  PartKind kind = PartKind::LazyLoading;
  bool in_gap = false;  // in the gap before the node (its host thread's own time), else inside the call
  TimeNs ns = 0;
  // Unrecorded time: where it begins, from the start of the gap (without the time the thread waited for another
  // thread's handoff); the other parts are placed at the end of their call or gap.
  TimeNs offset_ns = 0;
};

// What the graph could not take as a dependency, counted and said, never looped on.
struct Anomalies {
  std::size_t launch_after_work = 0;      // GPU work recorded as starting before its launch call
  std::size_t overlapping_on_stream = 0;  // work that started before the previous work of its stream ended (kept
                                          // in stream order, its overlap allowed)
  std::size_t wait_after_end = 0;         // a sync or wait link whose waited-for work ended after the waiter
  std::size_t flows_without_node = 0;     // launch flows whose ends are not nodes (a flow into an annotation)
  std::size_t collective_clock = 0;       // collectives whose kernels ended before the last rank arrived
  [[nodiscard]] std::vector<std::string> lines() const;  // one plain sentence per non-zero count
};

class HappensBefore {
 public:
  [[nodiscard]] static HappensBefore build(const Trace& trace);

  [[nodiscard]] const Trace& trace() const { return *trace_; }
  [[nodiscard]] std::span<const Node> nodes() const { return nodes_; }
  [[nodiscard]] const Node& node(NodeId id) const { return nodes_[id]; }
  [[nodiscard]] std::size_t size() const { return nodes_.size(); }
  [[nodiscard]] const Event& event(NodeId id) const { return trace_->event(nodes_[id].ref); }
  [[nodiscard]] TimeNs recorded_start(NodeId id) const { return event(id).start_ns; }
  [[nodiscard]] TimeNs recorded_end(NodeId id) const { return event(id).end_ns(); }
  // The first recorded start and the last recorded end of any node (for no nodes: the largest and the least time).
  [[nodiscard]] TimeNs recorded_nodes_start_ns() const { return nodes_start_ns_; }
  [[nodiscard]] TimeNs recorded_nodes_end_ns() const { return nodes_end_ns_; }
  // Where a launch call hands its work over: its end, or its start for a call that waits for that work.
  [[nodiscard]] TimeNs recorded_handover(NodeId call) const {
    return nodes_[call].launches_from_start() ? recorded_start(call) : recorded_end(call);
  }

  // The extra edges arriving at a node, and all of them (sorted by target).
  [[nodiscard]] std::span<const Edge> edges_into(NodeId id) const;
  [[nodiscard]] std::span<const Edge> edges() const { return edges_; }
  // The parts of a node (inside the call and in the gap before it).
  [[nodiscard]] std::span<const Part> parts_of(NodeId id) const;
  [[nodiscard]] std::span<const Part> parts() const { return parts_; }

  // The node of an event, kNoNode if the event is not one (an op, an annotation, a call nested in another call).
  [[nodiscard]] NodeId node_of(EventRef ref) const;
  // The nodes of one lane, in start order: ids [first, last).
  struct IdRange {
    NodeId first = 0;
    NodeId last = 0;
  };
  [[nodiscard]] IdRange lane_nodes(LaneIndex lane) const;
  [[nodiscard]] LaneIndex lane_of(NodeId id) const { return nodes_[id].ref.lane; }
  // The node of a lane that covers `time_ns` or last ended before it, kNoNode when none started by then.
  [[nodiscard]] NodeId node_at_or_before(LaneIndex lane, TimeNs time_ns) const;

  // The recorded delay of an input when it is binding, and otherwise what the recording shows for its kind: for a
  // launch, the least time from a launch call's return to its work's start (negative when work starts before the
  // call returns); for a stream, the time it takes from one piece of work to the next queued behind it.
  [[nodiscard]] TimeNs min_launch_latency_ns() const { return min_launch_latency_ns_; }
  // The median gap between a kernel and the kernel queued behind it on one stream (handed over before it ended):
  // the GPU's own time from one to the next, 1.1 us on H200 and 1.2-1.4 us on H100 in PyTorch's training loops. A
  // recording with no queued kernels (every launch waited, as under CUDA_LAUNCH_BLOCKING=1) takes
  // kDefaultQueuedGapNs. Replays put work that waited for something else at most this far behind its stream's
  // previous work once it is queued behind it.
  [[nodiscard]] TimeNs queued_gap_ns() const { return queued_gap_ns_; }
  static constexpr TimeNs kDefaultQueuedGapNs = 1000;

  // A node's own duration: the time it takes when nothing makes it wait. For a call whose end a sync, drain or
  // queue set, the time it took after what it waited for finished; for a collective kernel, the transfer after
  // the last rank arrived; else the recorded duration.
  [[nodiscard]] TimeNs own_ns(NodeId id) const;
  // The part of the gap before a host call in which its thread waited for another thread's handoff (the autograd
  // engine idle between backward passes; the main thread inside backward()): not its own time; 0 for most.
  [[nodiscard]] TimeNs gap_wait_ns(NodeId id) const;
  // A thread handoff edge's delay in the recording: the source's thread until `at_ns` (where the worker's recorded
  // activity begins, or ends), the target's after; and the time in each piece in which its thread recorded
  // nothing (before the split: at its end, as a thread calling into the engine; after it: at its start, as a
  // thread waking up).
  struct HandoffSplit {
    NodeId from = kNoNode;
    NodeId to = kNoNode;
    TimeNs at_ns = 0;
    TimeNs from_unrecorded_ns = 0;
    TimeNs to_unrecorded_ns = 0;
  };
  [[nodiscard]] HandoffSplit handoff_split(NodeId from, NodeId to) const;

  // The copy whose wait a synchronize continues: a synchronize right after its thread's call of a copy of pageable
  // memory, tied to that copy (PyTorch's .to() without non_blocking is cudaMemcpyAsync, then
  // cudaStreamSynchronize). Both wait for that copy: a copy made asynchronous from pinned memory removes both.
  // kNoNode for any other node.
  [[nodiscard]] NodeId copy_wait_continued_by(NodeId sync) const;

  [[nodiscard]] const Anomalies& anomalies() const { return anomalies_; }
  [[nodiscard]] std::size_t memory_bytes() const;  // what the graph holds beyond the Trace

 private:
  friend class GraphAssembly;
  const Trace* trace_ = nullptr;
  // Nodes lane by lane, each lane's in start order, so a lane's nodes are one run of ids: 20 bytes a node, and
  // nothing else per node (edges, parts and the few own times that differ from the duration are sparse).
  std::vector<Node> nodes_;
  std::vector<NodeId> lane_first_node_;  // per lane + 1: lane l holds [lane_first_node_[l], lane_first_node_[l+1])
  std::vector<Edge> edges_;              // sorted by `to`
  std::vector<Part> parts_;              // sorted by node
  struct OwnTime {
    NodeId node = kNoNode;
    TimeNs ns = 0;
  };
  std::vector<OwnTime> own_times_;            // sorted by node: the nodes whose own time is not their recorded duration
  std::vector<OwnTime> gap_waits_;            // sorted by node
  std::vector<HandoffSplit> handoff_splits_;  // sorted by (to, from)
  TimeNs min_launch_latency_ns_ = 0;
  TimeNs queued_gap_ns_ = kDefaultQueuedGapNs;
  TimeNs nodes_start_ns_ = std::numeric_limits<TimeNs>::max();
  TimeNs nodes_end_ns_ = std::numeric_limits<TimeNs>::min();
  Anomalies anomalies_;
};

// How many graphs HappensBefore::build has built in this process: lets a test check that a front end builds one
// graph per trace and shares it (analysis::AnalysedTrace).
[[nodiscard]] std::size_t graph_builds();

}  // namespace gtv::causal
