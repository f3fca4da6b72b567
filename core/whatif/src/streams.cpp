// Changes that move GPU work between streams and GPUs: streams, placement; the multiprocessors kernels share.
#include <algorithm>
#include <map>
#include <set>

#include "changes.h"

namespace gtv::whatif {
namespace {

using causal::Input;
using causal::kNoNode;
using causal::NodeKind;

// Streams made by a change: numbered apart from the recorded ones.
constexpr std::int64_t kNewStreamBase = 1'000'000;

struct SmLimits {
  int threads = 2048;
  int registers = 65536;
  int shared_bytes = 228 * 1024;
  int blocks = 32;
};

// Per multiprocessor, by compute capability (CUDA C++ Programming Guide, "Technical Specifications per Compute
// Capability"): 9.0 (H100, H200) and 8.0 (A100) hold 2048 threads, 64 K registers and 228 / 164 KB of shared
// memory; 8.6 and 8.9 hold 1536 threads and 100 KB.
SmLimits limits_of(const DeviceInfo* d) {
  SmLimits l;
  if (d == nullptr) return l;
  if (d->compute_major == 8 && d->compute_minor == 0) l.shared_bytes = 164 * 1024;
  if (d->compute_major == 8 && d->compute_minor > 0) l = {1536, 65536, 100 * 1024, 16};
  if (d->compute_major == 7) l = {2048, 65536, 96 * 1024, 32};
  return l;
}

}  // namespace

std::vector<TimeNs> launch_order(const causal::HappensBefore& g) {
  std::vector<TimeNs> order(g.size(), 0);
  for (NodeId n = 0; n < g.size(); ++n) {
    const NodeId l = g.node(n).launch;
    order[n] = l != kNoNode ? g.recorded_start(l) : g.recorded_start(n);
  }
  return order;
}

void fill_sm_shares(Plan& p) {
  const causal::HappensBefore& g = p.g();
  const Trace& trace = g.trace();
  bool unknown = false;
  for (NodeId n = 0; n < g.size(); ++n) {
    if (g.node(n).kind != NodeKind::Kernel) {
      p.sm_share[n] = 0.0F;  // copies run on copy engines, memsets are a few microseconds: they share nothing
      continue;
    }
    const Event& e = g.event(n);
    const DeviceInfo* device = trace.device(std::int32_t(p.stream[n].device));
    const KernelDetail* k = e.detail != kNoDetail ? &trace.kernel_details()[e.detail] : nullptr;
    if (device == nullptr || device->sm_count <= 0 || k == nullptr || k->grid[0] <= 0 || k->block[0] <= 0) {
      p.sm_share[n] = 1.0F;
      unknown = true;
      continue;
    }
    const SmLimits lim = limits_of(device);
    const std::int64_t threads = std::int64_t(k->block[0]) * std::max(1, k->block[1]) * std::max(1, k->block[2]);
    const std::int64_t warps = (threads + 31) / 32;
    // Registers are allocated per warp in units of 256.
    const std::int64_t regs_per_warp = ((std::int64_t(k->registers_per_thread) * 32 + 255) / 256) * 256;
    std::int64_t resident = lim.blocks;
    resident = std::min<std::int64_t>(resident, lim.threads / std::max<std::int64_t>(1, threads));
    if (regs_per_warp > 0) resident = std::min<std::int64_t>(resident, lim.registers / (regs_per_warp * warps));
    if (k->shared_memory_bytes > 0)
      resident = std::min<std::int64_t>(resident, lim.shared_bytes / k->shared_memory_bytes);
    resident = std::max<std::int64_t>(1, resident);
    const std::int64_t blocks = std::int64_t(k->grid[0]) * std::max(1, k->grid[1]) * std::max(1, k->grid[2]);
    p.sm_share[n] = float(std::min(1.0, double(blocks) / double(resident * device->sm_count)));
  }
  p.assume(
      "kernels of different streams of one GPU share its multiprocessors: a kernel asks for the share its grid "
      "fills (blocks over multiprocessors x the blocks one multiprocessor holds by threads, registers and shared "
      "memory), and when the kernels running together ask for more than the whole GPU, each slows in proportion "
      "(the band's lower end: the busiest GPU's kernels need that share of it back to back, never idle; its upper end: "
      "every kernel asks for the whole GPU, so running together gains nothing)");
  if (unknown)
    p.assume("kernels without a launch configuration or on a GPU without a multiprocessor count fill their GPU");
  if (const std::size_t co_run = to_solo_own_times(p); co_run > 0)
    p.assume(std::to_string(co_run) +
             " kernels ran beside other streams' kernels in the recording: alone they take "
             "their recorded time over the slowdown the same sharing model gives the recorded overlap");
}

void remap_streams(Plan& p, const std::vector<StreamKey>& key, const std::vector<TimeNs>& order) {
  const causal::HappensBefore& g = p.g();
  struct KeyLess {
    bool operator()(const StreamKey& a, const StreamKey& b) const {
      return a.device != b.device ? a.device < b.device : a.stream < b.stream;
    }
  };
  std::map<StreamKey, std::vector<NodeId>, KeyLess> groups;
  for (NodeId n = 0; n < g.size(); ++n)
    if (p.is_gpu(n)) groups[key[n]].push_back(n);
  std::vector<NodeId> new_prev(g.size(), kNoNode);
  std::vector<std::uint32_t> group_of(g.size(), 0);
  std::vector<std::vector<NodeId>*> group_list;
  for (auto& [k, nodes] : groups) {
    (void)k;
    std::stable_sort(nodes.begin(), nodes.end(), [&](NodeId a, NodeId b) { return order[a] < order[b]; });
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (i > 0) new_prev[nodes[i]] = nodes[i - 1];
      group_of[nodes[i]] = std::uint32_t(group_list.size());
    }
    group_list.push_back(&nodes);
  }
  for (NodeId n = 0; n < g.size(); ++n) {
    if (!p.is_gpu(n)) continue;
    p.stream[n] = key[n];
    if (new_prev[n] == g.node(n).chain_prev) continue;
    auto& ins = p.start_in[n];
    ins.erase(std::remove_if(ins.begin(), ins.end(), [](const PlanInput& in) { return in.from == Input::From::Chain; }),
              ins.end());
    if (new_prev[n] != kNoNode)
      ins.push_back({Input::From::Chain, new_prev[n], true, 0, causal::EdgeKind::StreamOrder});
    if (ins.empty()) ins.push_back({Input::From::Root, kNoNode, true, g.recorded_start(n), {}});
  }
  std::map<LaneIndex, std::set<std::uint32_t>> group_sets;
  for (NodeId n = 0; n < g.size(); ++n)
    if (p.is_gpu(n)) group_sets[g.lane_of(n)].insert(group_of[n]);
  std::map<LaneIndex, std::size_t> groups_of_lane;
  for (const auto& [lane, set] : group_sets) groups_of_lane[lane] = set.size();
  // A synchronization that waited for the last work of a stream waits for the last work, launched by then, of
  // every stream that stream's work went to.
  for (NodeId c = 0; c < g.size(); ++c) {
    if (p.is_gpu(c)) continue;
    std::vector<PlanInput> added;
    for (const PlanInput& in : p.end_in[c]) {
      if (in.from != Input::From::Edge || in.source == kNoNode || !p.is_gpu(in.source)) continue;
      if (in.edge != causal::EdgeKind::Sync && in.edge != causal::EdgeKind::ImplicitSync) continue;
      const LaneIndex lane = g.lane_of(in.source);
      std::set<std::uint32_t> seen{group_of[in.source]};
      const causal::HappensBefore::IdRange r = g.lane_nodes(lane);
      for (NodeId m = in.source; m >= r.first && seen.size() < groups_of_lane[lane]; --m) {
        if (seen.insert(group_of[m]).second) added.push_back({Input::From::Edge, m, true, in.delay_ns, in.edge});
        if (m == r.first) break;
      }
    }
    for (PlanInput& in : added) p.end_in[c].push_back(in);
  }
  std::map<std::int64_t, std::set<std::int64_t>> streams_with_kernels;
  for (NodeId n = 0; n < g.size(); ++n)
    if (g.node(n).kind == NodeKind::Kernel) streams_with_kernels[p.stream[n].device].insert(p.stream[n].stream);
  for (const auto& [device, streams] : streams_with_kernels)
    if (streams.size() > 1) p.contention = true;
}

