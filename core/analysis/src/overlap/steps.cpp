#include "gtv/analysis/steps.h"

#include <algorithm>
#include <map>

#include "gtv/analysis/intervals.h"
#include "gtv/base/time.h"
#include "gtv/model/kineto_names.h"
#include "gtv/model/ranks.h"

namespace gtv::analysis {
namespace {

// A launch of GPU work from a host thread: when the launching call started, and what it launched.
struct Launch {
  TimeNs host_start_ns = 0;
  std::int64_t tid = 0;
  EventRef work;
};

// Per process, its launches in host start order.
std::map<std::int64_t, std::vector<Launch>> launches_by_pid(const Trace& trace) {
  std::map<std::int64_t, std::vector<Launch>> out;
  for (const Flow& f : trace.flows()) {
    if (f.kind != FlowKind::LaunchToGpu) continue;
    const Lane& from = trace.lane(f.from.lane);
    if (from.is_gpu() || !trace.lane(f.to.lane).is_gpu()) continue;
    out[from.key.pid].push_back({trace.event(f.from).start_ns, from.key.tid, f.to});
  }
  for (auto& [pid, list] : out)
    std::stable_sort(list.begin(), list.end(),
                     [](const Launch& a, const Launch& b) { return a.host_start_ns < b.host_start_ns; });
  return out;
}

// The GPU work launched inside `spans` (merged, in order) from the given launches (in host start order), by one
// thread (tid >= 0) or any.
struct LaunchedWork {
  TimeNs gpu_ns = 0;
  TimeNs gpu_end_ns = 0;
  std::size_t launches = 0;
};
LaunchedWork launched_inside(const Trace& trace, const std::vector<Launch>& launches,
                             const std::vector<Interval>& spans, std::int64_t tid) {
  LaunchedWork out;
  std::map<std::int64_t, std::vector<Interval>> by_device;
  for (const Interval& span : spans) {
    auto it = std::lower_bound(launches.begin(), launches.end(), span.start_ns,
                               [](const Launch& l, TimeNs t) { return l.host_start_ns < t; });
    for (; it != launches.end() && it->host_start_ns < span.end_ns; ++it) {
      if (tid >= 0 && it->tid != tid) continue;
      const Event& g = trace.event(it->work);
      by_device[trace.lane(it->work.lane).device()].push_back({g.start_ns, g.end_ns()});
      out.gpu_end_ns = std::max(out.gpu_end_ns, g.end_ns());
      ++out.launches;
    }
  }
  for (auto& [device, busy] : by_device) out.gpu_ns += total_length_ns(merged(std::move(busy)));
  return out;
}

TimeNs median_of(std::vector<TimeNs> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : v[mid - 1] + (v[mid] - v[mid - 1]) / 2;
}

// Per process, the host thread whose top level holds the most profiler steps, and those steps.
std::vector<ProcessSteps> steps_of(const Trace& trace) {
  std::map<std::int64_t, ProcessSteps> best;
  for (const Lane& lane : trace.lanes()) {
    if (lane.is_gpu() || lane.by_depth.empty()) continue;
    ProcessSteps p{lane.key.pid, lane.key.tid, {}};
    for (const std::uint32_t i : lane.by_depth[0]) {
      const Event& e = lane.events[i];
      if (e.kind == EventKind::Annotation && kineto::is_profiler_step(trace.name(e)))
        p.steps.push_back({std::string(trace.name(e)), e.start_ns, e.end_ns(), 0, 0, 0});
    }
    if (p.steps.empty()) continue;
    auto [it, added] = best.try_emplace(p.pid, p);
    if (!added && p.steps.size() > it->second.steps.size()) it->second = std::move(p);
  }
  std::vector<ProcessSteps> out;
  out.reserve(best.size());
  for (auto& [pid, p] : best) out.push_back(std::move(p));
  return out;
}

// Per thread and name, the record_function ranges and their merged spans (in the same order).
std::vector<AnnotatedRanges> ranges_of(const Trace& trace, std::size_t& count,
                                       std::vector<std::vector<Interval>>& merged_spans) {
  std::vector<AnnotatedRanges> out;
  for (const Lane& lane : trace.lanes()) {
    if (lane.is_gpu()) continue;
    std::map<StringId, std::vector<Interval>> spans;  // by name, in the order the names were first seen
    for (const Event& e : lane.events) {
      if (e.kind != EventKind::Annotation || kineto::is_profiler_step(trace.name(e))) continue;
      spans[e.name].push_back({e.start_ns, e.end_ns()});
      ++count;
    }
    for (auto& [name, list] : spans) {
      AnnotatedRanges r;
      r.name = std::string(trace.strings().view(name));
      r.pid = lane.key.pid;
      r.tid = lane.key.tid;
      r.count = list.size();
      merged_spans.push_back(merged(std::move(list)));
      r.host_ns = total_length_ns(merged_spans.back());
      out.push_back(std::move(r));
    }
  }
  return out;
}

std::string thread_words(const Trace& trace, std::int64_t pid, std::int64_t tid, bool several_processes) {
  std::string out;
  if (const RankInfo* rank = trace.rank_of_pid(pid)) out = "rank " + std::to_string(rank->rank) + " ";
  if (several_processes) out += "process " + std::to_string(pid) + " ";
  return out + "thread " + std::to_string(tid);
}

}  // namespace

ProfilerSteps analyze_profiler_steps(const Trace& trace) {
  ProfilerSteps out;
  out.processes = steps_of(trace);
  std::vector<std::vector<Interval>> range_spans;
  out.ranges = ranges_of(trace, out.range_count, range_spans);
  if (out.processes.empty() && out.ranges.empty()) return out;
  const std::map<std::int64_t, std::vector<Launch>> launches = launches_by_pid(trace);
  const std::vector<Launch> none;
  const auto launches_of = [&](std::int64_t pid) -> const std::vector<Launch>& {
    const auto it = launches.find(pid);
    return it == launches.end() ? none : it->second;
  };
  const bool several = out.processes.size() > 1;
  for (ProcessSteps& p : out.processes) {
    std::vector<TimeNs> lengths, gpu;
    for (StepWindow& s : p.steps) {
      const LaunchedWork w = launched_inside(trace, launches_of(p.pid), {{s.start_ns, s.end_ns}}, -1);
      s.gpu_ns = w.gpu_ns;
      s.gpu_end_ns = w.gpu_end_ns;
      s.launches = w.launches;
      lengths.push_back(s.length_ns());
      gpu.push_back(s.gpu_ns);
    }
    const std::string who = thread_words(trace, p.pid, p.tid, several);
    std::string line = std::to_string(p.steps.size()) + " profiler step" + (p.steps.size() == 1 ? "" : "s") + " on " +
                       who + " (" + p.steps.front().name +
                       (p.steps.size() > 1 ? " to " + p.steps.back().name : std::string()) +
                       "), each computed on its own window, its ProfilerStep range from one profiler.step() call to "
                       "the next: median " +
                       format_duration(median_of(lengths)) + " long";
    line +=
        "; the GPU work launched inside a step (by any thread of its process, PyTorch's autograd engine "
        "included) took a median of " +
        format_duration(median_of(gpu)) + " of GPU time (busy time per GPU, summed over GPUs).";
    out.lines.push_back(std::move(line));
  }
  for (std::size_t i = 0; i < out.ranges.size(); ++i) {
    AnnotatedRanges& r = out.ranges[i];
    const LaunchedWork w = launched_inside(trace, launches_of(r.pid), range_spans[i], r.tid);
    r.gpu_ns = w.gpu_ns;
    r.launches = w.launches;
  }
  std::stable_sort(out.ranges.begin(), out.ranges.end(),
                   [](const AnnotatedRanges& a, const AnnotatedRanges& b) { return a.host_ns > b.host_ns; });
  if (!out.ranges.empty())
    out.lines.push_back(std::to_string(out.range_count) + " record_function range" + (out.range_count == 1 ? "" : "s") +
                        " of " + std::to_string(out.ranges.size()) + " name" + (out.ranges.size() == 1 ? "" : "s") +
                        " (per thread): each row is computed on the windows of its ranges, the host time inside "
                        "them (overlapping ones counted once) and the GPU work that thread launched from inside "
                        "them, wherever it ran.");
  return out;
}

}  // namespace gtv::analysis
