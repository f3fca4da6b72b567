// The region's critical path, and every cause on it checked by removal: each cause's time on the path, and what the
// region would gain without it (a replay of the run with that time, or that wait, taken out inside the region).
#include "gtv/analysis/critical_path.h"

#include <algorithm>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <tuple>
#include <unordered_map>

#include "causes/critical_path_parts.h"
#include "causes/silent_ranges.h"
#include "gtv/analysis/format.h"
#include "gtv/analysis/intervals.h"
#include "gtv/model/kineto_names.h"
#include "gtv/model/ranks.h"

namespace gtv::analysis {
namespace {

using causal::NodeId;
using causal::SegmentKind;

// First-use host work (warm-up findings on host threads), per lane, to tell a first-use call from any other.
class FirstUseSpans {
 public:
  FirstUseSpans(const Trace& trace, const WarmUp& warmup) {
    for (const WarmUpFinding& f : warmup.findings) {
      if (f.on_gpu) continue;
      const auto lane = trace.find_lane(host_lane_key(f.pid, f.tid));
      if (!lane) continue;
      auto& spans = by_lane_[*lane];
      for (const Interval& i : f.spans) spans.push_back({i, f.cause});
    }
    for (auto& [lane, spans] : by_lane_)
      std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.at.start_ns < b.at.start_ns; });
  }
  // The warm-up cause of the first-use work an event starts in, -1 if none.
  [[nodiscard]] int cause_at(LaneIndex lane, const Event& e) const {
    const auto it = by_lane_.find(lane);
    if (it == by_lane_.end()) return -1;
    auto s = std::upper_bound(it->second.begin(), it->second.end(), e.start_ns,
                              [](TimeNs t, const Span& x) { return t < x.at.start_ns; });
    if (s == it->second.begin() || std::prev(s)->at.end_ns <= e.start_ns) return -1;
    return static_cast<int>(std::prev(s)->cause);
  }
  [[nodiscard]] bool covers(LaneIndex lane, const Event& e) const { return cause_at(lane, e) >= 0; }

 private:
  struct Span {
    Interval at;
    WarmUpCause cause;
  };
  std::unordered_map<LaneIndex, std::vector<Span>> by_lane_;
};

class CauseChecker {
 public:
  CauseChecker(const causal::ReplayPlan& plan, const causal::Window& w, const FirstUseSpans& first_use)
      : g_(plan.graph()), w_(w), plan_(plan), first_use_(first_use), inside_(causal::inside(g_, w)) {}

  // The cause a segment's time counts for, -1 if none: its index in causes(), added on first sight.
  int cause_of(const causal::Segment& s) {
    switch (s.kind) {
      case SegmentKind::LazyLoading:
        return add("lazy_loading", "lazy module loading", {});
      case SegmentKind::TracingOverhead:
        return add("tracing_overhead", "tracing overhead", {});
      case SegmentKind::HostLaunch:
        return add("host_launch", "the host's launch calls", {});
      case SegmentKind::HostOwnWork:
        // A thread's time before its first call is no gap between calls: the removal keeps it (a replay moves no
        // thread's first call), so it is not counted for the cause.
        if (s.node != causal::kNoNode && g_.node(s.node).chain_prev == causal::kNoNode) return -1;
        return add("host_own_work", "the host's own work between calls", {});
      case SegmentKind::HostCall:
        if (is_first_use(s.node)) return add("first_use", "first-use calls (warm-up)", {});
        return add("host_call", "other CUDA calls", {});
      case SegmentKind::HostSyncCall:
      case SegmentKind::SyncWake:
        return wait_cause(s.node);
      default:
        break;
    }
    return s.via != causal::kNoNode ? wait_cause(s.via) : -1;
  }

