#include "gtv/analysis/stream_overlap.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "gtv/analysis/busy.h"
#include "gtv/model/collectives.h"

namespace gtv::analysis {
namespace {

// The part of sorted, disjoint intervals inside [start_ns, end_ns).
std::vector<Interval> clipped(const std::vector<Interval>& intervals, TimeNs start_ns, TimeNs end_ns) {
  std::vector<Interval> out;
  auto it = std::upper_bound(intervals.begin(), intervals.end(), start_ns,
                             [](TimeNs t, const Interval& iv) { return t < iv.end_ns; });
  for (; it != intervals.end() && it->start_ns < end_ns; ++it) {
    const Interval in{std::max(it->start_ns, start_ns), std::min(it->end_ns, end_ns)};
    if (in.length_ns() > 0) out.push_back(in);
  }
  return out;
}

// Where a sweep's steps go: every step kept (the step rows of a GPU), or only what the overlap figures need.
class StepList {
 public:
  [[nodiscard]] bool empty() const { return steps_.empty(); }
  StreamLevelStep& back() { return steps_.back(); }
  void push_back(const StreamLevelStep& s) { steps_.push_back(s); }
  std::vector<StreamLevelStep> take() { return std::move(steps_); }

 private:
  std::vector<StreamLevelStep> steps_;
};

// The sums over the steps, with only the last step held: a GPU of 10^6 kernels has about as many steps, which the
// overlap figures read once.
class StepSums {
 public:
  [[nodiscard]] bool empty() const { return count_ == 0; }
  StreamLevelStep& back() { return last_; }
  void push_back(const StreamLevelStep& s) {
    if (count_ > 0) add(last_);
    last_ = s;
    ++count_;
  }
  // The sums with the last step counted: called once, after the sweep.
  void finish() {
    if (count_ > 0) add(last_);
  }
  [[nodiscard]] std::size_t count() const { return count_; }
  [[nodiscard]] TimeNs busy_ns() const { return busy_ns_; }
  [[nodiscard]] TimeNs at_least_two_ns() const { return at_least_two_ns_; }

