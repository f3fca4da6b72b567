// The first iteration of a loop against the median of its later ones, per host thread, on like-for-like bases:
// the GPU time of the work each iteration launched, and wall time when the loop waits for its GPU work every
// iteration. Host launch time alone is never compared: a first iteration launching 50x slower may finish its
// GPU work just as fast.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include "gtv/model/collectives.h"
#include "report/record_names.h"
#include "warmup/warmup_parts.h"

namespace gtv::analysis::detail {
namespace {

// One series of like iterations on one host thread, in start order.
struct Series {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::string what;
  std::vector<Interval> spans;
  std::vector<std::string> names;
  // Profiler steps are the whole process's iterations: the GPU work any of its threads launched inside one (the
  // autograd engine's backward) is that step's work.
  bool whole_process = false;
};

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

// The phase and warm-up ranges: the loops iterations belong to.
std::vector<const Range*> loops_of(const Trace& trace) {
  std::vector<const Range*> out;
  for (const Range& p : trace.ranges())
    if (p.kind == RangeKind::Phase || p.kind == RangeKind::WarmUp) out.push_back(&p);
  return out;
}

// The innermost loop of the same process holding r.
const Range* enclosing_loop(const std::vector<const Range*>& loops, const Range& r) {
  const Range* best = nullptr;
  for (const Range* p : loops) {
    if (p->pid != r.pid || p->start_ns > r.start_ns || p->end_ns < r.end_ns) continue;
    if (!best || p->start_ns > best->start_ns || (p->start_ns == best->start_ns && p->end_ns < best->end_ns)) best = p;
  }
  return best;
}

void add_to(std::map<std::tuple<std::int64_t, std::int64_t, std::string>, Series>& by_key, std::int64_t pid,
            std::int64_t tid, const std::string& what, TimeNs start_ns, TimeNs end_ns, std::string name) {
  Series& s = by_key[{pid, tid, what}];
  s.pid = pid;
  s.tid = tid;
  s.what = what;
  s.spans.push_back({start_ns, end_ns});
  s.names.push_back(std::move(name));
}

// Iteration ranges per thread and loop; Forward ranges per thread and name on threads without iterations.
std::vector<Series> series_from_ranges(const Trace& trace) {
  std::map<std::tuple<std::int64_t, std::int64_t, std::string>, Series> by_key;
  std::set<std::pair<std::int64_t, std::int64_t>> with_iterations;
  const std::vector<const Range*> loops = loops_of(trace);
  for (const Range& r : trace.ranges()) {
    if (r.kind != RangeKind::Iteration) continue;
    with_iterations.insert({r.pid, r.tid});
    const Range* loop = enclosing_loop(loops, r);
    add_to(by_key, r.pid, r.tid, loop ? "iterations of \"" + loop->name + "\"" : "iterations", r.start_ns, r.end_ns,
           r.name);
  }
  for (const Range& r : trace.ranges())
    if (r.kind == RangeKind::Forward && !with_iterations.count({r.pid, r.tid}))
      add_to(by_key, r.pid, r.tid, "\"" + r.name + "\" ranges", r.start_ns, r.end_ns, r.name);
  std::vector<Series> out;
  out.reserve(by_key.size());
  for (auto& [key, s] : by_key) out.push_back(std::move(s));
  return out;
}

// PyTorch marks steps with record_function annotations: "ProfilerStep#N" (else "iteration") at depth 0, taken
// from the one thread with the most of them (other threads may hold nested copies).
std::vector<Series> series_from_annotations(const Trace& trace) {
  for (std::string_view prefix : {std::string_view("ProfilerStep#"), std::string_view("iteration")}) {
    Series best;
    for (const Lane& lane : trace.lanes()) {
      if (lane.is_gpu() || lane.by_depth.empty()) continue;
      Series s{lane.key.pid,
               lane.key.tid,
               std::string(prefix == "iteration" ? "\"iteration\" annotations" : "profiler steps"),
               {},
               {},
               prefix != "iteration"};
      for (std::uint32_t i : lane.by_depth[0]) {
        const Event& e = lane.events[i];
        if (e.kind == EventKind::Annotation && starts_with_nocase(trace.name(e), prefix)) {
          s.spans.push_back({e.start_ns, e.end_ns()});
          s.names.emplace_back(trace.name(e));
        }
      }
      if (s.spans.size() > best.spans.size()) best = std::move(s);
    }
    if (best.spans.size() >= 2) return {std::move(best)};
  }
  return {};
}

// What one iteration launched on the GPUs.
struct IterationGpu {
  TimeNs busy_ns = 0;          // busy time of its work on each GPU, summed over GPUs
  TimeNs end_ns = 0;           // last end of its GPU work; 0 when none
  bool communication = false;  // launched NCCL kernels (left out of busy_ns)
};

class GpuWork {
 public:
  GpuWork(const Trace& trace, const LaneLaunches& launches)
      : trace_(trace), launches_(launches), nccl_(trace.strings().size(), kUnknown) {}

