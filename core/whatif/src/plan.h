#pragma once
// The recorded graph as an editable plan: every point's inputs copied out of the HappensBefore graph (with the
// recorded delays that make an unchanged replay exact), own times that changes may rescale, and the stream each
// GPU node runs on. Changes edit the plan; replay_plan recomputes every start and end.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gtv/causal/critical_path.h"
#include "gtv/causal/happens_before.h"
#include "gtv/causal/replay.h"

namespace gtv::whatif {

using causal::NodeId;

// Two recordings of the same run differ: the seed loop on one H200 took 128.3-129.1 ms untraced over repeated
// runs (0.6%); the band takes 1% each way for it.
inline constexpr double kRunToRun = 0.01;

// A duration computed in doubles (an own time scaled, a rate times a size) as TimeNs, clamped to the accepted
// time range [-2^62, 2^62) (converting a double beyond the int64 range is undefined); NaN gives 0.
[[nodiscard]] inline TimeNs clamped_ns(double ns) {
  if (std::isnan(ns)) return 0;
  if (ns <= double(kMinTraceTimeNs)) return kMinTraceTimeNs;
  if (ns >= double(kMaxTraceTimeNs)) return kMaxTraceTimeNs;
  return TimeNs(ns);
}

struct PlanInput {
  causal::Input::From from = causal::Input::From::Root;
  NodeId source = causal::kNoNode;
  bool source_end = true;
  TimeNs delay_ns = 0;
  causal::EdgeKind edge = causal::EdgeKind::ProgramOrder;  // From::Edge only
  friend bool operator==(const PlanInput&, const PlanInput&) = default;
};

// Which bound of a change's model to replay: its best estimate, or the end of the band it widens.
enum class Bound : std::uint8_t { Point, Low, High };

struct StreamKey {
  std::int64_t device = -1;
  std::int64_t stream = -1;
  friend bool operator==(const StreamKey&, const StreamKey&) = default;
};

struct Plan {
  const causal::HappensBefore* graph = nullptr;
  std::vector<std::vector<PlanInput>> start_in;  // per node
  std::vector<std::vector<PlanInput>> end_in;    // per node, without the own-time input
  std::vector<TimeNs> own_ns;                    // per node: start -> end when nothing else holds the end
  std::vector<StreamKey> stream;                 // per GPU node: where it runs; host nodes: {-1, -1}
  std::vector<float> sm_share;                   // per GPU node: the GPU's multiprocessors its grid fills (0-1]
  // Host changes apply to the calls recorded as starting inside the window, so that what precedes it (warm-up and
  // its synchronizations) stays as recorded; empty: everywhere.
  std::vector<bool> in_window;  // per node
  bool contention = false;
  bool solo_own_times = false;  // kernels' own times are already their times alone (to_solo_own_times ran)  // kernels
                                // of different streams of one GPU now share its multiprocessors
  std::string owners_pattern;   // --owners: the ranges that name the work's owners; empty: found as owners.h says
  std::vector<std::string> applied;
  std::vector<std::string> assumptions;

  [[nodiscard]] const causal::HappensBefore& g() const { return *graph; }
  [[nodiscard]] std::size_t size() const { return own_ns.size(); }
  [[nodiscard]] bool is_gpu(NodeId n) const { return graph->node(n).kind != causal::NodeKind::HostCall; }
  void assume(std::string sentence);  // added once
  [[nodiscard]] bool changes(NodeId n) const { return in_window.empty() || in_window[n]; }
};

[[nodiscard]] Plan make_plan(const causal::HappensBefore& graph);
// Whether two plans replay to the same timeline: the same inputs, own times, streams, shares and contention.
[[nodiscard]] bool same_schedule(const Plan& a, const Plan& b);
// Every start and end; `own_scale` (per node, may be empty) stretches own times (kernels sharing a GPU).
[[nodiscard]] causal::Timeline replay_plan(const Plan& plan, const std::vector<double>& own_scale = {});
// Replays with kernels sharing their GPU's multiprocessors where the plan says so; `all_fill` assumes every
// kernel fills the GPU (no throughput gained by running together). With a window, the damped steps stop early
// once its length has settled, and `swing` (may be null) receives how far it still swung over the last steps when
// it had not settled by the last step (the spread over the length: 0.003 is 0.3%), else 0.
[[nodiscard]] causal::Timeline replay_with_contention(const Plan& plan, bool all_fill,
                                                      const causal::Window* window = nullptr, double* swing = nullptr);

// Kernels the recording ran beside other streams' kernels ran slower than alone: their own times become the
// recorded ones over the slowdown the sharing model gives the recorded overlap. Returns how many changed.
std::size_t to_solo_own_times(Plan& plan);

// When kernels share GPUs: the least time the window's kernels need on the busiest GPU if its multiprocessors
// were never idle (the sum of own time x share); 0 when no kernels share a GPU.
[[nodiscard]] TimeNs saturated_gpu_ns(const Plan& plan, const causal::Window& window);

// The critical path of the window in a timeline of the plan, by kind of time, longest first.
struct PathTime {
  std::string what;
  TimeNs ns = 0;
};
[[nodiscard]] std::vector<PathTime> plan_path(const Plan& plan, const causal::Timeline& t,
                                              const causal::Window& window);

// The forward range ("model 1 forward") that covers a host node, or -1: indices into Trace::ranges().
[[nodiscard]] std::vector<int> forward_range_of_host_nodes(const causal::HappensBefore& g);
// Models placement= can place: numbered 0 to kMaxModels - 1.
inline constexpr int kMaxModels = 1024;
// The model a range names ("model 1 forward" -> 1), or -1; kMaxModels for any number from kMaxModels up, however
// many digits it has.
[[nodiscard]] int model_of_range(const std::string& name);

}  // namespace gtv::whatif
