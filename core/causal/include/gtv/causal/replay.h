#pragma once
// Replay: every node's start and end recomputed from the graph, the recorded own times and the host's own gaps.
// Unchanged, it reproduces the recording (the graph keeps each node's binding input and its recorded delay). A
// cause is checked by removing it (its parts of host time, or the inputs it adds) and replaying: what the region
// gains is what the cause cost.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "gtv/causal/happens_before.h"

namespace gtv::causal {

// What to take out of the run before replaying it.
struct Removal {
  std::uint32_t parts = 0;  // PartKind bits: that time leaves the calls and gaps that hold it
  std::uint32_t edges = 0;  // EdgeKind bits (extra edges only): the nodes no longer wait for those inputs
  // Limits the removal to some nodes (the owner of a part, the target of an edge); empty: every node.
  std::function<bool(NodeId)> applies_to;
  // Nodes whose own time becomes zero (a call that would cost nothing), on top of the above; the parts inside it
  // stay unless their kind is removed too.
  std::function<bool(NodeId)> drop_own_time;
  // Host nodes whose gap before them becomes zero (the thread's own work between calls would cost nothing), the
  // parts in the gap kept likewise.
  std::function<bool(NodeId)> drop_gap;
  [[nodiscard]] bool empty() const { return parts == 0 && edges == 0 && !drop_own_time && !drop_gap; }
};

struct Timeline {
  std::vector<TimeNs> start_ns;  // per node
  std::vector<TimeNs> end_ns;
  std::size_t cycles_broken = 0;  // inputs skipped because they closed a cycle (corrupt links)
};

[[nodiscard]] Timeline replay(const HappensBefore& graph, const Removal& removal = {});

// The unchanged replay of a graph kept with the order its points were computed in, so that replays of the same
// graph under many removals (one per cause checked) take the points in that order, each after its inputs, with no
// search: a removal only takes inputs away or shortens delays, so the order holds for every removal. Each replay
// gives what replay(graph, removal) gives. A graph whose links close a cycle has no such order: its replays search.
class ReplayPlan {
 public:
  explicit ReplayPlan(const HappensBefore& graph);
  [[nodiscard]] const HappensBefore& graph() const { return *graph_; }
  [[nodiscard]] const Timeline& unchanged() const { return unchanged_; }
  [[nodiscard]] Timeline replay(const Removal& removal) const;
  // The replays under several removals in one pass over the order: what replay(removal) gives for each, with the
  // graph read once per point for all of them.
  [[nodiscard]] std::vector<Timeline> replay_all(std::span<const Removal> removals) const;

 private:
  const HappensBefore* graph_;
  Timeline unchanged_;
  // Points (2 * node, + 1 for its end) in the order the unchanged replay computed them; empty when it broke cycles.
  std::vector<std::uint32_t> order_;
};

// One input of a node's start or end point as the replay takes it: the source point's time plus the delay.
struct Input {
  enum class From : std::uint8_t { Root, OwnStart, Chain, Launch, Edge } from = From::Root;
  NodeId source = kNoNode;  // the node the input leaves (the node itself for OwnStart)
  bool source_end = true;   // leaves the source's end (else its start)
  TimeNs delay_ns = 0;      // Root: the recorded time itself
  std::uint32_t edge = 0;   // From::Edge: index into HappensBefore::edges()
};

// The inputs of one point with their delays under a removal; used by replay and by the critical-path walk, so the
// two agree on what set each time. `own_ns` is the node's own time after the removal.
void inputs_of(const HappensBefore& graph, NodeId node, bool end_point, const Removal& removal,
               std::vector<Input>& out);
[[nodiscard]] TimeNs own_time_after(const HappensBefore& graph, NodeId node, const Removal& removal);
// The host's own time in the gap before a host node, after the removal.
[[nodiscard]] TimeNs gap_after(const HappensBefore& graph, NodeId node, const Removal& removal);

}  // namespace gtv::causal
