#include "graph_assembly.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>
#include <tuple>

#include "call_names.h"
#include "gtv/base/sorted_runs.h"
#include "gtv/model/collectives.h"

namespace gtv::causal {
namespace {

constexpr TimeNs kMinTime = std::numeric_limits<TimeNs>::min();
// How far back a waiting call's search for the work it waited for looks, past work launched after the call: the
// latest-ending work launched before it is almost always among the last few to end.
constexpr int kWaitSearchSteps = 256;
// A stream starts queued work a microsecond or two after its inputs allow (the seed loop's median gap on one stream
// is 1.6 us on H200); a start later than this with other streams' work running throughout waited for the GPU.
constexpr TimeNs kHeldStartNs = 5 * kNsPerUs;
constexpr TimeNs kSynchronousLaunchMinKernelNs = 20 * kNsPerUs;
// The queued gaps' median is read to 10 ns (rounded down) from a histogram of 10 ns steps up to 20 us (longer gaps
// count above it).
constexpr TimeNs kQueuedGapStepNs = 10;
constexpr std::size_t kQueuedGapSteps = 2000;
bool is_api(EventKind kind) { return kind == EventKind::Runtime || kind == EventKind::Driver; }

NodeKind gpu_node_kind(EventKind kind) {
  if (kind == EventKind::Memcpy) return NodeKind::Copy;
  if (kind == EventKind::Memset) return NodeKind::Memset;
  return NodeKind::Kernel;
}

}  // namespace

void GraphAssembly::run() {
  g_.lane_first_node_.reserve(trace_.lanes().size() + 1);
  g_.nodes_.reserve(trace_.event_count());  // at most one node per event
  for (LaneIndex l = 0; l < trace_.lanes().size(); ++l) {
    g_.lane_first_node_.push_back(static_cast<NodeId>(g_.nodes_.size()));
    if (trace_.lane(l).is_gpu())
      add_gpu_lane(l);
    else
      add_host_lane(l);
  }
  g_.lane_first_node_.push_back(static_cast<NodeId>(g_.nodes_.size()));
  host_flags_.resize(g_.nodes_.size(), 0);
  for (const Span& s : spans_)
    if (s.kind == PartKind::LazyLoading && !s.in_gap) host_flags_[s.node] |= LoadingFlag;
  for (const NodeId n : queue_full_) host_flags_[n] |= QueueFullFlag;
  add_launches();
  add_dependencies();
  add_host_waits();
  bind_gpu_starts();
  add_thread_handoffs();
  add_collective_workers();
  add_collectives();
  finish();
}

// The outermost API call of each nest becomes a node; loading and tracer records inside a call are parts of it,
// those between calls parts of the gap before the next call; a "command buffer full" record marks its call. On a
// thread whose ops were recorded (PyTorch's profiler records every op of every thread it sees), a stretch between two
// calls of at least kUnrecordedMinNs in which the thread recorded nothing at all is an unrecorded part of the gap:
// the thread was outside any op, waiting or in code nobody recorded. A thread with calls only (no op recording)
// keeps its gaps as its own work.
void GraphAssembly::add_host_lane(LaneIndex l) {
  const Lane& lane = trace_.lane(l);
  NodeId current = kNoNode, previous = kNoNode;
  TimeNs open_end = kMinTime, covered_until = kMinTime;
  bool records_ops = false;
  // On a thread that serves collectives, a collective's range holds its wait for the transfer and the peers; a
  // multiprocessing DataLoader's __next__ holds the wait for its worker processes: they cover nothing the thread
  // did.
  const bool serving = serves_collectives(l);
  const std::size_t first_span = spans_.size();
  std::vector<Span> pending;  // records in the gap before the next call
  for (std::uint32_t i = 0; i < lane.events.size(); ++i) {
    const Event& e = lane.events[i];
    if (current != kNoNode && e.start_ns - covered_until >= kUnrecordedMinNs)
      pending.push_back({kNoNode, true, PartKind::Unrecorded, covered_until, e.start_ns});
    const bool waiting =
        (serving && is_collective_range_event(e)) ||
        ((e.kind == EventKind::CpuOp || e.kind == EventKind::Annotation) && detail::is_waiting_range(trace_.name(e)));
    covered_until = std::max(covered_until, waiting ? e.start_ns : e.end_ns());
    records_ops = records_ops || e.kind == EventKind::CpuOp;
    if (current != kNoNode && e.start_ns < open_end) {
      const detail::RecordRole role = facts(e.name).role;
      if (role == detail::RecordRole::QueueFull)
        queue_full_.push_back(current);
      else if (role == detail::RecordRole::LazyLoading || role == detail::RecordRole::TracingOverhead)
        spans_.push_back({current, false,
                          role == detail::RecordRole::LazyLoading ? PartKind::LazyLoading : PartKind::TracingOverhead,
                          e.start_ns, std::min(e.end_ns(), open_end)});
      continue;
    }
    if (is_api(e.kind) || e.kind == EventKind::Sync) {
      previous = current;
      current = static_cast<NodeId>(g_.nodes_.size());
      Node n;
      n.ref = {l, i};
      n.chain_prev = previous;
      g_.nodes_.push_back(n);
      open_end = e.end_ns();
      // A loading call that is itself the outermost call (cuLibraryLoadData between launches) is all loading.
      if (facts(e.name).role == detail::RecordRole::LazyLoading)
        spans_.push_back({current, false, PartKind::LazyLoading, e.start_ns, e.end_ns()});
      for (Span& s : pending) s.node = current;
      if (previous != kNoNode) spans_.insert(spans_.end(), pending.begin(), pending.end());
      pending.clear();
    } else if (e.kind == EventKind::Overhead) {
      const detail::RecordRole role = facts(e.name).role;
      if (role == detail::RecordRole::LazyLoading || role == detail::RecordRole::TracingOverhead)
        pending.push_back({kNoNode, true,
                           role == detail::RecordRole::LazyLoading ? PartKind::LazyLoading : PartKind::TracingOverhead,
                           e.start_ns, e.end_ns()});
    }
  }
  if (!records_ops)
    spans_.erase(std::remove_if(spans_.begin() + std::ptrdiff_t(first_span), spans_.end(),
                                [](const Span& s) { return s.kind == PartKind::Unrecorded; }),
                 spans_.end());
}

const GraphAssembly::NameFacts& GraphAssembly::facts(StringId name) const {
  if (name_facts_.empty()) name_facts_.resize(trace_.strings().size());
  NameFacts& f = name < name_facts_.size() ? name_facts_[name] : scratch_facts_;
  if (!f.known || &f == &scratch_facts_) {
    const std::string_view text = trace_.strings().view(name);
    f = {true, detail::is_launch_call(text), detail::sync_scope(text), detail::call_wait(text),
         detail::record_role(text)};
  }
  return f;
}

bool GraphAssembly::is_communication(StringId kernel_name) {
  if (communication_names_.empty()) communication_names_.assign(trace_.strings().size(), -1);
  if (kernel_name >= communication_names_.size()) return is_communication_kernel(trace_.strings().view(kernel_name));
  std::int8_t& known = communication_names_[kernel_name];
  if (known < 0) known = is_communication_kernel(trace_.strings().view(kernel_name)) ? 1 : 0;
  return known == 1;
}

void GraphAssembly::add_gpu_lane(LaneIndex l) {
  const Lane& lane = trace_.lane(l);
  NodeId previous = kNoNode;
  for (std::uint32_t i = 0; i < lane.events.size(); ++i) {
    const Event& e = lane.events[i];
    if (!is_gpu_activity(e.kind)) continue;
    Node n;
    n.ref = {l, i};
    n.kind = gpu_node_kind(e.kind);
    n.chain_prev = previous;
    n.communication = n.kind == NodeKind::Kernel && is_communication(e.name);
    previous = static_cast<NodeId>(g_.nodes_.size());
    g_.nodes_.push_back(n);
  }
}

// The node of a host event, or of the call it is nested in.
NodeId GraphAssembly::enclosing_node(EventRef ref) const {
  if (const NodeId n = g_.node_of(ref); n != kNoNode) return n;
  const Event& e = trace_.event(ref);
  const NodeId n = g_.node_at_or_before(ref.lane, e.start_ns);
  if (n == kNoNode || g_.recorded_end(n) < e.end_ns() || trace_.lane(ref.lane).is_gpu()) return kNoNode;
  return n;
}

void GraphAssembly::add_launches() {
  const std::vector<Flow>& flows = trace_.flows();
  for (std::size_t i = 0; i < flows.size(); ++i) {
    trace_.prefetch_flow_events(i);
    const Flow& f = flows[i];
    const NodeId to = trace_.lane(f.to.lane).is_gpu() ? g_.node_of(f.to) : kNoNode;
    const NodeId from = trace_.lane(f.from.lane).is_gpu() ? kNoNode : enclosing_node(f.from);
    if (to == kNoNode || from == kNoNode) {
      ++g_.anomalies_.flows_without_node;
      continue;
    }
    if (g_.recorded_start(to) < g_.recorded_start(from)) {
      ++g_.anomalies_.launch_after_work;
      continue;
    }
    if (g_.nodes_[to].launch == kNoNode) g_.nodes_[to].launch = from;
    launched_.emplace_back(from, to);
  }
  sort_runs(launched_);
}

// Dependency links: an event wait holds the start of the work after it; a host sync's end waits for its work. A
// sync record inside a call that never blocks (cudaEventQuery) is no wait.
void GraphAssembly::add_dependencies() {
  for (NodeId n = 0; n < g_.nodes_.size(); ++n)
    if (g_.nodes_[n].kind == NodeKind::HostCall && facts(g_.event(n).name).wait == detail::CallWait::NonBlocking)
      host_flags_[n] |= NonBlockingFlag;
  for (const Flow& d : trace_.dependencies()) {
    const NodeId from = g_.node_of(d.from);
    if (from == kNoNode || g_.nodes_[from].kind == NodeKind::HostCall) continue;
    if (trace_.lane(d.to.lane).is_gpu()) {
      const NodeId to = g_.node_of(d.to);
      if (to == kNoNode) continue;
      if (g_.recorded_end(from) > g_.recorded_start(to)) {
        ++g_.anomalies_.wait_after_end;
        continue;
      }
      g_.edges_.push_back({from, to, EdgeKind::EventWait, false});
    } else {
      const NodeId to = enclosing_node(d.to);
      if (to == kNoNode || (host_flags_[to] & NonBlockingFlag)) continue;
      if (g_.recorded_end(from) > g_.recorded_end(to)) {
        ++g_.anomalies_.wait_after_end;
        continue;
      }
      g_.edges_.push_back({from, to, EdgeKind::Sync, false});
      host_flags_[to] |= WaitLinkedFlag;
    }
  }
}

// The input that set each GPU start: the latest of the previous work on its stream, its launch call's return (plus
// the least latency from a launch's return to its work's start that the trace shows, negative where work starts
// before its launch returns: the call's lazy loading or wait for queue room comes before the work is handed over)
// and the work an event wait held it for. An input the recording contradicts is no dependency. Also the median gap
// from work to the work queued behind it on its stream.
void GraphAssembly::bind_gpu_starts() {
  TimeNs min_latency = std::numeric_limits<TimeNs>::max();
  // Each launched node's launch handover, read once here for the binding below (the launch call's event is far
  // from the work's in memory).
  std::vector<TimeNs> handover_ns(g_.nodes_.size(), 0);
  for (NodeId id = 0; id < g_.nodes_.size(); ++id) {
    const Node& n = g_.nodes_[id];
    if (n.kind == NodeKind::HostCall || n.launch == kNoNode) continue;
    handover_ns[id] = g_.recorded_handover(n.launch);
    min_latency = std::min(min_latency, trace_.event(n.ref).start_ns - handover_ns[id]);
  }
  g_.min_launch_latency_ns_ = min_latency == std::numeric_limits<TimeNs>::max() ? 0 : min_latency;
  std::stable_sort(g_.edges_.begin(), g_.edges_.end(), [](const Edge& a, const Edge& b) { return a.to < b.to; });
  // The gaps between a kernel queued on a stream and the kernel before it: the GPU's own time from one to the next.
  std::vector<std::uint64_t> queued_gaps(kQueuedGapSteps + 1, 0);
  std::uint64_t queued = 0;
  // The nodes in order, and the edges (sorted by target) with them: a cursor, not a search per node.
  Edge* const edges_end = g_.edges_.data() + g_.edges_.size();
  Edge* into = g_.edges_.data();
  for (NodeId id = 0; id < g_.nodes_.size(); ++id) {
    Node& n = g_.nodes_[id];
    while (into != edges_end && into->to < id) ++into;
    if (n.kind == NodeKind::HostCall) {
      n.start_binding = n.chain_prev == kNoNode ? StartBinding::Root : StartBinding::Chain;
      continue;
    }
    const TimeNs start = g_.recorded_start(id);
    // Work that started before the previous work of its stream ended (a kernel launched with programmatic
    // dependent launch starts while the one before it finishes) keeps its stream order, as far as it overlapped:
    // the stream never sets its start, and a replay lets it start no earlier before its predecessor's end.
    const bool overlaps = n.chain_prev != kNoNode && g_.recorded_end(n.chain_prev) > start;
    if (overlaps) ++g_.anomalies_.overlapping_on_stream;
    TimeNs latest = kMinTime;
    n.start_binding = StartBinding::Root;
    if (n.chain_prev != kNoNode && !overlaps)
      latest = g_.recorded_end(n.chain_prev), n.start_binding = StartBinding::Chain;
    Edge* binding_edge = nullptr;
    for (Edge* e = into; e != edges_end && e->to == id; ++e) {
      if (e->to_end() || g_.recorded_end(e->from) <= latest) continue;
      latest = g_.recorded_end(e->from);
      binding_edge = e;
      n.start_binding = StartBinding::Extra;
    }
    // Work whose launch call began only after the previous work of its stream ended was not queued behind it: the
    // stream had nothing to start, whatever the least latency says (negative where work starts before its call
    // returns, as every launch does under CUDA_LAUNCH_BLOCKING=1).
    const bool launched_after_previous = n.start_binding == StartBinding::Chain && n.launch != kNoNode &&
                                         g_.recorded_start(n.launch) >= g_.recorded_end(n.chain_prev);
    if (n.launch != kNoNode && (launched_after_previous || handover_ns[id] + g_.min_launch_latency_ns_ > latest)) {
      n.start_binding = StartBinding::Launch;
      binding_edge = nullptr;
    }
    if (binding_edge) binding_edge->binding = true;
    if (n.start_binding == StartBinding::Launch) latest = handover_ns[id] + g_.min_launch_latency_ns_;
    if (launched_after_previous) latest = std::max(latest, g_.recorded_start(n.launch));
    if (n.start_binding != StartBinding::Root && start - latest > kHeldStartNs)
      n.held_by_other_streams = held_throughout(id, latest, start);
    // A kernel queued behind a kernel: handed over before that one ended (not only by the least latency, which
    // under CUDA_LAUNCH_BLOCKING=1 is minus the longest kernel).
    if (n.start_binding == StartBinding::Chain && n.launch != kNoNode && n.kind == NodeKind::Kernel &&
        g_.nodes_[n.chain_prev].kind == NodeKind::Kernel && handover_ns[id] <= g_.recorded_end(n.chain_prev)) {
      const auto step = static_cast<std::size_t>((start - g_.recorded_end(n.chain_prev)) / kQueuedGapStepNs);
      ++queued_gaps[std::min(step, kQueuedGapSteps)];
      ++queued;
    }
  }
  if (queued == 0) return;
  std::uint64_t below = 0;
  for (std::size_t step = 0; step <= kQueuedGapSteps; ++step) {
    below += queued_gaps[step];
    if (2 * below >= queued) {
      g_.queued_gap_ns_ = TimeNs(step) * kQueuedGapStepNs;
      break;
    }
  }
}

// Whether work of another stream of the node's GPU ran from `from_ns` to `to_ns` (within kHeldStartNs): scans back
// from the last work that started by from_ns, a bounded number of steps (a GPU runs a few kernels at once).
bool GraphAssembly::held_throughout(NodeId id, TimeNs from_ns, TimeNs to_ns) {
  const Lane& lane = trace_.lane(g_.nodes_[id].ref.lane);
  const DeviceStarts& d = starts_by_device(lane.device());
  std::size_t k = static_cast<std::size_t>(
      std::upper_bound(d.start_ns.begin(), d.start_ns.end(), from_ns + kHeldStartNs) - d.start_ns.begin());
  for (int steps = 0; k > 0 && steps < kWaitSearchSteps; ++steps) {
    --k;
    if (d.stream[k] == lane.stream()) continue;
    if (d.end_ns[k] >= to_ns - kHeldStartNs) return true;
  }
  return false;
}

// GPU work of one device by start (then by node), built on first need.
const GraphAssembly::DeviceStarts& GraphAssembly::starts_by_device(std::int64_t device) {
  if (starts_by_device_.empty()) {
    std::map<std::int64_t, std::vector<Ending>> by_start;  // Ending holds the start here
    std::map<std::int64_t, std::size_t> counts;
    for (LaneIndex l = 0; l < trace_.lanes().size(); ++l)
      if (trace_.lane(l).is_gpu()) counts[trace_.lane(l).device()] += g_.lane_nodes(l).last - g_.lane_nodes(l).first;
    for (const auto& [d, count] : counts) by_start[d].reserve(count);
    for (NodeId n = 0; n < g_.nodes_.size(); ++n)
      if (g_.nodes_[n].kind != NodeKind::HostCall)
        by_start[trace_.lane(g_.nodes_[n].ref.lane).device()].push_back({g_.recorded_start(n), n});
    for (auto& [d, v] : by_start) {
      sort_runs(v);
      DeviceStarts& out = starts_by_device_[d];
      out.start_ns.reserve(v.size());
      out.stream.reserve(v.size());
      out.end_ns.reserve(v.size());
      for (const Ending& s : v) {
        out.start_ns.push_back(s.end_ns);
        out.stream.push_back(trace_.lane(g_.nodes_[s.node].ref.lane).stream());
        out.end_ns.push_back(g_.recorded_end(s.node));
      }
    }
  }
  return starts_by_device_[device];
}

void GraphAssembly::add_host_waits() {
  std::stable_sort(g_.edges_.begin(), g_.edges_.end(), [](const Edge& a, const Edge& b) { return a.to < b.to; });
  endings_.reserve(g_.nodes_.size());
  for (NodeId id = 0; id < g_.nodes_.size(); ++id)
    if (g_.nodes_[id].kind != NodeKind::HostCall) endings_.push_back({g_.recorded_end(id), id});
  sort_runs(endings_);
  // The linked syncs (edges sorted by target here): the latest-ending work one waited for set its end, if it
  // ended after the call began.
  for (std::size_t i = 0; i < g_.edges_.size();) {
    const NodeId call = g_.edges_[i].to;
    Edge* latest = nullptr;
    for (; i < g_.edges_.size() && g_.edges_[i].to == call; ++i) {
      Edge& e = g_.edges_[i];
      if (e.kind == EdgeKind::Sync && (!latest || g_.recorded_end(e.from) > g_.recorded_end(latest->from))) latest = &e;
    }
    if (!latest || g_.recorded_end(latest->from) <= g_.recorded_start(call)) continue;
    latest->binding = true;
    g_.nodes_[call].end_bound = true;
    if (g_.nodes_[latest->from].launch == call) g_.nodes_[call].waits_for_own_work = true;
    set_own_time(call, g_.recorded_end(call) - g_.recorded_end(latest->from));
  }
  // A synchronize waits for the work of every stream of its device, or of its stream; the lane searches that takes
  // are bounded by the graph's size (a trace of a million streams and as many syncs is not searched a million
  // times each).
  for (LaneIndex l = 0; l < trace_.lanes().size(); ++l)
    if (trace_.lane(l).is_gpu()) gpu_lanes_by_device_[trace_.lane(l).device()].push_back(l);
  sync_searches_left_ = 8 * g_.nodes_.size() + 1024;
  // The calls in order, and their launches (sorted by call) with them: a cursor, not a search per call. A thread's
  // calls are consecutive ids: the stream its last launch went to is its current stream, that stream's device its
  // current device.
  auto launch = launched_.cbegin();
  LaneIndex thread = kNoLane, current_stream = kNoLane;
  for (NodeId id = 0; id < g_.nodes_.size(); ++id) {
    if (g_.nodes_[id].kind != NodeKind::HostCall) continue;
    if (g_.nodes_[id].ref.lane != thread) {
      thread = g_.nodes_[id].ref.lane;
      current_stream = kNoLane;
    }
    while (launch != launched_.cend() && launch->first < id) ++launch;
    auto last = launch;
    while (last != launched_.cend() && last->first == id) ++last;
    add_host_wait(id, {launch, last});
    const detail::SyncScope scope = facts(g_.event(id).name).sync;
    if (scope != detail::SyncScope::None && !(host_flags_[id] & WaitLinkedFlag)) {
      // Where the call waited in the recording, the work it waited for names its stream and device.
      const bool waited = !g_.edges_.empty() && g_.edges_.back().to == id;
      const LaneIndex stream = waited ? g_.nodes_[g_.edges_.back().from].ref.lane : current_stream;
      if (scope == detail::SyncScope::Stream && stream != kNoLane)
        add_sync_waits(id, std::span<const LaneIndex>(&stream, 1));
      else if (scope == detail::SyncScope::Device)
        add_sync_waits(id, device_lanes(stream));
    }
    if (launch != last) current_stream = g_.nodes_[launch->second].ref.lane;
  }
}

// The GPU lanes of the device of `stream`, or of the trace's only GPU when there is no stream to go by.
std::span<const LaneIndex> GraphAssembly::device_lanes(LaneIndex stream) const {
  const auto lanes = stream != kNoLane                  ? gpu_lanes_by_device_.find(trace_.lane(stream).device())
                     : gpu_lanes_by_device_.size() == 1 ? gpu_lanes_by_device_.begin()
                                                        : gpu_lanes_by_device_.end();
  if (lanes == gpu_lanes_by_device_.end()) return {};
  return lanes->second;
}

// A synchronize returns only when the work queued before it on its device (cudaDeviceSynchronize: every stream of
// the thread's current device) or on its stream (cudaStreamSynchronize: the thread's current stream; PyTorch's
// .item() and .cpu() synchronize it) has run. Where the recording shows the call waiting, add_host_wait linked the
// work that ended last; work that had ended before the call began set nothing in the recording, but a change that
// lets the host run ahead (an asynchronous copy instead of a blocking one) leaves it still running when the call
// comes: each stream's last work queued before the call is an input of its end, with no delay of its own.
void GraphAssembly::add_sync_waits(NodeId call, std::span<const LaneIndex> gpu_lanes) {
  const TimeNs start = g_.recorded_start(call), end = g_.recorded_end(call);
  const bool ranked = !trace_.metadata().ranks.empty();
  const RankInfo* rank = ranked ? trace_.rank_of_pid(trace_.lane(g_.nodes_[call].ref.lane).key.pid) : nullptr;
  for (const LaneIndex lane : gpu_lanes) {
    if (sync_searches_left_ == 0) return;
    --sync_searches_left_;
    if (ranked && trace_.rank_of_device(trace_.lane(lane).device()) != rank) continue;
    const NodeId work = last_launched_before(lane, start);
    if (work == kNoNode || g_.recorded_end(work) > end) continue;
    bool linked = false;
    for (std::size_t i = g_.edges_.size(); i > 0 && g_.edges_[i - 1].to == call; --i)
      linked = linked || g_.edges_[i - 1].from == work;
    if (!linked) g_.edges_.push_back({work, call, EdgeKind::Sync, false});
  }
}

// The last work of a GPU lane whose launch began before `time_ns` (its own start where no launch is recorded). A
// stream runs its work in the order it was queued, so the launches' starts rise along the lane.
NodeId GraphAssembly::last_launched_before(LaneIndex gpu_lane, TimeNs time_ns) const {
  const HappensBefore::IdRange r = g_.lane_nodes(gpu_lane);
  NodeId lo = r.first, hi = r.last;
  while (lo < hi) {
    const NodeId mid = lo + (hi - lo) / 2;
    const NodeId from = g_.nodes_[mid].launch;
    if (g_.recorded_start(from == kNoNode ? mid : from) < time_ns)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo == r.first ? kNoNode : lo - 1;
}

// A call with no dependency link waits by what its name says (a synchronize, a blocking copy, cudaFree, an async
// copy of pageable memory), or because its launch found the queue full or drained the GPU to load a module: the
// work it waited for is the latest-ending work launched before it that ended while it ran.
void GraphAssembly::add_host_wait(NodeId id, Launches launches) {
  const Event& e = g_.event(id);
  bool pageable = false;
  const std::int64_t device = launched_device(launches, pageable);
  const NameFacts& named = facts(e.name);
  // Its copy started long before it returned (on the loader-pageable recording a 25 MB copy 248 us after the call
  // began, 4.9 ms before it returned): taken from the call's end, that launch would set the least launch latency of
  // the whole trace to -4.9 ms, and every later start within 4.9 ms of its launch would look set by the work queued
  // before it on its stream.
  if (named.wait == detail::CallWait::AsyncCopy && pageable) g_.nodes_[id].stages_own_copy = true;
  if (host_flags_[id] & (WaitLinkedFlag | NonBlockingFlag)) return;
  EdgeKind kind{};
  switch (e.kind == EventKind::Sync ? detail::CallWait::Explicit : named.wait) {
    case detail::CallWait::Explicit:
      kind = EdgeKind::Sync;
      break;
    case detail::CallWait::Implicit:
      kind = EdgeKind::ImplicitSync;
      break;
    case detail::CallWait::AsyncCopy:
      if (!pageable) return;
      kind = EdgeKind::ImplicitSync;
      break;
    default:
      if (host_flags_[id] & QueueFullFlag)
        kind = EdgeKind::QueueFull;
      else if ((host_flags_[id] & LoadingFlag) && named.launch)
        kind = EdgeKind::LazyLoadDrain;
      else if (const NodeId own = synchronous_launch(id, launches); own != kNoNode)
        return add_wait_edge(own, id, EdgeKind::ImplicitSync);
      else
        return;
  }
  // A synchronize names no GPU in its record; a module load waits for every GPU of the process to drain.
  const bool any_gpu = kind == EdgeKind::Sync || kind == EdgeKind::LazyLoadDrain;
  const NodeId waited = waited_work(id, any_gpu ? -1 : device);
  if (waited != kNoNode) add_wait_edge(waited, id, kind);
}

void GraphAssembly::add_wait_edge(NodeId waited, NodeId call, EdgeKind kind) {
  g_.edges_.push_back({waited, call, kind, true});
  g_.nodes_[call].end_bound = true;
  if (g_.nodes_[waited].launch == call) g_.nodes_[call].waits_for_own_work = true;
  set_own_time(call, g_.recorded_end(call) - g_.recorded_end(waited));
}

// A launch that returned only after the kernel it launched ended waited for it (what CUDA_LAUNCH_BLOCKING=1 does).
// A kernel under kSynchronousLaunchMinKernelNs can end while an asynchronous launch is still returning: in the
// seed loop's asynchronous recordings 1-7 of 546 launches end after their kernel, all of kernels under 20 us.
NodeId GraphAssembly::synchronous_launch(NodeId call, Launches launches) const {
  if (!facts(g_.event(call).name).launch) return kNoNode;
  for (const auto& [from, to] : launches) {
    const Event& work = g_.event(to);
    if (work.duration_ns >= kSynchronousLaunchMinKernelNs && work.end_ns() <= g_.recorded_end(call) &&
        work.end_ns() > g_.recorded_start(call))
      return to;
  }
  return kNoNode;
}

// The GPU work (on `device`, any of the call's rank if -1) that ended last while the call ran, among work launched
// before the call began or by the call itself; kNoNode if none ended while it ran. In a run merged from ranks a
// call waits only for its own rank's GPUs: ranks meet only at matched collectives.
NodeId GraphAssembly::waited_work(NodeId call, std::int64_t device) const {
  const TimeNs start = g_.recorded_start(call), end = g_.recorded_end(call);
  const bool ranked = !trace_.metadata().ranks.empty();
  const RankInfo* rank = ranked ? trace_.rank_of_pid(trace_.lane(g_.nodes_[call].ref.lane).key.pid) : nullptr;
  auto it = std::upper_bound(endings_.begin(), endings_.end(), Ending{end, kNoNode});
  for (int steps = 0; it != endings_.begin() && steps < kWaitSearchSteps; ++steps) {
    --it;
    if (it->end_ns <= start) return kNoNode;
    const Node& n = g_.nodes_[it->node];
    const std::int64_t work_device = trace_.lane(n.ref.lane).device();
    if (device >= 0 && work_device != device) continue;
    if (ranked && trace_.rank_of_device(work_device) != rank) continue;
    if (n.launch == kNoNode || n.launch == call || g_.recorded_start(n.launch) < start) return it->node;
  }
  return kNoNode;
}

// The GPU a call launched work on (-1 if none), and whether that work is a copy of pageable host memory.
std::int64_t GraphAssembly::launched_device(Launches launches, bool& pageable) const {
  if (launches.empty()) return -1;
  const NodeId first = launches.front().second;
  const Event& work = g_.event(first);
  if (const MemcpyDetail* copy = trace_.memcpy_detail(work))
    pageable = copy->src_kind == MemoryKind::Pageable || copy->dst_kind == MemoryKind::Pageable;
  return trace_.lane(g_.nodes_[first].ref.lane).device();
}

namespace {

constexpr std::string_view kSequenceNumberArg = "Sequence number";

// Forward op -> backward op links from PyTorch's op sequence numbers, for the processes without fwdbwd flows (Kineto
// before it wrote them): an op's "Sequence number" is shared by the forward op and the backward ops autograd ran for
// it, so the lane of a number's first op hands work to every other lane of its process that later holds the number.
// Counted into `links` (worker -> handing thread -> links).
void sequence_links(const Trace& trace, const std::set<std::int64_t>& covered,
                    std::map<LaneIndex, std::map<LaneIndex, std::size_t>>& links) {
  struct First {
    TimeNs start_ns;
    LaneIndex lane;
  };
  std::map<std::pair<std::int64_t, std::int64_t>, First> first;  // (pid, number) -> its first op
  struct Op {
    std::int64_t pid, number;
    TimeNs start_ns;
    LaneIndex lane;
  };
  // Only processes that ran a backward ("MmBackward0", "autograd::engine::evaluate_function: ...") have links to
  // find: the numbers are read (one args lookup per op) in those alone.
  std::set<std::int64_t> with_backward;
  for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
    const Lane& lane = trace.lane(l);
    if (lane.is_gpu() || covered.count(lane.key.pid) || with_backward.count(lane.key.pid)) continue;
    for (const Event& e : lane.events)
      if (e.kind == EventKind::CpuOp && trace.name(e).find("Backward") != std::string_view::npos) {
        with_backward.insert(lane.key.pid);
        break;
      }
  }
  if (with_backward.empty()) return;
  std::vector<Op> ops;
  for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
    const Lane& lane = trace.lane(l);
    if (lane.is_gpu() || !with_backward.count(lane.key.pid)) continue;
    for (const Event& e : lane.events) {
      if (e.kind != EventKind::CpuOp || e.args == kNoArgs) continue;
      for (const EventArg& a : trace.extra_args(e)) {
        if (a.key != kSequenceNumberArg) continue;
        std::int64_t number = -1;
        const auto [end, ec] = std::from_chars(a.value_json.data(), a.value_json.data() + a.value_json.size(), number);
        if (ec != std::errc() || number < 0) break;
        ops.push_back({lane.key.pid, number, e.start_ns, l});
        auto [it, added] = first.try_emplace({lane.key.pid, number}, First{e.start_ns, l});
        if (!added && e.start_ns < it->second.start_ns) it->second = {e.start_ns, l};
        break;
      }
    }
  }
  std::set<std::tuple<LaneIndex, LaneIndex, std::int64_t>> seen;  // one link per number and pair of lanes
  for (const Op& op : ops) {
    const First& f = first.at({op.pid, op.number});
    if (f.lane == op.lane || !seen.insert({op.lane, f.lane, op.number}).second) continue;
    ++links[op.lane][f.lane];
  }
}

}  // namespace

