// Changes of what the host waits for and what its calls cost: pinned, graphs, no-launch-blocking, processes,
// no-sync.
#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "changes.h"
#include "gtv/model/kineto_names.h"
#include "owners.h"

namespace gtv::whatif {
namespace {

using causal::Input;
using causal::kNoNode;
using causal::NodeKind;

bool waits(const PlanInput& in) {
  return in.from == Input::From::Edge &&
         (in.edge == causal::EdgeKind::Sync || in.edge == causal::EdgeKind::ImplicitSync);
}

template <typename T>
T median(std::vector<T> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
  return v[v.size() / 2];
}

std::string ms_text(TimeNs ns) {
  char buf[32];
  if (ns >= 1'000'000)
    std::snprintf(buf, sizeof buf, "%.1f ms", double(ns) / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.1f us", double(ns) / 1e3);
  return buf;
}

// The next host call of each host call's thread.
std::vector<NodeId> next_on_thread(const causal::HappensBefore& g) {
  std::vector<NodeId> next(g.size(), kNoNode);
  for (NodeId n = 0; n < g.size(); ++n) {
    const NodeId prev = g.node(n).chain_prev;
    if (g.node(n).kind == NodeKind::HostCall && prev != kNoNode) next[prev] = n;
  }
  return next;
}

std::string_view name_of(const causal::HappensBefore& g, NodeId n) { return g.trace().name(g.event(n)); }

const MemcpyDetail* copy_detail(const causal::HappensBefore& g, NodeId n) {
  const Event& e = g.event(n);
  if (e.kind != EventKind::Memcpy || e.detail == kNoDetail) return nullptr;
  return &g.trace().memcpy_details()[e.detail];
}

bool pageable(const MemcpyDetail& d) {
  return d.src_kind == MemoryKind::Pageable || d.dst_kind == MemoryKind::Pageable;
}
bool pinned(const MemcpyDetail& d) { return d.src_kind == MemoryKind::Pinned || d.dst_kind == MemoryKind::Pinned; }

// The work a host call launches starts after the call's end (an asynchronous call hands it over there).
void launch_from_end(Plan& p, NodeId work, NodeId call, TimeNs delay_ns) {
  for (PlanInput& in : p.start_in[work])
    if (in.from == Input::From::Launch) {
      in.source = call;
      in.source_end = true;
      in.delay_ns = delay_ns;
    }
}

// A call ran uncontended when no call of another thread of its process ran meanwhile.
struct Call {
  TimeNs start, end;
  LaneIndex lane;
  NodeId node;
};

// The best value seen so far, per lane, for the two best lanes: what the best call of another lane than a given
// one has, in constant time.
template <typename Better>
class TwoBestLanes {
 public:
  explicit TwoBestLanes(TimeNs none) : first_{none, kNoLane}, second_{none, kNoLane} {}
  void add(TimeNs v, LaneIndex lane) {
    if (lane == first_.lane) {
      if (Better{}(v, first_.value)) first_.value = v;
    } else if (Better{}(v, first_.value)) {
      second_ = first_;
      first_ = {v, lane};
    } else if (Better{}(v, second_.value)) {
      second_ = {v, lane};
    }
  }
  [[nodiscard]] TimeNs best_other_than(LaneIndex lane) const {
    return lane == first_.lane ? second_.value : first_.value;
  }

 private:
  static constexpr LaneIndex kNoLane = std::numeric_limits<LaneIndex>::max();
  struct Best {
    TimeNs value;
    LaneIndex lane;
  };
  Best first_, second_;
};

// Calls in start order; a pair of calls i < j of different lanes overlaps when j starts before i ends. A call is
// contended when it is in such a pair: a later call of another lane starts before it ends (the other lanes' earliest
// start after it), or an earlier call of another lane ends after it starts (the other lanes' latest end before it).
std::vector<bool> contended_calls(const std::vector<Call>& calls) {
  std::vector<bool> contended(calls.size(), false);
  TwoBestLanes<std::greater<>> latest_end(std::numeric_limits<TimeNs>::min());
  for (std::size_t j = 0; j < calls.size(); ++j) {
    if (latest_end.best_other_than(calls[j].lane) > calls[j].start) contended[j] = true;
    latest_end.add(calls[j].end, calls[j].lane);
  }
  TwoBestLanes<std::less<>> earliest_start(std::numeric_limits<TimeNs>::max());
  for (std::size_t i = calls.size(); i-- > 0;) {
    if (earliest_start.best_other_than(calls[i].lane) < calls[i].end) contended[i] = true;
    earliest_start.add(calls[i].start, calls[i].lane);
  }
  return contended;
}

// A kernel this long ends after an asynchronous launch of it returns; a shorter one can end first.
constexpr TimeNs kLongKernelNs = 20 * kNsPerUs;
// Copies up to this size take mostly the transfer's fixed cost; from the larger one the rate of the link shows.
constexpr std::int64_t kSmallCopyBytes = std::int64_t{64} * 1024;
constexpr std::int64_t kLargeCopyBytes = std::int64_t{1024} * 1024;
// What a PCIe link carries of its per-direction peak after the packets' headers and flow control.
constexpr double kLinkEfficiency = 0.8;

enum class RateBasis : std::uint8_t { SameDirection, OtherDirection, Link, Pageable };

CopyKind opposite(CopyKind k) {
  if (k == CopyKind::HostToDevice) return CopyKind::DeviceToHost;
  if (k == CopyKind::DeviceToHost) return CopyKind::HostToDevice;
  return k;
}

// The host link a GPU's generation is built for, x16, per direction (lanes x rate x 128b/130b coding / 8 bits):
// compute capability 9 and later (Hopper, Blackwell) PCIe 5.0, 8 (Ampere, Ada) PCIe 4.0, earlier PCIe 3.0.
struct HostLink {
  const char* name;
  double peak_bytes_per_ns;
};
const HostLink* host_link_of(const DeviceInfo* d) {
  static constexpr HostLink kGen5{"PCIe 5.0 x16, 63.0 GB/s", 16 * 32.0 * 128 / 130 / 8};
  static constexpr HostLink kGen4{"PCIe 4.0 x16, 31.5 GB/s", 16 * 16.0 * 128 / 130 / 8};
  static constexpr HostLink kGen3{"PCIe 3.0 x16, 15.8 GB/s", 16 * 8.0 * 128 / 130 / 8};
  if (d == nullptr || d->compute_major <= 0) return nullptr;
  if (d->compute_major >= 9) return &kGen5;
  if (d->compute_major == 8) return &kGen4;
  return &kGen3;
}

// What a host-to-device copy of a batch from a multiprocessing DataLoader leaves on the main thread that
// pin_memory=True moves to the DataLoader's pin-memory thread: the thread's time in the __next__ before the copy
// (receiving the batch from the workers), and the stretch right after the copy's op in which it recorded nothing
// (where `x = x.to(...)` frees the received batch's shared memory). Each with the call node whose gap holds it.
struct LoaderBatch {
  TimeNs next_ns = 0;  // 0: the copied data did not come from such a DataLoader
  NodeId next_gap_of = kNoNode;
  TimeNs after_ns = 0;
  NodeId after_gap_of = kNoNode;
};

// The first call node on the lane from event index `from` on, or kNoNode.
NodeId first_node_from(const causal::HappensBefore& g, LaneIndex lane, std::size_t from) {
  const std::vector<Event>& events = g.trace().lane(lane).events;
  for (std::size_t i = from; i < events.size(); ++i) {
    const NodeId n = g.node_of(EventRef{lane, static_cast<std::uint32_t>(i)});
    if (n != kNoNode) return n;
  }
  return kNoNode;
}

// `copies_before`: the thread's previous host-to-device copy call, or kNoNode; the batch's __next__ lies after it.
LoaderBatch loader_batch(const causal::HappensBefore& g, NodeId call, NodeId copies_before) {
  LoaderBatch out;
  const Trace& trace = g.trace();
  const EventRef ref = g.node(call).ref;
  const std::vector<Event>& events = trace.lane(ref.lane).events;
  const Event& c = events[ref.index];
  const TimeNs after_previous =
      copies_before == kNoNode ? std::numeric_limits<TimeNs>::min() : g.recorded_end(copies_before);
  // Before the call (events are in start order): the latest __next__ that ended before it, and the outermost op
  // around the call.
  std::size_t op = ref.index;
  for (std::size_t i = ref.index; i-- > 0;) {
    const Event& e = events[i];
    if (e.end_ns() < after_previous) break;
    if (e.kind == EventKind::CpuOp && e.start_ns <= c.start_ns && e.end_ns() >= c.end_ns()) op = i;
    if (out.next_ns == 0 && e.start_ns >= after_previous && e.end_ns() <= c.start_ns &&
        kineto::is_data_loader_next(trace.name(e))) {
      out.next_ns = e.duration_ns;
      out.next_gap_of = first_node_from(g, ref.lane, i + 1);
    }
  }
  if (out.next_ns == 0 || op == ref.index) return out;
  // After the op: the stretch to the thread's next event.
  const TimeNs op_end = events[op].end_ns();
  for (std::size_t i = ref.index + 1; i < events.size(); ++i) {
    if (events[i].start_ns < op_end) continue;
    if (events[i].start_ns - op_end >= causal::kUnrecordedMinNs) {
      out.after_ns = events[i].start_ns - op_end;
      out.after_gap_of = first_node_from(g, ref.lane, i);
    }
    break;
  }
  return out;
}

// Shortens the program-order delay into `node` (the host's own time in the gap before it) by `ns`.
void shorten_gap_before(Plan& p, NodeId node, TimeNs ns) {
  for (PlanInput& in : p.start_in[node])
    if (in.from == Input::From::Chain) in.delay_ns = std::max<TimeNs>(0, in.delay_ns - ns);
}

}  // namespace

Expected<Ok> apply_pinned(Plan& p, Bound bound) {
  const causal::HappensBefore& g = p.g();
  std::vector<NodeId> copies;
  std::map<CopyKind, std::vector<double>> pinned_ns_per_byte;
  std::map<CopyKind, std::vector<double>> large_pinned_ns_per_byte;
  std::map<CopyKind, TimeNs> small_copy_ns;  // the shortest copy of at most kSmallCopyBytes, per direction
  std::vector<TimeNs> pinned_call_ns;
  for (NodeId n = 0; n < g.size(); ++n) {
    const MemcpyDetail* d = copy_detail(g, n);
    if (d == nullptr) continue;
    if (pageable(*d) && g.node(n).launch != kNoNode && p.changes(g.node(n).launch)) copies.push_back(n);
    if (d->bytes > 0 && d->bytes <= kSmallCopyBytes) {
      const auto [it, first] = small_copy_ns.emplace(d->copy_kind, g.event(n).duration_ns);
      if (!first) it->second = std::min(it->second, g.event(n).duration_ns);
    }
    if (pinned(*d) && d->bytes > 0) {
      const double ns_per_byte = double(g.event(n).duration_ns) / double(d->bytes);
      pinned_ns_per_byte[d->copy_kind].push_back(ns_per_byte);
      if (d->bytes >= kLargeCopyBytes) large_pinned_ns_per_byte[d->copy_kind].push_back(ns_per_byte);
      if (g.node(n).launch != kNoNode && g.edges_into(g.node(n).launch).empty())
        pinned_call_ns.push_back(p.own_ns[g.node(n).launch]);
    }
  }
  if (copies.empty()) return Error{"no pageable copies in this trace's window: nothing to change"};
  // What an asynchronous call costs: the recording's own pinned copy calls, else its kernel launches.
  TimeNs call_ns = median(pinned_call_ns);
  if (pinned_call_ns.empty()) {
    std::vector<TimeNs> launches;
    for (NodeId n = 0; n < g.size(); ++n)
      if (!p.is_gpu(n) && name_of(g, n) == "cudaLaunchKernel" && p.end_in[n].empty()) launches.push_back(p.own_ns[n]);
    call_ns = median(launches);
    p.assume("an asynchronous copy call costs what the recording's median kernel launch did (" + ms_text(call_ns) +
             "): the trace holds no pinned copy");
  }
  const std::vector<NodeId> next = next_on_thread(g);
  std::size_t syncs = 0, loader_batches = 0;
  TimeNs loader_moved_ns = 0;
  std::map<LaneIndex, NodeId> previous_h2d;  // per thread, its last host-to-device copy call so far
  std::set<RateBasis> bases;
  std::set<std::string> links;
  for (const NodeId x : copies) {
    const MemcpyDetail& d = *copy_detail(g, x);
    const TimeNs pageable_ns = p.own_ns[x];
    TimeNs dur = pageable_ns;
    const auto same = pinned_ns_per_byte.find(d.copy_kind);
    const auto other = large_pinned_ns_per_byte.find(opposite(d.copy_kind));
    const HostLink* link = host_link_of(g.trace().device(std::int32_t(p.stream[x].device)));
    const bool host_link_copy = d.copy_kind == CopyKind::HostToDevice || d.copy_kind == CopyKind::DeviceToHost;
    if (same != pinned_ns_per_byte.end() && d.bytes > 0) {
      // A slow pinned copy of a few bytes gives a rate that a large pageable copy multiplies far: in doubles, the
      // product kept inside the accepted time range (a longer prediction is refused when it is replayed).
      dur = clamped_ns(median(same->second) * double(d.bytes));
      bases.insert(RateBasis::SameDirection);
    } else if (d.bytes > 0 && host_link_copy && (other != large_pinned_ns_per_byte.end() || link != nullptr)) {
      // The other direction's large pinned copies (the same lanes, full duplex), else the host link the GPU's
      // generation is built for; a fixed cost of the direction's shortest small copy, and never slower than the
      // pageable copy (which stages through pinned memory and then makes the same transfer).
      double ns_per_byte = 0;
      if (other != large_pinned_ns_per_byte.end()) {
        ns_per_byte = median(other->second);
        if (bound == Bound::Low) ns_per_byte /= 2;
        if (bound == Bound::High) ns_per_byte *= 2;
        bases.insert(RateBasis::OtherDirection);
      } else {
        ns_per_byte = 1.0 / (link->peak_bytes_per_ns * kLinkEfficiency);
        if (bound == Bound::Low) ns_per_byte = 1.0 / link->peak_bytes_per_ns;
        if (bound == Bound::High) ns_per_byte *= 2;
        bases.insert(RateBasis::Link);
        links.insert(link->name);
      }
      const auto fixed = small_copy_ns.find(d.copy_kind);
      const TimeNs fixed_ns = fixed == small_copy_ns.end() ? 0 : fixed->second;
      dur = std::min(pageable_ns, saturating_add(fixed_ns, clamped_ns(ns_per_byte * double(d.bytes))));
    } else {
      bases.insert(RateBasis::Pageable);
      if (bound == Bound::Low) dur /= 2;
      if (bound == Bound::High) dur = saturating_add(dur, dur);
    }
    p.own_ns[x] = dur;
    const NodeId call = g.node(x).launch;
    if (call == kNoNode) continue;
    // An asynchronous copy from pinned memory does not hold the host: the call's waits go, it costs call_ns.
    auto& ends = p.end_in[call];
    ends.erase(std::remove_if(ends.begin(), ends.end(), waits), ends.end());
    p.own_ns[call] = call_ns;
    launch_from_end(p, x, call, std::max<TimeNs>(0, g.min_launch_latency_ns()));
    // A DataLoader batch: with pin_memory=True its pin-memory thread receives the batch and frees it, beside the
    // main thread (the band's upper end keeps both on the main thread).
    if (d.copy_kind == CopyKind::HostToDevice) {
      NodeId& previous = previous_h2d.try_emplace(g.lane_of(call), kNoNode).first->second;
      const LoaderBatch batch = loader_batch(g, call, previous);
      previous = call;
      if (batch.next_ns > 0) {
        ++loader_batches;
        if (bound != Bound::High) {
          for (const auto& [ns, node] :
               {std::pair{batch.next_ns, batch.next_gap_of}, std::pair{batch.after_ns, batch.after_gap_of}}) {
            if (node == kNoNode || ns == 0) continue;
            shorten_gap_before(p, node, ns);
            loader_moved_ns += ns;
          }
        }
      }
    }
    // The synchronize that continues the copy's wait (a framework's copy to the host waits for it) goes with it.
    const NodeId after = next[call];
    if (after != kNoNode && g.copy_wait_continued_by(after) == x) {
      auto& sync_ends = p.end_in[after];
      const auto kept = std::remove_if(sync_ends.begin(), sync_ends.end(), waits);
      syncs += kept != sync_ends.end() ? 1 : 0;  // none when an earlier change already removed its waits
      sync_ends.erase(kept, sync_ends.end());
    }
  }
  p.applied.push_back(std::to_string(copies.size()) + " pageable copies become asynchronous copies from pinned memory" +
                      (syncs ? " and " + std::to_string(syncs) + " synchronizations that followed them go" : ""));
  p.assume("an asynchronous copy from pinned memory does not hold the host: the copy call no longer waits for it");
  if (loader_batches > 0) {
    if (bound != Bound::High)
      p.applied.push_back(std::to_string(loader_batches) +
                          (loader_batches == 1 ? " batch from a DataLoader's worker processes comes"
                                               : " batches from a DataLoader's worker processes come") +
                          " pinned from its pin-memory thread: " + ms_text(loader_moved_ns) +
                          " of the main thread's time moves there");
    p.assume(
        "with pin_memory=True the DataLoader's pin-memory thread receives each batch from the worker processes, "
        "copies it into pinned memory and frees it, beside the main thread: the main thread's time in __next__ "
        "and the stretch right after the batch's copy in which it recorded nothing (where `x = x.to(...)` frees "
        "the received batch's shared memory) go from the main thread, which takes the pinned batch from a queue; "
        "the band's upper end keeps them there (a pin-memory thread that cannot keep ahead of the loop)");
  }
  if (bases.count(RateBasis::SameDirection) != 0)
    p.assume("a pinned copy moves its bytes at the rate of the recording's own pinned copies of that direction");
  if (bases.count(RateBasis::OtherDirection) != 0)
    p.assume(
        "a pinned copy of a direction the recording has no pinned copy of moves its bytes at the rate of the "
        "recording's pinned copies of at least 1 MiB the other way (the link's lanes carry both directions at "
        "once), plus the direction's shortest copy of at most 64 KiB as a fixed cost, never slower than the "
        "pageable copy; the band takes twice to half that rate");
  if (bases.count(RateBasis::Link) != 0) {
    std::string names;
    for (const std::string& l : links) names += (names.empty() ? "" : ", ") + l;
    p.assume(
        "the recording has no pinned copy of that direction, nor one of at least 1 MiB the other way: a pinned "
        "copy moves its bytes at 80% (what packet headers and flow control leave) of the per-direction peak of "
        "the host link the GPU's generation is built for (" +
        names +
        "), plus the direction's shortest copy of at most 64 KiB as a fixed cost, never slower than the pageable "
        "copy; the band's lower end: the link's peak, its upper end: half the rate (a link one generation older "
        "or half its lanes)");
  }
  if (bases.count(RateBasis::Pageable) != 0)
    p.assume(
        "a pinned copy moves its bytes as fast as the pageable copy did on the GPU (the trace holds no pinned "
        "copy of that direction and no host link to take a rate from); the band takes half to twice that time");
  return Ok{};
}

Expected<Ok> apply_graphs(Plan& p, Bound bound) {
  const causal::HappensBefore& g = p.g();
  const Trace& trace = g.trace();
  for (const KernelDetail& k : trace.kernel_details())
    if (k.launched_by_graph()) return Error{"the trace's kernels already run from CUDA graphs: nothing to change"};
  const Owners owners = find_owners(g, p.owners_pattern);
  if (owners.empty())
    return Error{"cannot tell which launches make one forward to capture: " + no_owners_reason(p.owners_pattern)};
  const std::vector<int>& forward = owners.range_of_node;
  std::vector<TimeNs> graph_launch_ns;
  for (NodeId n = 0; n < g.size(); ++n)
    if (!p.is_gpu(n) && name_of(g, n) == "cudaGraphLaunch") graph_launch_ns.push_back(p.own_ns[n]);
  // The cuda-graph recording on one H200: 101-104 us of host launch per iteration of three forwards.
  TimeNs launch_ns = 35'000;
  if (!graph_launch_ns.empty()) launch_ns = median(graph_launch_ns);
  if (bound == Bound::Low) launch_ns /= 3;
  if (bound == Bound::High) launch_ns *= 3;
  std::map<int, NodeId> first_of_range;
  std::size_t forwards = 0, dropped = 0;
  std::vector<NodeId> graph_launch_of(g.size(), kNoNode);
  for (NodeId n = 0; n < g.size(); ++n) {
    if (p.is_gpu(n) || forward[n] < 0 || !p.changes(n)) continue;
    const auto [it, first] = first_of_range.emplace(forward[n], n);
    graph_launch_of[n] = it->second;
    if (first) {
      ++forwards;
      p.own_ns[n] = launch_ns;
      continue;
    }
    if (!p.end_in[n].empty()) continue;  // a call that waits for the GPU cannot be captured: it stays
    p.own_ns[n] = 0;
    for (PlanInput& in : p.start_in[n])
      if (in.from == Input::From::Chain) in.delay_ns = 0;
    ++dropped;
  }
  if (forwards == 0)
    return Error{"no owner range (" + owners.source + ") holds a call inside the window: nothing to capture"};
  for (NodeId n = 0; n < g.size(); ++n) {
    const NodeId l = g.node(n).launch;
    if (!p.is_gpu(n) || l == kNoNode || graph_launch_of[l] == kNoNode) continue;
    launch_from_end(p, n, graph_launch_of[l], std::max<TimeNs>(0, g.min_launch_latency_ns()));
    // A graph's kernels follow each other without the queued gap of separately launched ones (0.26 us in the
    // small3 graph recordings on H100 and H200, against 1.1-1.4 us): work that waited for its launch keeps none.
    const NodeId prev = g.node(n).chain_prev;
    if (g.node(n).start_binding == causal::StartBinding::Chain || prev == kNoNode) continue;
    for (PlanInput& in : p.start_in[n])
      if (in.from == Input::From::Chain) in.delay_ns = std::min<TimeNs>(0, g.recorded_start(n) - g.recorded_end(prev));
  }
  p.applied.push_back("the host calls of " + std::to_string(forwards) + " owner ranges (" + owners.source +
                      ") become one graph launch each (" + std::to_string(dropped) +
                      " calls and the host's own work between them go); the kernels stay");
  if (graph_launch_ns.empty())
    p.assume(
        "a graph launch costs 35 us of host time (the cuda-graph recording on one H200: 101-104 us per "
        "iteration of three forwards); the band takes a third to three times that");
  else
    p.assume("a graph launch costs the recording's median cudaGraphLaunch (" + ms_text(launch_ns) + ")");
  p.assume("a graph's kernels run back to back on their stream from the graph launch's end");
  return Ok{};
}

Expected<Ok> apply_no_launch_blocking(Plan& p, Bound bound) {
  const causal::HappensBefore& g = p.g();
  // Each call's GPU work in node order, and where the run of GPU nodes that holds a node ends.
  std::vector<std::uint32_t> work_first(g.size() + 1, 0);
  for (NodeId n = 0; n < g.size(); ++n)
    if (const NodeId l = g.node(n).launch; p.is_gpu(n) && l != kNoNode) ++work_first[l + 1];
  for (std::size_t i = 1; i < work_first.size(); ++i) work_first[i] += work_first[i - 1];
  std::vector<NodeId> work(work_first.back());
  std::vector<std::uint32_t> filled(work_first.begin(), work_first.end() - 1);
  for (NodeId n = 0; n < g.size(); ++n)
    if (const NodeId l = g.node(n).launch; p.is_gpu(n) && l != kNoNode) work[filled[l]++] = n;
  std::vector<NodeId> gpu_run_end(g.size(), 0);
  for (auto n = NodeId(g.size()); n-- > 0;)
    gpu_run_end[n] = !p.is_gpu(n) ? n : n + 1 < g.size() && p.is_gpu(n + 1) ? gpu_run_end[n + 1] : n + 1;
  const auto own_wait_of = [&](NodeId c) {
    return
        [&p, &g, c](const PlanInput& in) { return waits(in) && p.is_gpu(in.source) && g.node(in.source).launch == c; };
  };
  const auto launched_kernel = [&](NodeId c) {
    if (p.is_gpu(c) || work_first[c] == work_first[c + 1]) return kNoNode;
    const NodeId first = work[work_first[c]];
    return g.event(first).kind == EventKind::Kernel ? first : kNoNode;
  };
  const auto waited_for_own = [&](NodeId c) {
    return g.node(c).waits_for_own_work || std::any_of(p.end_in[c].begin(), p.end_in[c].end(), own_wait_of(c));
  };
  // A thread whose every launch of a kernel long enough to tell (kLongKernelNs) returned only after its kernel
  // ended launched with blocking (CUDA_LAUNCH_BLOCKING=1): its launches of shorter kernels that returned after their
  // kernel ended waited for it too. An asynchronous thread's launches of such kernels return before they end.
  std::map<LaneIndex, std::pair<std::size_t, std::size_t>> long_launches;  // per thread: launches, those that waited
  for (NodeId c = 0; c < g.size(); ++c) {
    const NodeId k = launched_kernel(c);
    if (k == kNoNode || g.event(k).duration_ns < kLongKernelNs) continue;
    auto& [launches, waited] = long_launches[g.lane_of(c)];
    ++launches;
    waited += waited_for_own(c) ? 1 : 0;
  }
  const auto blocking_thread = [&](LaneIndex lane) {
    const auto it = long_launches.find(lane);
    return it != long_launches.end() && it->second.first > 0 && it->second.second == it->second.first;
  };
  std::size_t calls = 0, short_calls = 0;
  // Per changed call: its time until its kernel started; and the time from a kernel's end to its call's return.
  std::vector<std::pair<NodeId, TimeNs>> until_start;
  std::vector<TimeNs> return_ns;
  for (NodeId c = 0; c < g.size(); ++c) {
    const NodeId first = launched_kernel(c);
    if (first == kNoNode || !p.changes(c)) continue;
    auto& ends = p.end_in[c];
    const auto own_wait = own_wait_of(c);
    const bool blocked_short = blocking_thread(g.lane_of(c)) && g.event(first).duration_ns < kLongKernelNs &&
                               g.recorded_end(c) >= g.event(first).end_ns();
    if (!waited_for_own(c) && !blocked_short) continue;
    if (!waited_for_own(c)) ++short_calls;
    ends.erase(std::remove_if(ends.begin(), ends.end(), own_wait), ends.end());
    until_start.emplace_back(
        c, std::clamp<TimeNs>(g.recorded_start(first) - g.recorded_start(c), 0, g.event(c).duration_ns));
    if (g.recorded_end(c) >= g.event(first).end_ns()) return_ns.push_back(g.recorded_end(c) - g.event(first).end_ns());
    // The call's work in the run of GPU nodes that its first work starts.
    for (std::uint32_t i = work_first[c]; i < work_first[c + 1] && work[i] < gpu_run_end[first]; ++i)
      launch_from_end(p, work[i], c, 0);
    ++calls;
  }
  if (calls == 0)
    return Error{"no launch waits for its kernel in this trace (launches were not blocking): nothing to change"};
  // The time until the kernel started holds the GPU's pickup of the handed-over launch too, which a blocking
  // recording does not show apart. The band's lower end takes the pickup as long as the way back (the median time
  // from a kernel's end to its blocking call's return; an asynchronous launch returns at its handover).
  const TimeNs pickup_ns = bound == Bound::Low ? median(std::move(return_ns)) : 0;
  for (const auto& [c, ns] : until_start) p.own_ns[c] = std::max<TimeNs>(0, ns - pickup_ns);
  p.applied.push_back(std::to_string(calls) + " launches no longer wait for their kernels");
  p.assume(
      "an asynchronous launch takes what the blocking one took until its kernel started, and hands the kernel "
      "over at its end (the band's lower end: less the GPU's pickup of the launch, taken as long as the median "
      "time from a kernel's end to its blocking launch's return)");
  if (short_calls > 0)
    p.assume(std::to_string(short_calls) +
             " of them launched kernels under 20 us and returned after their kernel ended, on threads whose every "
             "launch of a longer kernel waited for it: they launched with blocking too");
  return Ok{};
}

Expected<Ok> apply_processes(Plan& p, Bound bound) {
  const causal::HappensBefore& g = p.g();
  const Trace& trace = g.trace();
  // Threads that launch GPU work, per process.
  std::map<std::int64_t, std::set<LaneIndex>> launching;
  for (NodeId n = 0; n < g.size(); ++n) {
    const NodeId l = g.node(n).launch;
    if (p.is_gpu(n) && l != kNoNode) launching[trace.lanes()[g.lane_of(l)].key.pid].insert(g.lane_of(l));
  }
  std::vector<LaneIndex> lanes;
  for (const auto& [pid, set] : launching)
    if (set.size() > 1) lanes.insert(lanes.end(), set.begin(), set.end());
  if (lanes.empty()) return Error{"no process has more than one thread launching GPU work: nothing to change"};
  if (std::optional<std::string> why = dependent_threads(g, lanes))
    return Error{*why +
                 ": the threads' work depends on each other, so they are not models that processes of their "
                 "own could run apart"};
  std::vector<Call> calls;
  for (const LaneIndex lane : lanes) {
    const causal::HappensBefore::IdRange r = g.lane_nodes(lane);
    for (NodeId n = r.first; n < r.last; ++n)
      if (p.changes(n)) calls.push_back({g.recorded_start(n), g.recorded_end(n), lane, n});
  }
  // By start; calls that start together in the order of their lanes, then of the lane's calls.
  std::stable_sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) { return a.start < b.start; });
  const std::vector<bool> contended = contended_calls(calls);
  std::unordered_map<StringId, std::vector<TimeNs>> alone;
  for (std::size_t i = 0; i < calls.size(); ++i)
    if (!contended[i] && p.end_in[calls[i].node].empty())
      alone[g.event(calls[i].node).name].push_back(p.own_ns[calls[i].node]);
  std::unordered_map<StringId, TimeNs> typical;
  for (auto& [name, v] : alone) {
    if (bound == Bound::Low)
      typical[name] = *std::min_element(v.begin(), v.end());
    else
      typical[name] = median(v);
  }
  std::size_t shortened = 0;
  if (bound != Bound::High)
    for (const Call& c : calls) {
      if (!p.end_in[c.node].empty()) continue;
      const auto it = typical.find(g.event(c.node).name);
      if (it == typical.end() || it->second >= p.own_ns[c.node]) continue;
      p.own_ns[c.node] = it->second;
      ++shortened;
    }
  // The recording's threads start inside the window and pay the tracer's per-thread first use there (a CUPTI
  // buffer request, about 6 ms on each of the seed's threads); a process's thread that did the warm-up holds its
  // buffer already. The tracing overhead on these threads' calls in the window, and in the gaps before them, goes.
  TimeNs first_use_ns = 0;
  for (const LaneIndex lane : lanes) {
    const causal::HappensBefore::IdRange r = g.lane_nodes(lane);
    for (NodeId n = r.first; n < r.last; ++n) {
      if (!p.changes(n)) continue;
      for (const causal::Part& part : g.parts_of(n)) {
        if (part.kind != causal::PartKind::TracingOverhead) continue;
        first_use_ns += part.ns;
        if (!part.in_gap) {
          p.own_ns[n] = std::max<TimeNs>(0, p.own_ns[n] - part.ns);
          continue;
        }
        // Before a thread's first call the input is the recorded start itself: it moves earlier.
        for (PlanInput& in : p.start_in[n]) {
          if (in.from == Input::From::Root) in.delay_ns -= part.ns;
          if (in.from == Input::From::Chain) in.delay_ns = std::max<TimeNs>(0, in.delay_ns - part.ns);
        }
      }
    }
  }
  p.applied.push_back(std::to_string(lanes.size()) +
                      " host threads launching GPU work become processes of their own: " + std::to_string(shortened) +
                      " calls take their uncontended time");
  // The band's lower end: the host's own work between these threads' calls never holds the GPU back.
  if (bound == Bound::Low)
    for (const Call& c : calls)
      for (PlanInput& in : p.start_in[c.node])
        if (in.from == Input::From::Chain) in.delay_ns = 0;
  if (first_use_ns > 0) {
    p.applied.push_back("the tracer's work on these threads in the window goes (" + ms_text(first_use_ns) +
                        ", CUPTI buffer requests of threads new to the tracer)");
    p.assume(
        "one process per GPU runs its timed loop on the thread that did the warm-up: the tracer's buffer "
        "requests that the recording's new threads made in the window are not made there");
  }
  p.assume(
      "in a process of its own a thread's API call takes the median time the recording's calls of that name "
      "took while no other thread of the process was in a call (the band: their least time, and the recorded "
      "times)");
  p.assume(
      "the GPU runs the work in the order the threads launched it, as recorded; the band's lower end takes the "
      "host's own work between these threads' calls away (how one thread per GPU would run them is not "
      "modelled call by call)");
  return Ok{};
}

Expected<Ok> apply_no_sync(Plan& p, const std::string& name) {
  const causal::HappensBefore& g = p.g();
  std::size_t calls = 0, found = 0;
  for (NodeId c = 0; c < g.size(); ++c) {
    if (p.is_gpu(c) || name_of(g, c) != name || !p.changes(c)) continue;
    ++found;
    auto& ends = p.end_in[c];
    const std::size_t before = ends.size();
    ends.erase(std::remove_if(ends.begin(), ends.end(), waits), ends.end());
    if (ends.size() != before) ++calls;
  }
  if (found == 0) return Error{"no call named '" + name + "' in this trace's window: nothing to change"};
  if (calls == 0) return Error{"no call named '" + name + "' waited for the GPU in this trace: nothing to change"};
  p.applied.push_back(std::to_string(calls) + " calls of " + name + " no longer wait for the GPU");
  p.assume("a call that no longer waits takes the time it took after its wait ended");
  return Ok{};
}

}  // namespace gtv::whatif