  // Replays the run without each cause (inside the region only). The removals are made first, on this thread;
  // their replays only read the graph, the plan and the tables the removals share, so up to `threads` run at once,
  // each one pass over the plan's order for its share of the causes.
  std::vector<CauseSaving> checked(unsigned threads) {
    std::vector<causal::Removal> removals;
    removals.reserve(causes_.size());
    for (std::size_t i = 0; i < causes_.size(); ++i) removals.push_back(removal_for(i));
    const std::size_t groups = std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(1, causes_.size()));
    const std::size_t per_group = (causes_.size() + groups - 1) / groups;
    // The window in the unchanged replay is the same for every cause: found once.
    const TimeNs before_ns = causal::window_in(g_, plan_.unchanged(), w_).length_ns();
    const auto replay_group = [&](std::size_t group) {
      const std::size_t first = std::min(causes_.size(), group * per_group);
      const std::size_t count = std::min(causes_.size() - first, per_group);
      const std::vector<causal::Timeline> replayed =
          plan_.replay_all(std::span<const causal::Removal>(removals).subspan(first, count));
      for (std::size_t k = 0; k < count; ++k)
        causes_[first + k].saving_ns =
            causal::Effect{before_ns, causal::window_in(g_, replayed[k], w_).length_ns()}.saving_ns();
    };
    std::vector<std::future<void>> others;
    for (std::size_t group = 1; group < groups; ++group)
      others.push_back(std::async(std::launch::async, replay_group, group));
    replay_group(0);
    for (std::future<void>& f : others) f.get();
    return causes_;
  }

  [[nodiscard]] std::vector<CauseSaving>& causes() { return causes_; }

 private:
  int add(const std::string& key, const std::string& words, const std::string& wait_class) {
    const std::string id = key + "\n" + wait_class;
    auto [it, inserted] = index_.try_emplace(id, static_cast<int>(causes_.size()));
    if (inserted) {
      causes_.push_back({key, words, wait_class, 0, 0, 0, -1, {}});
    }
    return it->second;
  }

  int wait_cause(NodeId call) {
    // A path crosses a waiting call's wake and each GPU item it waited for: one class lookup per call.
    if (const auto it = wait_cause_of_.find(call); it != wait_cause_of_.end()) return it->second;
    return wait_cause_of_[call] = wait_cause_uncached(call);
  }

  int wait_cause_uncached(NodeId call) {
    const std::string cls = detail::wait_class(g_, call);
    if (cls == detail::kLazyDrainClass) return add("lazy_loading", "lazy module loading", {});
    return add("wait", "the host's waits in " + cls, cls);
  }

  [[nodiscard]] bool is_first_use(NodeId n) const { return first_use_.covers(g_.lane_of(n), g_.event(n)); }

  causal::Removal removal_for(std::size_t i) {
    const std::string& key = causes_[i].key;
    causal::Removal r;
    r.applies_to = inside_;
    auto inside = inside_;
    const causal::HappensBefore& g = g_;
    if (key == "lazy_loading") {
      r.parts = causal::bit(causal::PartKind::LazyLoading);
      r.edges = causal::bit(causal::EdgeKind::LazyLoadDrain);
    } else if (key == "tracing_overhead") {
      r.parts = causal::bit(causal::PartKind::TracingOverhead);
    } else if (key == "host_own_work") {
      // Only gaps wholly inside the region: a gap that began before it would move work into it.
      const TimeNs start = w_.start_ns;
      r.drop_gap = [inside, &g, start](NodeId n) {
        const causal::Node& node = g.node(n);
        return inside(n) && node.kind == causal::NodeKind::HostCall && node.chain_prev != causal::kNoNode &&
               g.recorded_end(node.chain_prev) >= start;
      };
    } else if (key == "wait") {
      const std::string cls = causes_[i].detail;
      r.edges = causal::bit(causal::EdgeKind::Sync) | causal::bit(causal::EdgeKind::ImplicitSync) |
                causal::bit(causal::EdgeKind::QueueFull);
      // A node without edges is in the class named by its call; the class of each node with edges is found once
      // for every wait cause, before a replay asks for every edge into it: a call that 10^5 links wait into would
      // otherwise look through its 10^5 edges for each of them.
      const std::shared_ptr<const WaitClasses> classes = wait_classes();
      const auto it = std::find(classes->names.begin(), classes->names.end(), cls);
      const std::int32_t index = it == classes->names.end() ? -1 : std::int32_t(it - classes->names.begin());
      r.applies_to = [inside, classes, index, cls, &g](NodeId n) {
        if (!inside(n)) return false;
        if (g.node(n).has_edges) return classes->of_node[n] == index;
        return g.trace().name(g.event(n)) == cls;
      };
    } else {
      const bool launches = key == "host_launch", first = key == "first_use";
      r.drop_own_time = [this, inside, launches, first, kinds = own_kinds()](NodeId n) {
        if (!inside(n) || g_.node(n).kind != causal::NodeKind::HostCall) return false;
        const SegmentKind own = (*kinds)[n];
        if (launches) return own == SegmentKind::HostLaunch;
        return own == SegmentKind::HostCall && is_first_use(n) == first;
      };
    }
    return r;
  }

  // The wait class of each node with edges into it (an index into `names`), found once for every wait cause.
  struct WaitClasses {
    std::vector<std::string> names;
    std::vector<std::int32_t> of_node;  // -1 for nodes without edges
  };
  std::shared_ptr<const WaitClasses> wait_classes() {
    if (wait_classes_) return wait_classes_;
    auto classes = std::make_shared<WaitClasses>();
    classes->of_node.assign(g_.size(), -1);
    std::map<std::string, std::int32_t> index;
    for (NodeId n = 0; n < g_.size(); ++n) {
      if (!g_.node(n).has_edges) continue;
      auto [it, inserted] = index.try_emplace(detail::wait_class(g_, n), std::int32_t(classes->names.size()));
      if (inserted) classes->names.push_back(it->first);
      classes->of_node[n] = it->second;
    }
    wait_classes_ = std::move(classes);
    return wait_classes_;
  }

  // What each host call's own time is (launching, waiting, another call), found once for every cause that drops
  // own time: a call that waits is one whatever its name, the others are what their name makes them.
  std::shared_ptr<const std::vector<SegmentKind>> own_kinds() {
    if (own_kinds_) return own_kinds_;
    auto kinds = std::make_shared<std::vector<SegmentKind>>(g_.size(), SegmentKind::NotRecorded);
    std::unordered_map<StringId, SegmentKind> by_name;
    for (NodeId n = 0; n < g_.size(); ++n) {
      const causal::Node& node = g_.node(n);
      if (node.kind != causal::NodeKind::HostCall) continue;
      const Event& e = g_.event(n);
      if (node.end_bound || e.kind == EventKind::Sync) {
        (*kinds)[n] = causal::own_segment_kind(g_, n);
        continue;
      }
      auto [it, inserted] = by_name.try_emplace(e.name, SegmentKind::NotRecorded);
      if (inserted) it->second = causal::own_segment_kind(g_, n);
      (*kinds)[n] = it->second;
    }
    own_kinds_ = std::move(kinds);
    return own_kinds_;
  }

  const causal::HappensBefore& g_;
  const causal::Window& w_;
  const causal::ReplayPlan& plan_;
  const FirstUseSpans& first_use_;
  std::function<bool(NodeId)> inside_;
  std::vector<CauseSaving> causes_;
  std::map<std::string, int> index_;
  std::unordered_map<NodeId, int> wait_cause_of_;
  std::shared_ptr<const WaitClasses> wait_classes_;
  std::shared_ptr<const std::vector<SegmentKind>> own_kinds_;
};

