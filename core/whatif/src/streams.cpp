// Changes that move GPU work between streams and GPUs: streams, placement; the multiprocessors kernels share.
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "changes.h"
#include "gtv/model/kineto_names.h"
#include "owners.h"

namespace gtv::whatif {
namespace {

using causal::Input;
using causal::kNoNode;
using causal::NodeKind;

// Streams made by a change: numbered apart from the recorded ones.
constexpr std::int64_t kNewStreamBase = 1'000'000;

// What PyTorch's `with torch.cuda.stream(s):` around an owner's work costs the host: a switch to the stream and back
// took 25.0 and 26.6 us under torch.profiler on one H100 (torch 2.11, 17.2 us untraced;
// bench/training/stream_switch.py). LibTorch's CUDAStreamGuard, which gtv's own experiments use, costs next to
// nothing.
constexpr TimeNs kProfiledPythonStreamSwitchNs = 26 * kNsPerUs;

// The host's switch into a moved owner's stream before each of its ranges (one forward) that follows another
// owner's range on its thread, in the window: `switch_ns` more of the host's own time before the range's first
// call. Returns how many.
std::size_t add_stream_switches(Plan& p, const Owners& owners, const std::set<int>& moved, TimeNs switch_ns) {
  const causal::HappensBefore& g = p.g();
  std::size_t switches = 0;
  for (LaneIndex lane = 0; lane < g.trace().lanes().size(); ++lane) {
    if (g.trace().lane(lane).is_gpu()) continue;
    const causal::HappensBefore::IdRange nodes = g.lane_nodes(lane);
    int previous_range = -1;
    int previous_owner = -1;
    for (NodeId n = nodes.first; n < nodes.last; ++n) {
      const int range = owners.range_of_node[n];
      if (range < 0 || range == previous_range) continue;
      const int owner = owners.of_node[n];
      if (owner != previous_owner && moved.count(owner) > 0 && p.changes(n))
        for (PlanInput& in : p.start_in[n])
          if (in.from == Input::From::Chain) {
            in.delay_ns += switch_ns;
            ++switches;
          }
      previous_range = range;
      previous_owner = owner;
    }
  }
  return switches;
}

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

// A synchronization that waited for the last work of a stream waits for the last work, launched by then, of every
// stream that stream's work went to: of each group (new stream) of the lane, the latest node at or before the one
// it waited for, latest first. One pass over each lane keeps its groups in the order they were last seen, and each
// wait reads that order where its node is, so a lane's groups are never looked for node by node.
void add_waits_for_moved_work(Plan& p, const std::vector<std::uint32_t>& group_of, std::uint32_t groups) {
  const causal::HappensBefore& g = p.g();
  struct Wait {
    NodeId source;        // the GPU node waited for
    NodeId call;          // the waiting call
    std::uint32_t input;  // index into the call's end inputs
  };
  std::vector<Wait> waits;
  std::vector<bool> lane_waited(g.trace().lanes().size(), false);
  for (NodeId c = 0; c < g.size(); ++c) {
    if (p.is_gpu(c)) continue;
    for (std::size_t i = 0; i < p.end_in[c].size(); ++i) {
      const PlanInput& in = p.end_in[c][i];
      if (in.from != Input::From::Edge || in.source == kNoNode || !p.is_gpu(in.source)) continue;
      if (in.edge != causal::EdgeKind::Sync && in.edge != causal::EdgeKind::ImplicitSync) continue;
      waits.push_back({in.source, c, std::uint32_t(i)});
      lane_waited[g.lane_of(in.source)] = true;
    }
  }
  std::stable_sort(waits.begin(), waits.end(), [](const Wait& a, const Wait& b) { return a.source < b.source; });
  // The inputs each wait adds; in the end in the order the calls' waits come.
  struct Added {
    NodeId call;
    std::uint32_t input;
    PlanInput in;
  };
  std::vector<Added> added;
  // Groups by when the lane last ran their work, most recent first: a doubly linked list over group ids.
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> next(groups, kNone), prev(groups, kNone), last_node(groups, kNoNode);
  for (LaneIndex lane = 0; lane < lane_waited.size(); ++lane) {
    if (!lane_waited[lane]) continue;
    const causal::HappensBefore::IdRange r = g.lane_nodes(lane);
    auto wait =
        std::lower_bound(waits.begin(), waits.end(), r.first, [](const Wait& w, NodeId n) { return w.source < n; });
    std::uint32_t head = kNone;
    std::vector<std::uint32_t> listed;
    for (NodeId m = r.first; m < r.last; ++m) {
      const std::uint32_t k = group_of[m];
      if (k != head) {
        if (last_node[k] != kNoNode) {  // unlink
          if (prev[k] != kNone) next[prev[k]] = next[k];
          if (next[k] != kNone) prev[next[k]] = prev[k];
        } else {
          listed.push_back(k);
        }
        next[k] = head;
        prev[k] = kNone;
        if (head != kNone) prev[head] = k;
        head = k;
      }
      last_node[k] = m;
      for (; wait != waits.end() && wait->source == m; ++wait) {
        const PlanInput& in = p.end_in[wait->call][wait->input];
        for (std::uint32_t o = next[head]; o != kNone; o = next[o])
          added.push_back({wait->call, wait->input, {Input::From::Edge, last_node[o], true, in.delay_ns, in.edge}});
      }
    }
    for (const std::uint32_t k : listed) {
      next[k] = prev[k] = kNone;
      last_node[k] = kNoNode;
    }
  }
  std::stable_sort(added.begin(), added.end(), [](const Added& a, const Added& b) {
    return a.call != b.call ? a.call < b.call : a.input < b.input;
  });
  for (const Added& a : added) p.end_in[a.call].push_back(a.in);
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
      ins.push_back({Input::From::Chain, new_prev[n], true, g.queued_gap_ns(), causal::EdgeKind::StreamOrder});
    if (ins.empty()) ins.push_back({Input::From::Root, kNoNode, true, g.recorded_start(n), {}});
  }
  add_waits_for_moved_work(p, group_of, std::uint32_t(group_list.size()));
  std::map<std::int64_t, std::set<std::int64_t>> streams_with_kernels;
  for (NodeId n = 0; n < g.size(); ++n)
    if (g.node(n).kind == NodeKind::Kernel) streams_with_kernels[p.stream[n].device].insert(p.stream[n].stream);
  for (const auto& [device, streams] : streams_with_kernels)
    if (streams.size() > 1) p.contention = true;
}

Expected<Ok> apply_streams(Plan& p, Bound bound) {
  const causal::HappensBefore& g = p.g();
  const Trace& trace = g.trace();
  const Owners owners = find_owners(g, p.owners_pattern);
  if (owners.empty() && !p.owners_pattern.empty()) return Error{no_owners_reason(p.owners_pattern)};
  // The owner of each GPU node: the owner of the call that launched it, else (when the trace names no owners) the
  // thread that launched it. Work launched outside every owner's ranges stays where it ran.
  const bool by_thread = owners.empty();
  std::map<std::string, int> thread_owners;
  std::vector<int> owner(g.size(), -1);
  for (NodeId n = 0; n < g.size(); ++n) {
    const NodeId l = g.node(n).launch;
    if (!p.is_gpu(n) || l == kNoNode) continue;
    if (!by_thread) {
      owner[n] = owners.of_node[l];
      continue;
    }
    const std::string name = "thread " + std::to_string(trace.lanes()[g.lane_of(l)].key.tid);
    owner[n] = thread_owners.emplace(name, int(thread_owners.size())).first->second;
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
  if (shared > 0 && by_thread) {
    std::vector<LaneIndex> lanes;
    for (NodeId n = 0; n < g.size(); ++n) {
      const NodeId l = g.node(n).launch;
      if (p.is_gpu(n) && l != kNoNode) lanes.push_back(g.lane_of(l));
    }
    std::sort(lanes.begin(), lanes.end());
    lanes.erase(std::unique(lanes.begin(), lanes.end()), lanes.end());
    if (std::optional<std::string> why = dependent_threads(g, lanes))
      return Error{"the threads that shared a stream are one model's work, not owners of their own: " + *why + "; " +
                   no_owners_reason(p.owners_pattern)};
  }
  if (shared == 0 && by_thread) {
    // One thread per stream says nothing about models: one thread may well have launched several models' work.
    std::string threads =
        thread_owners.size() == 1 ? "one thread launched all the GPU work" : "each stream's work came from one thread";
    return Error{threads + ", and " + no_owners_reason(p.owners_pattern)};
  }
  if (shared == 0)
    return Error{"no stream runs the work of more than one of the " + std::to_string(owners.names.size()) +
                 " owners found (" + owners.source + "): nothing to change"};
  std::vector<StreamKey> key(p.stream);
  std::set<int> moved;
  for (NodeId n = 0; n < g.size(); ++n) {
    if (owner[n] < 0 || owners_of_stream[p.stream[n]].size() < 2) continue;
    key[n] = {p.stream[n].device, kNewStreamBase + owner[n]};
    moved.insert(owner[n]);
  }
  remap_streams(p, key, launch_order(g));
  fill_sm_shares(p);
  p.applied.push_back("the work of " + std::to_string(moved.size()) +
                      (by_thread ? " threads" : " owners (" + owners.source + ")") + " that shared " +
                      std::to_string(shared) + (shared == 1 ? " stream" : " streams") + " runs on a stream of its own");
  // A torch.profiler trace is of a Python program: entering each owner's stream is a `with torch.cuda.stream(...)`.
  // The band: half to twice that (a process runs all its host code up to 2x faster or slower than another).
  if (!by_thread && trace.metadata().source_tool == kineto::kSourceTool) {
    const TimeNs switch_ns = bound == Bound::Low    ? kProfiledPythonStreamSwitchNs / 2
                             : bound == Bound::High ? 2 * kProfiledPythonStreamSwitchNs
                                                    : kProfiledPythonStreamSwitchNs;
    if (const std::size_t switches = add_stream_switches(p, owners, moved, switch_ns); switches > 0) {
      p.applied.push_back(std::to_string(switches) + " ranges enter their owner's stream");
      p.assume(
          "entering an owner's stream (`with torch.cuda.stream(...)` around each of its ranges that does not follow "
          "one of the same owner on its thread) costs the host 26 us, what a switch to a stream and back took under "
          "torch.profiler on one H100 (17 us untraced), the band half to twice that");
    }
  }
  p.assume(
      "each owner's work keeps its launch order on its own stream; work launched outside every owner's ranges "
      "stays on its stream");
  p.assume("a synchronization that waited for a shared stream waits for every stream its work went to");
  return Ok{};
}

Expected<Ok> apply_placement(Plan& p, const std::vector<int>& placement) {
  const causal::HappensBefore& g = p.g();
  const Trace& trace = g.trace();
  const Owners owners = find_owners(g, p.owners_pattern);
  if (owners.empty()) return Error{"cannot place models: " + no_owners_reason(p.owners_pattern)};
  // Model i is the owner named "model i ..." when every owner is so named, else the i-th owner to start.
  std::vector<int> model_of_owner(owners.names.size());
  const bool numbered = std::all_of(owners.names.begin(), owners.names.end(),
                                    [](const std::string& name) { return model_of_range(name) >= 0; });
  int models = 0;
  for (std::size_t i = 0; i < owners.names.size(); ++i) {
    model_of_owner[i] = numbered ? model_of_range(owners.names[i]) : int(i);
    if (model_of_owner[i] >= kMaxModels) {
      // The digits after "model " (ASCII, safe to print), cut short when there are many; a range with more
      // owners than that is refused the same way.
      const std::string& name = owners.names[i];
      const std::size_t at = numbered ? name.find("model ") + 6 : std::string::npos;
      const std::string_view digits =
          at == std::string::npos ? std::string_view{}
                                  : std::string_view(name).substr(at, name.find_first_not_of("0123456789", at) - at);
      return Error{(numbered
                        ? "a range names model " + std::string(digits.substr(0, 24)) + (digits.size() > 24 ? "..." : "")
                        : "the trace has more than " + std::to_string(kMaxModels) + " owners") +
                   "; placement= places models 0 to " + std::to_string(kMaxModels - 1)};
    }
    models = std::max(models, model_of_owner[i] + 1);
  }
  if (int(placement.size()) != models)
    return Error{"placement= names " + std::to_string(placement.size()) + " models; the trace has " +
                 std::to_string(models) + " (" + owners.source + ")"};
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
    if (!p.is_gpu(n) || l == kNoNode || owners.of_node[l] < 0) continue;
    const int model = model_of_owner[std::size_t(owners.of_node[l])];
    if (placement[std::size_t(model)] == p.stream[n].device) continue;
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