// PyTorch's autograd engine: the thread Kineto's fwdbwd flows lead to (from forward ops to their backward ops) runs
// the backward that the thread those flows leave from (the main thread) handed it, while that thread waits in
// backward(). Each worker is joined to the thread most of its flows come from. A process without fwdbwd flows takes
// the same links from its ops' sequence numbers.
void GraphAssembly::add_thread_handoffs() {
  std::map<LaneIndex, std::map<LaneIndex, std::size_t>> links;  // worker -> handing thread -> flows
  std::set<std::int64_t> covered;                               // processes with fwdbwd flows
  for (const Flow& f : trace_.backward_links()) {
    const Lane& from = trace_.lane(f.from.lane);
    const Lane& to = trace_.lane(f.to.lane);
    if (f.from.lane == f.to.lane || from.is_gpu() || to.is_gpu() || from.key.pid != to.key.pid) continue;
    ++links[f.to.lane][f.from.lane];
    covered.insert(from.key.pid);
  }
  sequence_links(trace_, covered, links);
  for (const auto& [worker, from] : links) {
    const auto most =
        std::max_element(from.begin(), from.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    add_handoffs(most->first, worker);
  }
  add_started_threads(links);
}

// Threads the profiled thread started: in a process whose main thread records torch.profiler's ProfilerStep ranges,
// another thread that makes CUDA calls but records no op and no range is one the profiler does not follow (PyTorch's
// profiler records the ops of the thread that started it, the autograd engine's and the collectives' threads): a
// Python thread the program started (threading.Thread). Its calls come in bursts between two calls of the main
// thread, which starts the thread and joins it (the seed3-threads recording: three new threads per step, joined
// before torch.cuda.synchronize(), pthread ids reused, so one lane holds five threads). The main thread's call
// before a burst hands it over and its call after waits for it; the time before the burst's first call is the
// thread starting up, which it does not record, never its own work since its previous burst (a thread that did not
// exist then); and its gaps between calls, in which its ops ran unrecorded, are not known to be its own work.
void GraphAssembly::add_started_threads(const std::map<LaneIndex, std::map<LaneIndex, std::size_t>>& workers) {
  std::map<std::int64_t, LaneIndex> main_of;  // pid -> the lane holding its ProfilerStep ranges
  std::set<LaneIndex> recording;              // lanes that record ops or ranges
  for (LaneIndex l = 0; l < trace_.lanes().size(); ++l) {
    const Lane& lane = trace_.lane(l);
    if (lane.is_gpu()) continue;
    for (const Event& e : lane.events) {
      if (e.kind != EventKind::CpuOp && e.kind != EventKind::Annotation) continue;
      recording.insert(l);
      if (e.kind == EventKind::Annotation && trace_.name(e).rfind("ProfilerStep#", 0) == 0) {
        main_of.try_emplace(lane.key.pid, l);
        break;
      }
    }
  }
  for (LaneIndex l = 0; l < trace_.lanes().size(); ++l) {
    const Lane& lane = trace_.lane(l);
    const auto main = main_of.find(lane.key.pid);
    if (lane.is_gpu() || main == main_of.end() || main->second == l || recording.count(l) || workers.count(l) ||
        serves_collectives(l) || g_.lane_nodes(l).first == g_.lane_nodes(l).last)
      continue;
    add_handoffs(main->second, l, true);
    // Nor are its gaps between calls known to be its own work: the profiler did not record its ops.
    const HappensBefore::IdRange r = g_.lane_nodes(l);
    for (NodeId n = r.first + 1; n < r.last; ++n)
      if (g_.recorded_start(n) - g_.recorded_end(n - 1) >= kUnrecordedMinNs)
        spans_.push_back({n, true, PartKind::Unrecorded, g_.recorded_end(n - 1), g_.recorded_start(n)});
  }
}

// The worker's calls in shares: a share ends where the handing thread made a call after the worker's last one (it
// went on with its own work: the optimizer step, the next forward).
void GraphAssembly::add_handoffs(LaneIndex from, LaneIndex worker, bool silent) {
  const HappensBefore::IdRange w = g_.lane_nodes(worker);
  if (w.first == w.last || g_.lane_nodes(from).first == g_.lane_nodes(from).last) return;
  TimeNs previous_end = kMinTime;
  NodeId first = w.first;
  for (NodeId n = w.first + 1; n <= w.last; ++n) {
    if (n < w.last) {
      const NodeId m = g_.node_at_or_before(from, g_.recorded_start(n));
      if (m == kNoNode || g_.recorded_start(m) < g_.recorded_end(n - 1)) continue;
    }
    previous_end = add_share(from, worker, first, n - 1, previous_end, silent);
    first = n;
  }
}

// One share of the worker, calls [first, last]: handed over after the handing thread's last call before it (the
// delay passes to the worker where its recorded activity begins), and joined to that thread's next call (the
// delay passes back where the worker's activity ends). Returns where the worker's activity in the share ended.
// A silent worker (one that records nothing but its calls) takes the handoff at the handing call's end: the time to
// its first call is its own start-up, unrecorded.
TimeNs GraphAssembly::add_share(LaneIndex from, LaneIndex worker, NodeId first, NodeId last, TimeNs previous_end,
                                bool silent) {
  const std::vector<Event>& events = trace_.lane(worker).events;
  const NodeId m = g_.node_at_or_before(from, g_.recorded_start(first));
  if (m == kNoNode || g_.recorded_end(m) > g_.recorded_start(first)) return g_.recorded_end(last);
  const auto begin = std::lower_bound(events.begin(), events.end(), g_.recorded_end(m),
                                      [](const Event& e, TimeNs t) { return e.start_ns < t; });
  const TimeNs activity_start = std::min(begin->start_ns, g_.recorded_start(first));
  const NodeId next = m + 1 < g_.lane_nodes(from).last ? m + 1 : kNoNode;
  const bool joined =
      next != kNoNode && g_.nodes_[next].chain_prev == m && g_.recorded_start(next) >= g_.recorded_end(last);
  const TimeNs until = joined ? g_.recorded_start(next) : g_.recorded_end(last) + 1;
  TimeNs activity_end = g_.recorded_end(last);
  for (auto it = begin; it != events.end() && it->start_ns < until; ++it)
    activity_end = std::max(activity_end, std::min(it->end_ns(), until));
  const NodeId after_m = m + 1 < g_.lane_nodes(from).last ? m + 1 : kNoNode;
  const NodeId after_last = last + 1 < g_.lane_nodes(worker).last ? last + 1 : kNoNode;
  g_.edges_.push_back({m, first, EdgeKind::Handoff, true});
  add_split(m, first, silent ? g_.recorded_end(m) : activity_start, after_m, first);
  if (silent) g_.handoff_splits_.back().to_unrecorded_ns = g_.recorded_start(first) - g_.recorded_end(m);
  if (const NodeId prev = g_.nodes_[first].chain_prev; prev != kNoNode)
    add_gap_wait(first, std::max(previous_end, g_.recorded_end(prev)), activity_start);
  if (!joined) return activity_end;
  g_.edges_.push_back({last, next, EdgeKind::Handoff, true});
  add_split(last, next, activity_end, after_last, next);
  add_gap_wait(next, std::max(activity_start, g_.recorded_end(m)), std::min(activity_end, g_.recorded_start(next)));
  return activity_end;
}

// The split of a handoff's delay, and the gaps its two pieces lie in (kNoNode: none), for their unrecorded time.
void GraphAssembly::add_split(NodeId from, NodeId to, TimeNs at_ns, NodeId from_gap, NodeId to_gap) {
  const std::size_t index = g_.handoff_splits_.size();
  g_.handoff_splits_.push_back({from, to, at_ns, 0, 0});
  if (from_gap != kNoNode) split_pieces_.push_back({from_gap, index, false, g_.recorded_end(from), at_ns});
  if (to_gap != kNoNode) split_pieces_.push_back({to_gap, index, true, at_ns, g_.recorded_start(to)});
}

void GraphAssembly::add_gap_wait(NodeId node, TimeNs start_ns, TimeNs end_ns) {
  if (end_ns > start_ns) gap_waits_.push_back({node, start_ns, end_ns});
}

void GraphAssembly::set_own_time(NodeId node, TimeNs ns) { g_.own_times_.push_back({node, std::max<TimeNs>(0, ns)}); }

}  // namespace gtv::causal