  // The work launched from `lanes` inside `host`. Devices seen are added to `devices`.
  IterationGpu of(const std::vector<LaneIndex>& lanes, Interval host, std::set<std::int64_t>& devices) {
    IterationGpu out;
    std::map<std::int64_t, std::vector<Interval>> spans_by_device;
    for (const LaneIndex lane : lanes) {
      const Lane& l = trace_.lane(lane);
      const auto& links = launches_.all[lane];
      auto it = std::lower_bound(links.begin(), links.end(), host.start_ns,
                                 [&](const LaunchLink& k, TimeNs t) { return l.events[k.index].start_ns < t; });
      for (; it != links.end() && l.events[it->index].start_ns < host.end_ns; ++it) {
        const Event& g = trace_.event(it->to);
        if (g.kind == EventKind::Kernel && is_nccl(g.name)) {
          out.communication = true;  // a peer rank arriving late shows up here: not warm-up
          continue;
        }
        const std::int64_t device = trace_.lane(it->to.lane).device();
        spans_by_device[device].push_back({g.start_ns, g.end_ns()});
        out.end_ns = std::max(out.end_ns, g.end_ns());
        devices.insert(device);
      }
    }
    // Summed over devices: how two GPUs' work happened to overlap differs between iterations, the work does not.
    for (auto& [device, spans] : spans_by_device) {
      merge_in_place(spans);
      out.busy_ns += total_length_ns(spans);
    }
    return out;
  }