// The busiest GPU's work inside [start_ns, end_ns), work that overlapped on it counted once: no change of the host
// makes the window shorter than that while the GPU's work runs at the concurrency it was recorded with. Only the
// GPUs whose summed work could cap `saving_ns` have their work merged.
struct GpuFloor {
  std::int64_t device = -1;
  TimeNs busy_ns = 0;
};
GpuFloor busiest_gpu(const causal::HappensBefore& g, TimeNs start_ns, TimeNs end_ns, TimeNs saving_ns) {
  const Trace& trace = g.trace();
  std::map<std::int64_t, TimeNs> summed;
  for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
    if (!trace.lane(l).is_gpu()) continue;
    const causal::HappensBefore::IdRange r = g.lane_nodes(l);
    TimeNs& sum = summed[trace.lane(l).device()];
    for (NodeId n = r.first; n < r.last; ++n)
      sum += std::max<TimeNs>(0, std::min(end_ns, g.recorded_end(n)) - std::max(start_ns, g.recorded_start(n)));
  }
  GpuFloor out;
  for (const auto& [device, sum] : summed) {
    if (end_ns - start_ns - sum >= saving_ns || sum <= out.busy_ns) continue;
    std::vector<Interval> busy;
    for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
      if (!trace.lane(l).is_gpu() || trace.lane(l).device() != device) continue;
      const causal::HappensBefore::IdRange r = g.lane_nodes(l);
      for (NodeId n = r.first; n < r.last; ++n) busy.push_back({g.recorded_start(n), g.recorded_end(n)});
    }
    const TimeNs ns = length_within_ns(merged(std::move(busy)), start_ns, end_ns);
    if (ns > out.busy_ns) out = {device, ns};
  }
  return out;
}