 private:
  void add(const StreamLevelStep& s) {
    if (s.busy_streams >= 1) busy_ns_ += s.end_ns - s.start_ns;
    if (s.busy_streams >= 2) at_least_two_ns_ += s.end_ns - s.start_ns;
  }
  StreamLevelStep last_;
  std::size_t count_ = 0;
  TimeNs busy_ns_ = 0;
  TimeNs at_least_two_ns_ = 0;
};

// How many of the lists cover each instant: one sweep over their starts and ends. Each list is sorted and disjoint,
// so a list adds at most 1 to the level, and its starts and ends come in time order: the lists' edges are merged
// (a heap of one cursor per list), not sorted, and taken as they come off the heap. Returns the highest level; the
// steps (from the first busy instant to the last) go to `steps`.
template <typename Steps>
int sweep_levels(const std::vector<const std::vector<Interval>*>& lists, Steps& steps) {
  struct Cursor {
    TimeNs time_ns;
    std::size_t list;
    std::size_t edge;  // 2 * interval, + 1 for its end
  };
  const auto later = [](const Cursor& a, const Cursor& b) { return a.time_ns > b.time_ns; };
  const auto time_of = [&lists](std::size_t list, std::size_t edge) {
    const Interval& iv = (*lists[list])[edge / 2];
    return edge % 2 == 0 ? iv.start_ns : iv.end_ns;
  };
  std::vector<Cursor> heap;
  for (std::size_t l = 0; l < lists.size(); ++l)
    if (!lists[l]->empty()) heap.push_back({time_of(l, 0), l, 0});
  std::make_heap(heap.begin(), heap.end(), later);
  int max_level = 0;
  int level = 0;
  // The edges of one instant are summed; then the level from that instant on ends the step before it and starts a
  // new one if it differs. The level is 0 after the last instant.
  const auto at_instant = [&steps, &max_level, &level](TimeNs t, bool last) {
    if (!steps.empty()) steps.back().end_ns = t;
    if (last) return;
    max_level = std::max(max_level, level);
    if (!steps.empty() && steps.back().busy_streams == level) return;
    steps.push_back({t, t, level});
  };
  bool any = false;
  TimeNs instant_ns = 0;
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    Cursor& c = heap.back();
    if (any && c.time_ns != instant_ns) at_instant(instant_ns, false);
    any = true;
    instant_ns = c.time_ns;
    level += c.edge % 2 == 0 ? +1 : -1;
    if (++c.edge < 2 * lists[c.list]->size()) {
      c.time_ns = time_of(c.list, c.edge);
      std::push_heap(heap.begin(), heap.end(), later);
    } else {
      heap.pop_back();
    }
  }
  if (any) at_instant(instant_ns, true);
  return max_level;
}

// The sums of a sweep's steps, with its highest level.
struct Levels {
  TimeNs busy_ns = 0;          // at least one list busy
  TimeNs at_least_two_ns = 0;  // two or more
  int max_level = 0;
  std::size_t step_count = 0;
};

Levels level_sums(const std::vector<const std::vector<Interval>*>& lists) {
  StepSums sums;
  Levels out;
  out.max_level = sweep_levels(lists, sums);
  sums.finish();
  out.busy_ns = sums.busy_ns();
  out.at_least_two_ns = sums.at_least_two_ns();
  out.step_count = sums.count();
  return out;
}

GpuStreamOverlap gpu_overlap(std::int64_t device, const std::vector<const StreamActivity::Stream*>& streams,
                             TimeNs start_ns, TimeNs end_ns) {
  GpuStreamOverlap g;
  g.device = device;
  std::vector<std::vector<Interval>> busy;
  busy.reserve(streams.size());
  std::vector<Interval> kernels, copies;
  TimeNs busiest_ns = 0;
  for (const StreamActivity::Stream* s : streams) {
    std::vector<Interval> in = clipped(s->busy, start_ns, end_ns);
    const TimeNs stream_ns = total_length_ns(in);
    if (stream_ns == 0) continue;
    ++g.stream_count;
    g.stream_busy_sum_ns = saturating_add(g.stream_busy_sum_ns, stream_ns);  // streams each spanning a hostile trace
    if (stream_ns > busiest_ns) {
      busiest_ns = stream_ns;
      g.busiest_stream = s->stream;
    }
    busy.push_back(std::move(in));
    const std::vector<Interval> k = clipped(s->kernels, start_ns, end_ns), c = clipped(s->copies, start_ns, end_ns);
    kernels.insert(kernels.end(), k.begin(), k.end());
    copies.insert(copies.end(), c.begin(), c.end());
  }
  std::vector<const std::vector<Interval>*> lists;
  lists.reserve(busy.size());
  for (const auto& b : busy) lists.push_back(&b);
  const Levels levels = level_sums(lists);
  g.busy_ns = levels.busy_ns;
  g.multi_stream_ns = levels.at_least_two_ns;
  g.max_busy_streams = levels.max_level;
  g.step_count = levels.step_count;
  g.stream_parallelism = safe_ratio(double(g.stream_busy_sum_ns), double(g.busy_ns));
  g.multi_stream_share = safe_ratio(double(g.multi_stream_ns), double(g.busy_ns));
  if (std::any_of(streams.begin(), streams.end(), [](const StreamActivity::Stream* s) { return s->communication; })) {
    std::vector<Interval> computation, all;
    for (const StreamActivity::Stream* s : streams) {
      std::vector<Interval> in = clipped(s->computation, start_ns, end_ns);
      g.computation_stream_busy_sum_ns = saturating_add(g.computation_stream_busy_sum_ns, total_length_ns(in));
      computation.insert(computation.end(), in.begin(), in.end());
      const std::vector<Interval> b = clipped(s->busy, start_ns, end_ns);
      all.insert(all.end(), b.begin(), b.end());
    }
    const std::vector<Interval> union_of_computation = merged(std::move(computation));
    g.computation_busy_ns = total_length_ns(union_of_computation);
    g.communication_busy_ns = total_length_ns(difference_of(merged(std::move(all)), union_of_computation));
    g.computation_stream_parallelism =
        safe_ratio(double(g.computation_stream_busy_sum_ns), double(g.computation_busy_ns));
  }
  const std::vector<Interval> k = merged(std::move(kernels)), c = merged(std::move(copies));
  g.kernel_busy_ns = total_length_ns(k);
  g.copy_busy_ns = total_length_ns(c);
  g.copy_compute_overlap_ns = intersection_length_ns(k, c);
  return g;
}

HostLaunchOverlap host_overlap(const std::vector<StreamActivity::Thread>& threads, TimeNs start_ns, TimeNs end_ns) {
  HostLaunchOverlap h;
  std::vector<std::vector<Interval>> launching;
  launching.reserve(threads.size());
  std::set<std::int64_t> pids;
  for (const StreamActivity::Thread& t : threads) {
    std::vector<Interval> in = clipped(t.launching, start_ns, end_ns);
    if (in.empty()) continue;
    pids.insert(t.pid);
    launching.push_back(std::move(in));
  }
  h.thread_count = launching.size();
  h.process_count = pids.size();
  std::vector<const std::vector<Interval>*> lists;
  lists.reserve(launching.size());
  for (const auto& l : launching) lists.push_back(&l);
  const Levels levels = level_sums(lists);
  h.launching_ns = levels.busy_ns;
  h.concurrent_ns = levels.at_least_two_ns;
  h.max_threads = levels.max_level;
  return h;
}

// With communication kernels on some GPU: each GPU's computation (its busy time without them) and how much of it
// ran on several GPUs at once.
void computation_across_gpus(const StreamActivity& activity, StreamOverlap& out) {
  if (std::none_of(activity.streams.begin(), activity.streams.end(),
                   [](const StreamActivity::Stream& s) { return s.communication; }))
    return;
  out.communication = true;
  std::vector<std::vector<Interval>> per_gpu;
  for (std::size_t i = 0; i < activity.streams.size();) {
    const std::int64_t device = activity.streams[i].device;
    std::vector<Interval> computation;
    for (; i < activity.streams.size() && activity.streams[i].device == device; ++i) {
      const std::vector<Interval> in = clipped(activity.streams[i].computation, out.window_start_ns, out.window_end_ns);
      computation.insert(computation.end(), in.begin(), in.end());
    }
    std::vector<Interval> gpu = merged(std::move(computation));
    const TimeNs gpu_ns = total_length_ns(gpu);
    if (gpu_ns == 0) continue;
    ++out.computation_gpu_count;
    out.computation_sum_busy_ns = saturating_add(out.computation_sum_busy_ns, gpu_ns);
    per_gpu.push_back(std::move(gpu));
  }
  std::vector<const std::vector<Interval>*> lists;
  lists.reserve(per_gpu.size());
  for (const auto& g : per_gpu) lists.push_back(&g);
  out.computation_any_busy_ns += level_sums(lists).busy_ns;
}

}  // namespace

