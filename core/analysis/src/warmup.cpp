#include "gtv/analysis/warmup.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <unordered_map>

#include "gtv/analysis/format.h"
#include "gtv/analysis/intervals.h"

namespace gtv::analysis {
namespace {

void finish(DeviceWarmUp& d) {
  d.cold_start_ns = std::max<TimeNs>(0, d.first_ns - d.steady_mean_ns);
  d.slowdown = d.steady_count > 0 ? safe_ratio(double(d.first_ns), double(d.steady_mean_ns)) : 0.0;
}

// Iterations per device from ranges: Iteration ranges where present, else model Forward ranges.
std::vector<DeviceWarmUp> from_ranges(const Trace& trace) {
  std::map<std::int64_t, std::vector<const Range*>> iterations, forwards;
  std::map<std::int64_t, TimeNs> warmup_ns;
  for (const Range& r : trace.ranges()) {  // sorted by start
    if (r.kind == RangeKind::Iteration) iterations[r.device].push_back(&r);
    if (r.kind == RangeKind::Forward) forwards[r.device].push_back(&r);
    if (r.kind == RangeKind::WarmUp) warmup_ns[r.device] += r.end_ns - r.start_ns;
  }
  auto& chosen = iterations.empty() ? forwards : iterations;
  std::vector<DeviceWarmUp> out;
  for (const auto& [device, ranges] : chosen) {
    DeviceWarmUp d;
    d.device = device;
    d.range_name = ranges.front()->name;
    d.first_ns = ranges.front()->end_ns - ranges.front()->start_ns;
    TimeNs steady_sum = 0;
    for (std::size_t i = 1; i < ranges.size(); ++i) steady_sum += ranges[i]->end_ns - ranges[i]->start_ns;
    d.steady_count = ranges.size() - 1;
    d.steady_mean_ns = d.steady_count > 0 ? steady_sum / static_cast<TimeNs>(d.steady_count) : 0;
    finish(d);
    out.push_back(std::move(d));
  }
  for (const auto& [device, ns] : warmup_ns) {
    auto it = std::find_if(out.begin(), out.end(), [&](const DeviceWarmUp& d) { return d.device == device; });
    if (it == out.end()) {
      out.emplace_back().device = device;
      it = std::prev(out.end());
    }
    it->warmup_range_ns = ns;
  }
  std::sort(out.begin(), out.end(), [](const DeviceWarmUp& a, const DeviceWarmUp& b) { return a.device < b.device; });
  return out;
}

bool is_iteration_mark(std::string_view name) {
  auto starts = [&](std::string_view p) {
    if (name.size() < p.size()) return false;
    for (std::size_t i = 0; i < p.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(name[i])) != p[i]) return false;
    return true;
  };
  return starts("iteration") || starts("profilerstep#") || starts("step ");
}

// PyTorch traces mark iterations with record_function annotations ("ProfilerStep#3", "iteration") rather than
// gtv ranges; two or more such marks on host threads stand in for Iteration ranges of no particular device.
std::vector<DeviceWarmUp> from_iteration_annotations(const Trace& trace) {
  std::vector<const Event*> marks;
  const Lane* lane_of_marks = nullptr;
  for (const Lane& lane : trace.lanes()) {
    if (lane.is_gpu()) continue;
    for (const Event& e : lane.events)
      if (e.kind == EventKind::Annotation && e.depth == 0 && is_iteration_mark(trace.name(e))) {
        if (!lane_of_marks) lane_of_marks = &lane;
        if (lane_of_marks == &lane) marks.push_back(&e);  // one thread's iterations: others may be nested copies
      }
  }
  if (marks.size() < 2) return {};
  DeviceWarmUp d;
  d.range_name = std::string(trace.name(*marks.front()));
  d.first_ns = marks.front()->duration_ns;
  TimeNs steady_sum = 0;
  for (std::size_t i = 1; i < marks.size(); ++i) steady_sum += marks[i]->duration_ns;
  d.steady_count = marks.size() - 1;
  d.steady_mean_ns = steady_sum / static_cast<TimeNs>(d.steady_count);
  finish(d);
  return {d};
}

struct KernelRuns {
  TimeNs first_start_ns = 0;
  TimeNs first_ns = 0;
  TimeNs later_sum_ns = 0;
  std::int64_t later_count = 0;
};

// Without ranges: the first run of each repeated kernel against the mean of its later runs, per device.
std::vector<DeviceWarmUp> from_kernel_names(const Trace& trace) {
  std::map<std::int64_t, std::unordered_map<StringId, KernelRuns>> per_device;
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu()) continue;
    auto& runs = per_device[lane.device()];
    for (const Event& e : lane.events) {
      if (e.kind != EventKind::Kernel) continue;
      auto [it, inserted] = runs.try_emplace(e.name, KernelRuns{e.start_ns, e.duration_ns, 0, 0});
      if (inserted) continue;
      KernelRuns& k = it->second;
      ++k.later_count;
      if (e.start_ns < k.first_start_ns) {  // streams are visited one after another: the earliest run is first
        k.later_sum_ns += k.first_ns;
        k.first_start_ns = e.start_ns;
        k.first_ns = e.duration_ns;
      } else {
        k.later_sum_ns += e.duration_ns;
      }
    }
  }
  std::vector<DeviceWarmUp> out;
  for (const auto& [device, runs] : per_device) {
    DeviceWarmUp d;
    d.device = device;
    d.basis = WarmUpBasis::KernelNames;
    for (const auto& [name, k] : runs) {  // integer sums: the result must not depend on hash order
      if (k.later_count == 0) continue;
      d.first_ns += k.first_ns;
      d.steady_mean_ns += k.later_sum_ns / k.later_count;
      ++d.steady_count;
    }
    if (d.steady_count == 0) continue;  // nothing ran twice: no steady state to compare with
    finish(d);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

std::string_view to_string(WarmUpCause cause) {
  static constexpr std::array<std::string_view, kWarmUpCauseCount> kNames{
      "context creation", "lazy module loading", "cuBLAS set-up", "allocator growth", "stream pool", "peer access"};
  return kNames[static_cast<std::size_t>(cause)];
}

std::vector<DeviceWarmUp> device_warmup(const Trace& trace) {
  const bool has_ranges = std::any_of(trace.ranges().begin(), trace.ranges().end(), [](const Range& r) {
    return r.kind == RangeKind::Iteration || r.kind == RangeKind::Forward || r.kind == RangeKind::WarmUp;
  });
  if (has_ranges) return from_ranges(trace);
  if (auto from_marks = from_iteration_annotations(trace); !from_marks.empty()) return from_marks;
  return from_kernel_names(trace);
}

namespace {

std::vector<std::string> warmup_findings(const WarmUp& w) {
  std::vector<std::string> out;
  for (const DeviceWarmUp& d : w.devices) {
    const std::string who = d.device < 0 ? std::string("All devices") : "GPU " + std::to_string(d.device);
    if (d.steady_count > 0 && d.basis == WarmUpBasis::Ranges)
      out.push_back(who + ": the first iteration (" + d.range_name + ") took " + format_duration(d.first_ns) +
                    " against " + format_duration(d.steady_mean_ns) + " for the " + std::to_string(d.steady_count) +
                    " steady one(s) (" + fixed(d.slowdown, 1) + "x); warm-up cost " + format_duration(d.cold_start_ns) +
                    ".");
    else if (d.steady_count > 0)
      out.push_back(who + ": the first runs of " + std::to_string(d.steady_count) + " repeated kernel(s) took " +
                    format_duration(d.first_ns) + " against " + format_duration(d.steady_mean_ns) + " later (" +
                    fixed(d.slowdown, 1) + "x).");
    if (d.warmup_range_ns > 0)
      out.push_back(who + ": the recorded warm-up phase took " + format_duration(d.warmup_range_ns) + ".");
  }
  std::vector<WarmUpCauseTotal> by_time = w.causes;
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const WarmUpCauseTotal& a, const WarmUpCauseTotal& b) { return a.time_ns > b.time_ns; });
  for (const WarmUpCauseTotal& c : by_time) {
    std::string text(to_string(c.cause));
    if (text.rfind("cu", 0) != 0) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
    out.push_back(text + ": " + std::to_string(c.call_count) + " call(s) in " + std::to_string(c.segment_count) +
                  " segment(s), " + format_duration(c.time_ns) + " on the host.");
  }
  if (out.empty()) out.emplace_back("No warm-up found: no iteration ranges, no repeated kernels and no set-up calls.");
  return out;
}