// A saving above the window's length less the busiest GPU's work moved work that ran alone beside other work:
// capped there, with both said.
void cap_by_gpu_work(const causal::HappensBefore& g, const causal::WindowTimes& w, std::vector<CauseSaving>& causes) {
  TimeNs largest = 0;
  for (const CauseSaving& c : causes) largest = std::max(largest, c.saving_ns);
  if (largest <= 0) return;
  const GpuFloor floor = busiest_gpu(g, w.start_ns, w.end_ns, largest);
  if (floor.device < 0) return;
  const TimeNs cap = std::max<TimeNs>(0, w.length_ns() - floor.busy_ns);
  for (CauseSaving& c : causes) {
    if (c.saving_ns <= cap) continue;
    c.replayed_ns = c.saving_ns;
    c.saving_ns = cap;
    c.capped_by = gtv::gpu_label(g.trace(), floor.device) + "'s work takes " + format_duration(floor.busy_ns) +
                  " of the " + format_duration(w.length_ns());
  }
}

// "GPU 0", "thread 1685"; in a run of several processes "process 12 thread 34"; in a merged run with the rank.
std::string where_of(const Trace& trace, const Lane& lane, bool several_processes) {
  if (lane.is_gpu()) return gtv::gpu_label(trace, lane.device());
  std::string out = gtv::rank_prefix(trace, lane);
  if (several_processes) out += "process " + std::to_string(lane.key.pid) + " ";
  return out + "thread " + std::to_string(lane.key.tid);
}

// What a host segment's time was beyond its kind: the thread's work before its first call (the one host own work no
// cause counts), or a silence inside a range that says what the thread waited for.
struct SegmentContext {
  ShareContext context = ShareContext::None;
  const Event* range = nullptr;
};

SegmentContext context_of(const Trace& trace, const PathSegment& s) {
  if (!s.has_event) return {};
  const Lane& lane = trace.lane(s.event.lane);
  if (lane.is_gpu()) return {};
  if (s.kind == SegmentKind::HostOwnWork && s.cause < 0) return {ShareContext::BeforeFirstCall, nullptr};
  if (s.kind != SegmentKind::NotRecorded) return {};
  const detail::SilentContext inside = detail::silent_context(trace, lane, s.start_ns);
  return {inside.range, inside.event};
}