double StreamOverlap::computation_effective_parallelism() const {
  return safe_ratio(double(computation_sum_busy_ns), double(computation_any_busy_ns));
}

const GpuStreamOverlap* StreamOverlap::gpu(std::int64_t device) const {
  auto it = std::lower_bound(gpus.begin(), gpus.end(), device,
                             [](const GpuStreamOverlap& g, std::int64_t d) { return g.device < d; });
  return it == gpus.end() || it->device != device ? nullptr : &*it;
}

StreamActivity collect_stream_activity(const Trace& trace) {
  StreamActivity out;
  CommunicationNames is_communication(trace.strings());
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Interval>> launching;  // by (pid, tid)
  for (const Flow& f : trace.flows()) {
    if (f.kind != FlowKind::LaunchToGpu) continue;
    const Lane& from_lane = trace.lane(f.from.lane);
    if (from_lane.is_gpu() || !is_gpu_activity(trace.event(f.to).kind)) continue;
    const Event& call = trace.event(f.from);
    launching[{from_lane.key.pid, from_lane.key.tid}].push_back({call.start_ns, call.end_ns()});
  }
  out.threads.reserve(launching.size());
  for (auto& [key, intervals] : launching) out.threads.push_back({key.first, key.second, merged(std::move(intervals))});
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu()) continue;
    StreamActivity::Stream s{lane.device(), lane.stream(), lane_busy_intervals(lane), {}, {}, {}, false};
    for (const Event& e : lane.events) {
      if (e.duration_ns <= 0 || !is_gpu_activity(e.kind)) continue;
      if (e.kind == EventKind::Kernel) s.kernels.push_back({e.start_ns, e.end_ns()});
      if (e.kind == EventKind::Memcpy) s.copies.push_back({e.start_ns, e.end_ns()});
      const bool talks = e.kind == EventKind::Kernel && is_communication(e.name);
      s.communication = s.communication || talks;
      if (!talks) s.computation.push_back({e.start_ns, e.end_ns()});
    }
    merge_in_place(s.kernels);
    merge_in_place(s.copies);
    merge_in_place(s.computation);
    if (!s.busy.empty()) out.streams.push_back(std::move(s));
  }
  std::sort(out.streams.begin(), out.streams.end(),
            [](const auto& a, const auto& b) { return std::tie(a.device, a.stream) < std::tie(b.device, b.stream); });
  return out;
}

