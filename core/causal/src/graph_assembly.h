#pragma once
// The steps that build a HappensBefore from a Trace, in order: nodes lane by lane (with the parts of host time a
// named cause spent), launches, dependency links, the binding input of every GPU start, the waits of host calls,
// collectives across ranks; then the sparse tables are sorted. Internal to gtv_causal.
#include <limits>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "call_names.h"
#include "gtv/causal/happens_before.h"

namespace gtv::causal {

class GraphAssembly {
 public:
  GraphAssembly(const Trace& trace, HappensBefore& graph) : trace_(trace), g_(graph) { g_.trace_ = &trace; }
  void run();

 private:
  // A stretch of host time a named cause spent, before it is clipped to the node's own time or gap.
  struct Span {
    NodeId node = kNoNode;
    bool in_gap = false;
    PartKind kind = PartKind::LazyLoading;
    TimeNs start_ns = 0;
    TimeNs end_ns = 0;
  };
  struct Ending {  // GPU work by end, to find what a waiting call waited for
    TimeNs end_ns = 0;
    NodeId node = kNoNode;
    friend auto operator<=>(const Ending&, const Ending&) = default;
  };
  static constexpr LaneIndex kNoLane = std::numeric_limits<LaneIndex>::max();
  enum HostFlag : std::uint8_t { QueueFullFlag = 1, LoadingFlag = 2, WaitLinkedFlag = 4, NonBlockingFlag = 8 };

  void add_host_lane(LaneIndex lane);
  void add_gpu_lane(LaneIndex lane);
  [[nodiscard]] bool is_communication(StringId kernel_name);  // by name, each name looked at once
  // What a call's or record's name says (call_names.h), each name read once: names repeat for every call.
  struct NameFacts {
    bool known = false;
    bool launch = false;
    detail::SyncScope sync = detail::SyncScope::None;
    detail::CallWait wait = detail::CallWait::None;
    detail::RecordRole role = detail::RecordRole::None;
  };
  [[nodiscard]] const NameFacts& facts(StringId name) const;
  [[nodiscard]] NodeId enclosing_node(EventRef ref) const;
  void add_launches();
  void add_dependencies();
  void bind_gpu_starts();
  [[nodiscard]] bool held_throughout(NodeId id, TimeNs from_ns, TimeNs to_ns);
  // GPU work of one device by start, with each one's stream and recorded end beside it: the search for work of
  // another stream that ran throughout a late start reads these, not the nodes and their events.
  struct DeviceStarts {
    std::vector<TimeNs> start_ns;
    std::vector<std::int64_t> stream;
    std::vector<TimeNs> end_ns;
  };
  [[nodiscard]] const DeviceStarts& starts_by_device(std::int64_t device);
  void add_host_waits();
  using Launches = std::span<const std::pair<NodeId, NodeId>>;  // a call's part of launched_
  void add_host_wait(NodeId node, Launches launches);
  void add_wait_edge(NodeId waited, NodeId call, EdgeKind kind);
  void add_sync_waits(NodeId call, std::span<const LaneIndex> gpu_lanes);
  [[nodiscard]] NodeId last_launched_before(LaneIndex gpu_lane, TimeNs time_ns) const;
  [[nodiscard]] std::span<const LaneIndex> device_lanes(LaneIndex stream) const;
  [[nodiscard]] NodeId synchronous_launch(NodeId call, Launches launches) const;
  [[nodiscard]] NodeId waited_work(NodeId call, std::int64_t device) const;
  [[nodiscard]] std::int64_t launched_device(Launches launches, bool& pageable) const;
  void add_thread_handoffs();
  // Threads that serve collectives (collective_workers.cpp).
  [[nodiscard]] bool serves_collectives(LaneIndex lane) const;
  [[nodiscard]] bool is_collective_range_event(const Event& e) const;
  void add_collective_workers();
  void add_handoffs(LaneIndex from, LaneIndex worker, bool silent = false);
  [[nodiscard]] TimeNs add_share(LaneIndex from, LaneIndex worker, NodeId first, NodeId last, TimeNs previous_end,
                                 bool silent);
  void add_started_threads(const std::map<LaneIndex, std::map<LaneIndex, std::size_t>>& workers);
  void add_gap_wait(NodeId node, TimeNs start_ns, TimeNs end_ns);
  void add_collectives();
  void join_to_last(std::vector<NodeId>& kernels);             // every kernel ends after the last arrival
  void join_to_root(std::vector<NodeId>& kernels);             // the others end after the root's arrival
  void join_host_ranges(const std::vector<EventRef>& ranges);  // a Gloo collective's ranges, one per rank
  void set_own_time(NodeId node, TimeNs ns);
  void finish_parts();
  void count_in_split_pieces(NodeId node, TimeNs start_ns, TimeNs end_ns);
  void finish();

  const Trace& trace_;
  HappensBefore& g_;
  std::vector<Span> spans_;
  struct GapWait {  // the part of a host call's gap in which its thread waited for another thread
    NodeId node = kNoNode;
    TimeNs start_ns = 0;
    TimeNs end_ns = 0;
  };
  std::vector<GapWait> gap_waits_;
  struct SplitPiece {  // a piece of a handoff's delay, in the gap before `node`: its unrecorded time is counted
    NodeId node = kNoNode;
    std::size_t split = 0;  // index into the graph's handoff splits (before they are sorted)
    bool to_side = false;
    TimeNs start_ns = 0;
    TimeNs end_ns = 0;
  };
  std::vector<SplitPiece> split_pieces_;
  void add_split(NodeId from, NodeId to, TimeNs at_ns, NodeId from_gap, NodeId to_gap);
  std::vector<NodeId> queue_full_;                   // calls holding a "command buffer full" record
  std::vector<std::uint8_t> host_flags_;             // per node
  std::vector<std::pair<NodeId, NodeId>> launched_;  // (launch call, GPU work), sorted by call
  std::vector<Ending> endings_;                      // every GPU node, by end
  std::map<std::int64_t, DeviceStarts> starts_by_device_;
  std::map<std::int64_t, std::vector<LaneIndex>> gpu_lanes_by_device_;  // built for the device syncs
  std::size_t sync_searches_left_ = 0;
  std::vector<std::int8_t> communication_names_;  // by StringId: -1 not looked at yet, else 0 or 1
  mutable std::vector<NameFacts> name_facts_;     // by StringId
  mutable NameFacts scratch_facts_;               // for a name outside the trace's strings
};

}  // namespace gtv::causal