 private:
  bool is_nccl(StringId id) {
    if (nccl_[id] == kUnknown) {
      nccl_[id] = is_communication_kernel(trace_.strings().view(id)) ? 1 : 0;
    }
    return nccl_[id] == 1;
  }
  static constexpr std::uint8_t kUnknown = 2;
  const Trace& trace_;
  const LaneLaunches& launches_;
  std::vector<std::uint8_t> nccl_;
};

TimeNs median_of(std::vector<TimeNs> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : v[mid - 1] + (v[mid] - v[mid - 1]) / 2;
}

std::optional<IterationWarmUp> compare(const Series& s, GpuWork& gpu, const Trace& trace) {
  if (s.spans.size() < 2) return std::nullopt;
  std::vector<LaneIndex> lanes;
  if (s.whole_process) {
    for (LaneIndex l = 0; l < trace.lanes().size(); ++l)
      if (!trace.lane(l).is_gpu() && trace.lane(l).key.pid == s.pid) lanes.push_back(l);
  } else if (const auto lane = trace.find_lane(host_lane_key(s.pid, s.tid))) {
    lanes.push_back(*lane);
  }
  std::set<std::int64_t> devices;
  std::vector<TimeNs> host_ns, gpu_ns;
  bool synchronized = true, communication = false, any_gpu = false;
  for (const Interval& span : s.spans) {
    const IterationGpu g = gpu.of(lanes, span, devices);
    host_ns.push_back(span.length_ns());
    gpu_ns.push_back(g.busy_ns);
    communication = communication || g.communication;
    any_gpu = any_gpu || g.busy_ns > 0;
    if (g.busy_ns > 0 && span.end_ns < g.end_ns) synchronized = false;
  }
  if (!any_gpu) return std::nullopt;  // a CPU loop: nothing to say about GPU warm-up
  IterationWarmUp w;
  w.pid = s.pid;
  w.tid = s.tid;
  if (const RankInfo* rank = trace.rank_of_pid(s.pid)) w.rank = rank->rank;
  w.device = devices.size() == 1 ? *devices.begin() : -1;
  w.series = s.what;
  w.first_name = s.names.front();
  w.steady_count = s.spans.size() - 1;
  w.synchronized = synchronized;
  w.communication = communication;
  w.whole_process = s.whole_process;
  w.first_start_ns = s.spans.front().start_ns;
  w.first_end_ns = s.spans.front().end_ns;
  w.last_end_ns = w.first_end_ns;
  for (const Interval& span : s.spans) w.last_end_ns = std::max(w.last_end_ns, span.end_ns);
  w.first_host_ns = host_ns.front();
  w.steady_host_median_ns = median_of({host_ns.begin() + 1, host_ns.end()});
  w.first_gpu_ns = gpu_ns.front();
  w.steady_gpu_median_ns = median_of({gpu_ns.begin() + 1, gpu_ns.end()});
  // Wall time would include a collective's wait for a peer rank, so it compares only loops without one.
  if (synchronized && !communication && w.steady_host_median_ns > 0)
    w.sync_ratio = safe_ratio(double(w.first_host_ns), double(w.steady_host_median_ns));
  if (w.first_gpu_ns > 0) w.gpu_ratio = safe_ratio(double(w.first_gpu_ns), double(w.steady_gpu_median_ns));
  return w;
}

// Each series in start order; series by thread, then by their first start.
void sort_series(std::vector<Series>& series) {
  for (Series& s : series) {
    std::vector<std::size_t> order(s.spans.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return s.spans[a].start_ns < s.spans[b].start_ns; });
    Series sorted{s.pid, s.tid, s.what, {}, {}, s.whole_process};
    for (std::size_t i : order) {
      sorted.spans.push_back(s.spans[i]);
      sorted.names.push_back(std::move(s.names[i]));
    }
    s = std::move(sorted);
  }
  std::stable_sort(series.begin(), series.end(), [](const Series& a, const Series& b) {
    return std::tie(a.pid, a.tid, a.spans.front().start_ns) < std::tie(b.pid, b.tid, b.spans.front().start_ns);
  });
}

}  // namespace

std::vector<IterationWarmUp> compare_first_iterations(const Trace& trace, const LaneLaunches& launches) {
  std::vector<Series> series = series_from_ranges(trace);
  if (series.empty()) series = series_from_annotations(trace);
  sort_series(series);
  GpuWork gpu(trace, launches);
  std::vector<IterationWarmUp> out;
  for (const Series& s : series)
    if (auto w = compare(s, gpu, trace)) out.push_back(std::move(*w));
  return out;
}

void add_first_use_inside(std::vector<IterationWarmUp>& iterations, const std::vector<WarmUpFinding>& findings) {
  for (IterationWarmUp& it : iterations) {
    std::vector<Interval> spans;
    for (const WarmUpFinding& f : findings) {
      if (f.on_gpu || f.pid != it.pid || (!it.whole_process && f.tid != it.tid)) continue;
      if (f.end_ns <= it.first_start_ns || f.start_ns >= it.first_end_ns) continue;
      for (const Interval& span : f.spans)
        if (span.end_ns > it.first_start_ns && span.start_ns < it.first_end_ns)
          spans.push_back({std::max(span.start_ns, it.first_start_ns), std::min(span.end_ns, it.first_end_ns)});
    }
    it.first_use_ns = total_length_ns(merged(std::move(spans)));
  }
}

}  // namespace gtv::analysis::detail