Expected<Ok> apply_streams(Plan& p) {
  const causal::HappensBefore& g = p.g();
  const Trace& trace = g.trace();
  const std::vector<int> forward = forward_range_of_host_nodes(g);
  // The owner of each GPU node: the model whose forward launched it, else the thread that launched it.
  // When the trace names models (forward ranges), only their work moves; else each launching thread's.
  const bool by_thread = std::none_of(forward.begin(), forward.end(), [](int r) { return r >= 0; });
  std::map<std::string, int> owners;
  std::vector<int> owner(g.size(), -1);
  for (NodeId n = 0; n < g.size(); ++n) {
    const NodeId l = g.node(n).launch;
    if (!p.is_gpu(n) || l == kNoNode || (!by_thread && forward[l] < 0)) continue;
    const std::string name = by_thread ? "thread " + std::to_string(trace.lanes()[g.lane_of(l)].key.tid)
                                       : trace.ranges()[std::size_t(forward[l])].name;
    owner[n] = owners.emplace(name, int(owners.size())).first->second;
  }
  // By the stream each node runs on now (an earlier change may have moved it).
  const auto stream_less = [](const StreamKey& a, const StreamKey& b) {
    return a.device != b.device ? a.device < b.device : a.stream < b.stream;
  };
  std::map<StreamKey, std::set<int>, decltype(stream_less)> owners_of_stream(stream_less);
  for (NodeId n = 0; n < g.size(); ++n)
    if (owner[n] >= 0) owners_of_stream[p.stream[n]].insert(owner[n]);
  std::size_t shared = 0;
  for (const auto& [stream, set] : owners_of_stream) shared += set.size() > 1 ? 1 : 0;
  if (shared == 0)
    return Error{"no stream runs the work of more than one model or thread in this trace: nothing to change"};
  std::vector<StreamKey> key(p.stream);
  std::set<int> moved;
  for (NodeId n = 0; n < g.size(); ++n) {
    if (owner[n] < 0 || owners_of_stream[p.stream[n]].size() < 2) continue;
    key[n] = {p.stream[n].device, kNewStreamBase + owner[n]};
    moved.insert(owner[n]);
  }
  remap_streams(p, key, launch_order(g));
  fill_sm_shares(p);
  p.applied.push_back("the work of " + std::to_string(moved.size()) + (by_thread ? " threads" : " models") +
                      " that shared " + std::to_string(shared) + (shared == 1 ? " stream" : " streams") +
                      " runs on a stream of its own");
  p.assume(
      "each model's work keeps its launch order on its own stream; work launched outside a model's forward "
      "stays on its stream");
  p.assume("a synchronization that waited for a shared stream waits for every stream its work went to");
  return Ok{};
}