StreamOverlap stream_overlap_within(const StreamActivity& activity, TimeNs start_ns, TimeNs end_ns) {
  StreamOverlap out;
  out.window_start_ns = start_ns;
  out.window_end_ns = std::max(start_ns, end_ns);
  for (std::size_t i = 0; i < activity.streams.size();) {
    const std::int64_t device = activity.streams[i].device;
    std::vector<const StreamActivity::Stream*> of_device;
    for (; i < activity.streams.size() && activity.streams[i].device == device; ++i)
      of_device.push_back(&activity.streams[i]);
    const GpuStreamOverlap g = gpu_overlap(device, of_device, out.window_start_ns, out.window_end_ns);
    if (g.busy_ns > 0) out.gpus.push_back(g);
  }
  out.host = host_overlap(activity.threads, out.window_start_ns, out.window_end_ns);
  computation_across_gpus(activity, out);
  return out;
}

std::vector<StreamLevelStep> stream_level_steps(const StreamActivity& activity, std::int64_t device, TimeNs start_ns,
                                                TimeNs end_ns) {
  std::vector<std::vector<Interval>> busy;
  for (const StreamActivity::Stream& s : activity.streams)
    if (s.device == device) busy.push_back(clipped(s.busy, start_ns, end_ns));
  std::vector<const std::vector<Interval>*> lists;
  lists.reserve(busy.size());
  for (const auto& b : busy) lists.push_back(&b);
  StepList steps;
  sweep_levels(lists, steps);
  return steps.take();
}

SingleGpuStreams single_gpu_streams(const Trace& trace, const StreamActivity& activity, std::size_t gpu_count) {
  SingleGpuStreams out;
  if (gpu_count != 1 || activity.streams.empty()) return out;
  std::size_t gpu_events = 0;
  for (const Lane& lane : trace.lanes())
    if (lane.is_gpu()) gpu_events += lane.events.size();
  if (gpu_events > kMaxStreamStepEvents) return out;
  out.device = activity.streams.front().device;
  out.steps = stream_level_steps(activity, out.device, trace.start_ns(), trace.end_ns());
  for (const StreamActivity::Stream& s : activity.streams) out.streams += s.device == out.device && !s.busy.empty();
  return out;
}

StreamOverlap analyze_stream_overlap(const Trace& trace) {
  return stream_overlap_within(collect_stream_activity(trace), trace.activity_start_ns(), trace.activity_end_ns());
}

}  // namespace gtv::analysis