std::vector<PathShare> shares_of(const Trace& trace, const std::vector<PathSegment>& segments) {
  // Summed per (kind, lane, context) first: the words for a place are built once per lane, not once per segment.
  using Key = std::tuple<int, LaneIndex, ShareContext, std::string_view>;
  std::map<Key, std::pair<TimeNs, std::size_t>> per_lane;
  TimeNs unplaced_ns[causal::kSegmentKindCount] = {};
  std::size_t unplaced_count[causal::kSegmentKindCount] = {};
  std::set<std::int64_t> pids;  // the processes whose threads are on the path: named only when there are several
  for (const PathSegment& s : segments)
    if (s.has_event && !trace.lane(s.event.lane).is_gpu()) pids.insert(trace.lane(s.event.lane).key.pid);
  const std::size_t processes = pids.size();
  for (const PathSegment& s : segments) {
    const int kind = static_cast<int>(s.kind);
    if (!s.has_event) {
      unplaced_ns[kind] += s.length_ns();
      ++unplaced_count[kind];
      continue;
    }
    const SegmentContext c = context_of(trace, s);
    auto& [ns, count] = per_lane[{kind, s.event.lane, c.context, c.range ? trace.name(*c.range) : std::string_view()}];
    ns += s.length_ns();
    ++count;
  }
  std::map<std::tuple<int, std::string, ShareContext, std::string>, PathShare> by;
  auto add = [&](int kind, const std::string& where, ShareContext context, std::string_view range, TimeNs ns,
                 std::size_t count) {
    PathShare& share = by[{kind, where, context, std::string(range)}];
    share.kind = static_cast<SegmentKind>(kind);
    share.where = where;
    share.context = context;
    share.range = std::string(range);
    share.total_ns += ns;
    share.segments += count;
  };
  for (int k = 0; k < causal::kSegmentKindCount; ++k)
    if (unplaced_count[k] > 0) add(k, {}, ShareContext::None, {}, unplaced_ns[k], unplaced_count[k]);
  std::map<LaneIndex, std::string> where;
  for (const auto& [key, sum] : per_lane) {
    const LaneIndex lane = std::get<1>(key);
    auto [it, fresh] = where.try_emplace(lane);
    if (fresh) it->second = where_of(trace, trace.lane(lane), processes > 1);
    add(std::get<0>(key), it->second, std::get<2>(key), std::get<3>(key), sum.first, sum.second);
  }
  std::vector<PathShare> out;
  out.reserve(by.size());
  for (auto& [key, share] : by) out.push_back(std::move(share));
  std::stable_sort(out.begin(), out.end(),
                   [](const PathShare& a, const PathShare& b) { return a.total_ns > b.total_ns; });
  return out;
}

// A host lane's record_function ranges (annotations other than profiler steps) as pieces of time, each named by
// the innermost range over it. A thread's ranges nest: one sweep with a stack of the open ones.
struct RangePiece {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  StringId name = 0;
};

std::vector<RangePiece> range_pieces(const Trace& trace, const Lane& lane) {
  std::vector<RangePiece> out;
  std::vector<std::pair<TimeNs, StringId>> open;  // (end, name), innermost last
  TimeNs at = kMinTraceTimeNs;
  const auto close_until = [&](TimeNs t) {
    while (!open.empty() && open.back().first <= t) {
      if (at < open.back().first) out.push_back({at, open.back().first, open.back().second});
      at = std::max(at, open.back().first);
      open.pop_back();
    }
  };
  for (const Event& e : lane.events) {
    if (e.kind != EventKind::Annotation || kineto::is_profiler_step(trace.name(e))) continue;
    close_until(e.start_ns);
    if (!open.empty() && at < e.start_ns) out.push_back({at, e.start_ns, open.back().second});
    at = std::max(at, e.start_ns);
    const TimeNs end = open.empty() ? e.end_ns() : std::min(e.end_ns(), open.back().first);
    open.emplace_back(end, e.name);
  }
  close_until(kMaxTraceTimeNs);
  return out;
}

// Per process, its host thread with the most record_function ranges (the main thread, where the loop's phases are
// marked): a thread with none of its own (PyTorch's autograd engine, DDP's and Gloo's workers) works for the range
// that thread is in.
std::map<std::int64_t, LaneIndex> range_threads(const Trace& trace) {
  std::map<std::int64_t, std::pair<std::size_t, LaneIndex>> most;
  for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
    const Lane& lane = trace.lane(l);
    if (lane.is_gpu()) continue;
    std::size_t n = 0;
    for (const Event& e : lane.events)
      n += e.kind == EventKind::Annotation && !kineto::is_profiler_step(trace.name(e)) ? 1 : 0;
    auto [it, fresh] = most.try_emplace(lane.key.pid, n, l);
    if (!fresh && n > it->second.first) it->second = {n, l};
  }
  std::map<std::int64_t, LaneIndex> out;
  for (const auto& [pid, best] : most)
    if (best.first > 0) out.emplace(pid, best.second);
  return out;
}