Expected<Ok> apply_placement(Plan& p, const std::vector<int>& placement) {
  const causal::HappensBefore& g = p.g();
  const Trace& trace = g.trace();
  const std::vector<int> forward = forward_range_of_host_nodes(g);
  int models = 0;
  for (const Range& r : trace.ranges()) {
    if (r.kind != RangeKind::Forward) continue;
    const int model = model_of_range(r.name);
    if (model >= kMaxModels) {
      // The digits after "model " (ASCII, safe to print), cut short when there are many.
      const std::string_view digits = std::string_view(r.name).substr(6, r.name.find_first_not_of("0123456789", 6) - 6);
      return Error{"a forward range names model " + std::string(digits.substr(0, 24)) +
                   (digits.size() > 24 ? "..." : "") + "; placement= places models 0 to " +
                   std::to_string(kMaxModels - 1)};
    }
    models = std::max(models, model + 1);
  }
  if (models == 0) return Error{"the trace does not say which work is whose (no model forward ranges): cannot place"};
  if (int(placement.size()) != models)
    return Error{"placement= names " + std::to_string(placement.size()) + " models; the trace has " +
                 std::to_string(models)};
  // The GPUs the machine had: those its device list names, and those that ran work.
  int gpus = 0;
  for (const DeviceInfo& d : trace.devices()) gpus = std::max(gpus, d.index + 1);
  for (const Lane& lane : trace.lanes())
    if (lane.is_gpu()) gpus = std::max(gpus, int(lane.device()) + 1);
  for (const int gpu : placement)
    if (gpu >= gpus)
      return Error{"placement= names GPU " + std::to_string(gpu) + "; the machine had " + std::to_string(gpus) +
                   (gpus == 1 ? " GPU" : " GPUs")};
  // Each GPU's streams by number: the i-th stream of one GPU becomes the i-th of another (the default stream of
  // one, which has the lowest number, the default stream of the other).
  std::map<std::int64_t, std::vector<std::int64_t>> streams_of;
  for (const Lane& lane : trace.lanes())
    if (lane.is_gpu()) streams_of[lane.device()].push_back(lane.stream());
  for (auto& [device, streams] : streams_of) std::sort(streams.begin(), streams.end());
  const auto stream_on = [&](std::int64_t from_device, std::int64_t stream, std::int64_t to_device) {
    const std::vector<std::int64_t>& from = streams_of[from_device];
    const std::vector<std::int64_t>& to = streams_of[to_device];
    const auto rank = std::size_t(std::lower_bound(from.begin(), from.end(), stream) - from.begin());
    return rank < to.size() ? to[rank] : kNewStreamBase + stream;
  };
  std::vector<StreamKey> key(p.stream);
  std::size_t moved = 0;
  for (NodeId n = 0; n < g.size(); ++n) {
    const NodeId l = g.node(n).launch;
    if (!p.is_gpu(n) || l == kNoNode || forward[l] < 0) continue;
    const int model = model_of_range(trace.ranges()[std::size_t(forward[l])].name);
    if (model < 0 || placement[std::size_t(model)] == p.stream[n].device) continue;
    key[n] = {placement[std::size_t(model)],
              stream_on(p.stream[n].device, p.stream[n].stream, placement[std::size_t(model)])};
    ++moved;
  }
  if (moved == 0) return Error{"every model already runs on the GPU placement= names: nothing to change"};
  remap_streams(p, key, launch_order(g));
  fill_sm_shares(p);
  p.applied.push_back(std::to_string(moved) + " GPU work items move to the GPU their model is placed on");
  p.assume("a model's kernels take as long on the GPU it moves to as on the GPU that ran them (the same GPU model)");
  p.assume(
      "moved work joins the new GPU's stream of the same rank by number (default stream to default stream), in "
      "launch order");
  p.assume("a synchronization that waited for a GPU's stream waits for the streams its work went to");
  return Ok{};
}

}  // namespace gtv::whatif