// A first iteration at least 1.5x the steady ones is worth saying first; otherwise the costliest set-up work.
std::string headline_of(const WarmUp& w) {
  const DeviceWarmUp* worst = nullptr;
  for (const DeviceWarmUp& d : w.devices)
    if (d.steady_count > 0 && d.slowdown >= 1.5 && (!worst || d.cold_start_ns > worst->cold_start_ns)) worst = &d;
  if (worst) {
    const std::string where = worst->device < 0 ? std::string() : " on GPU " + std::to_string(worst->device);
    return "Warm-up: the first " + std::string(worst->basis == WarmUpBasis::Ranges ? "iteration" : "runs of kernels") +
           where + " took " + fixed(worst->slowdown, 1) + "x the steady time (" +
           format_duration(worst->first_ns) + " vs " + format_duration(worst->steady_mean_ns) + ").";
  }
  const WarmUpCauseTotal* top = nullptr;
  for (const WarmUpCauseTotal& c : w.causes)
    if (!top || c.time_ns > top->time_ns) top = &c;
  if (!top) return {};
  return "Warm-up: " + std::string(to_string(top->cause)) + " cost the host " + format_duration(top->time_ns) + " (" +
         std::to_string(top->call_count) + " call(s)).";
}

}  // namespace

WarmUp analyze_warmup(const Trace& trace) {
  WarmUp w;
  w.devices = device_warmup(trace);
  w.segments = find_warmup_segments(trace);
  std::array<WarmUpCauseTotal, kWarmUpCauseCount> totals{};
  std::vector<Interval> all;
  all.reserve(w.segments.size());
  for (const WarmUpSegment& s : w.segments) {
    WarmUpCauseTotal& t = totals[static_cast<std::size_t>(s.cause)];
    t.cause = s.cause;
    t.call_count += s.call_count;
    ++t.segment_count;
    t.time_ns += s.time_ns;
    all.push_back({s.start_ns, s.end_ns});
  }
  for (const WarmUpCauseTotal& t : totals)
    if (t.segment_count > 0) w.causes.push_back(t);
  w.segment_time_ns = total_length_ns(merged(std::move(all)));
  w.findings = warmup_findings(w);
  w.headline = headline_of(w);
  return w;
}

}  // namespace gtv::analysis