std::vector<RangeWork> own_work_by_range(const Trace& trace, const std::vector<PathSegment>& segments) {
  std::map<LaneIndex, std::vector<RangePiece>> pieces_of;
  std::map<std::int64_t, LaneIndex> main_thread;
  bool main_threads_found = false;
  std::map<StringId, TimeNs> by_name;
  TimeNs outside_ns = 0;
  for (const PathSegment& s : segments) {
    // The work before a thread's first call is no cause's (no replay removes it): left out, so that the total is
    // the own work between calls that the cause's sentence names.
    if (s.kind != SegmentKind::HostOwnWork || s.cause < 0 || !s.has_event || trace.lane(s.event.lane).is_gpu())
      continue;
    auto [it, fresh] = pieces_of.try_emplace(s.event.lane);
    if (fresh) {
      it->second = range_pieces(trace, trace.lane(s.event.lane));
      if (it->second.empty()) {
        if (!main_threads_found) main_thread = range_threads(trace);
        main_threads_found = true;
        const auto main = main_thread.find(trace.lane(s.event.lane).key.pid);
        if (main != main_thread.end() && main->second != s.event.lane)
          it->second = range_pieces(trace, trace.lane(main->second));
      }
    }
    const std::vector<RangePiece>& pieces = it->second;
    TimeNs inside_ns = 0;
    auto p = std::upper_bound(pieces.begin(), pieces.end(), s.start_ns,
                              [](TimeNs t, const RangePiece& q) { return t < q.end_ns; });
    for (; p != pieces.end() && p->start_ns < s.end_ns; ++p) {
      const TimeNs ns = std::min(p->end_ns, s.end_ns) - std::max(p->start_ns, s.start_ns);
      if (ns <= 0) continue;
      by_name[p->name] += ns;
      inside_ns += ns;
    }
    outside_ns += s.length_ns() - inside_ns;
  }
  if (by_name.empty()) return {};
  std::vector<RangeWork> out;
  out.reserve(by_name.size() + 1);
  for (const auto& [name, ns] : by_name) out.push_back({std::string(trace.strings().view(name)), ns});
  if (outside_ns > 0) out.push_back({{}, outside_ns});
  std::stable_sort(out.begin(), out.end(),
                   [](const RangeWork& a, const RangeWork& b) { return a.total_ns > b.total_ns; });
  return out;
}

}  // namespace

std::string_view context_key(ShareContext context) {
  switch (context) {
    case ShareContext::BeforeFirstCall:
      return "before_first_call";
    case ShareContext::InsideCollective:
      return "inside_collective";
    case ShareContext::InsideDataLoaderWait:
      return "inside_data_loader_wait";
    case ShareContext::None:
      break;
  }
  return "none";
}

std::string share_phrase(const PathShare& s) {
  std::string w = s.where.empty() ? "" : s.where + " ";
  switch (s.kind) {
    case SegmentKind::Kernel:
      return w + "computing";
    case SegmentKind::Copy:
      return w + "copying";
    case SegmentKind::Memset:
      return w + "setting memory";
    case SegmentKind::Communication:
      return w + "in collective transfers";
    case SegmentKind::HostLaunch:
      return w + "launching";
    case SegmentKind::HostSyncCall:
      return w + "in waiting calls";
    case SegmentKind::HostCall:
      return w + "in other CUDA calls";
    case SegmentKind::LazyLoading:
      return w + "loading modules lazily";
    case SegmentKind::TracingOverhead:
      return w + "in tracing overhead";
    case SegmentKind::HostOwnWork:
      if (s.context == ShareContext::BeforeFirstCall) return w + "working before its first CUDA call";
      return w + "doing its own work between calls";
    case SegmentKind::LaunchLatency:
      return w + "starting launched work (launch latency)";
    case SegmentKind::StreamGap:
      return w + "between queued work";
    case SegmentKind::HeldByOtherStreams:
      return w + "queued behind other streams' work";
    case SegmentKind::EventWait:
      return w + "held by an event wait";
    case SegmentKind::SyncWake:
      return w + "returning from waits";
    case SegmentKind::NotRecorded:
      // A thread that recorded nothing was waiting, or in code nobody recorded: not its recorded work. Inside a range
      // that says what it waited for, the range names it.
      if (s.context == ShareContext::InsideCollective || s.context == ShareContext::InsideDataLoaderWait)
        return w + "inside " + s.range + ", " + std::string(detail::silent_meaning(s.context)) + " (not recorded)";
      return s.where.empty() ? "not recorded" : w + "unexplained (not recorded)";
  }
  return w;
}

namespace {

// What held a GPU node's start back where the path reaches it through its stream or its launch.
GpuStartWait start_wait_of(const causal::HappensBefore& g, const causal::Segment& s) {
  if (s.node == causal::kNoNode) return GpuStartWait::None;
  const causal::Node& n = g.node(s.node);
  if (s.kind == SegmentKind::LaunchLatency) {
    // From pageable memory the call copies the data into a pinned buffer before the GPU copies it from there (into
    // pageable memory the host copies after the GPU).
    if (n.launch == causal::kNoNode || !g.node(n.launch).stages_own_copy) return GpuStartWait::None;
    const MemcpyDetail* copy = g.trace().memcpy_detail(g.event(s.node));
    return copy != nullptr && copy->src_kind == MemoryKind::Pageable ? GpuStartWait::StagedCopy : GpuStartWait::None;
  }
  if (s.kind != SegmentKind::StreamGap || n.chain_prev == causal::kNoNode || n.launch == causal::kNoNode)
    return GpuStartWait::None;
  const TimeNs previous_end = g.recorded_end(n.chain_prev);
  // Only a call that had returned is known to have handed its work over (a call that waits for its own work, or
  // stages its copy, hands it over somewhere inside).
  if (g.recorded_end(n.launch) > previous_end) return GpuStartWait::LaunchStillRunning;
  return g.recorded_start(s.node) - previous_end <= kDispatchGapNs ? GpuStartWait::DispatchGap
                                                                   : GpuStartWait::QueuedLonger;
}

}  // namespace

CriticalPathAnalysis analyze_critical_path(const Trace& trace, const causal::HappensBefore& g, const Region& region,
                                           const WarmUp& warmup, unsigned threads) {
  CriticalPathAnalysis out;
  out.region = region;
  if (g.size() == 0 || region.length_ns() == 0) return out;
  const causal::Window w = causal::window_of(g);
  const causal::ReplayPlan plan(g);
  const causal::Timeline& t = plan.unchanged();
  const causal::CriticalPath cp = causal::critical_path(g, t, w);
  out.length_ns = cp.window.length_ns();
  out.replay_error_ns =
      out.length_ns > region.length_ns() ? out.length_ns - region.length_ns() : region.length_ns() - out.length_ns;
  out.truncated = cp.truncated;
  const FirstUseSpans first_use(trace, warmup);
  CauseChecker checker(plan, w, first_use);
  out.segments.reserve(cp.segments.size());
  for (const causal::Segment& s : cp.segments) {
    PathSegment p{s.start_ns, s.end_ns, s.kind, s.node != causal::kNoNode, {}, -1, checker.cause_of(s), -1};
    if (p.has_event) {
      p.event = g.node(s.node).ref;
      if (s.kind == SegmentKind::HostCall) p.first_use = first_use.cause_at(p.event.lane, trace.event(p.event));
      if (trace.lane(p.event.lane).is_gpu()) p.device = trace.lane(p.event.lane).device();
      p.start_wait = start_wait_of(g, s);
    }
    if (p.cause >= 0) {
      CauseSaving& c = checker.causes()[static_cast<std::size_t>(p.cause)];
      (s.via != causal::kNoNode ? c.waited_ns : c.on_path_ns) += p.length_ns();
    }
    out.segments.push_back(p);
  }
  out.causes = checker.checked(threads);
  cap_by_gpu_work(g, cp.window, out.causes);
  out.shares = shares_of(trace, out.segments);
  out.own_work_by_range = own_work_by_range(trace, out.segments);
  out.anomalies = g.anomalies().lines();
  detail::describe_critical_path(out);
  return out;
}

}  // namespace gtv::analysis
