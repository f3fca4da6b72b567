#include "gtv/analysis/timing_truth.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "gtv/analysis/format.h"
#include "gtv/analysis/intervals.h"

namespace gtv::analysis {
namespace {

struct Launched {
  TimeNs launch_ns;
  std::int64_t pid;
  Interval gpu;
};

// GPU work by launch time, so each measurement finds its launches with one binary search.
std::vector<Launched> launches_by_time(const Trace& trace) {
  std::vector<Launched> out;
  out.reserve(trace.flows().size());
  for (const Flow& f : trace.flows()) {
    const Event& gpu = trace.event(f.to);
    if (!trace.lane(f.to.lane).is_gpu() || !is_gpu_activity(gpu.kind)) continue;
    out.push_back({trace.event(f.from).start_ns, trace.lane(f.from.lane).key.pid, {gpu.start_ns, gpu.end_ns()}});
  }
  std::sort(out.begin(), out.end(), [](const Launched& a, const Launched& b) { return a.launch_ns < b.launch_ns; });
  return out;
}

struct Activities {
  std::vector<Interval> by_start;
  TimeNs max_duration_ns = 0;
};

Activities activities_by_start(const Trace& trace) {
  Activities a;
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu()) continue;
    for (const Event& e : lane.events) {
      if (!is_gpu_activity(e.kind)) continue;
      a.by_start.push_back({e.start_ns, e.end_ns()});
      a.max_duration_ns = std::max(a.max_duration_ns, e.duration_ns);
    }
  }
  std::sort(a.by_start.begin(), a.by_start.end(),
            [](const Interval& x, const Interval& y) { return x.start_ns < y.start_ns; });
  return a;
}

void add_gpu_work(MeasurementTruth& m, const Interval& gpu, std::vector<Interval>& work) {
  m.gpu_first_start_ns = m.gpu_activity_count == 0 ? gpu.start_ns : std::min(m.gpu_first_start_ns, gpu.start_ns);
  m.gpu_last_end_ns = m.gpu_activity_count == 0 ? gpu.end_ns : std::max(m.gpu_last_end_ns, gpu.end_ns);
  ++m.gpu_activity_count;
  work.push_back(gpu);
}

std::string method_label(const MeasurementTruth& m) { return std::string(to_string(m.method)) + " \"" + m.name + "\""; }

std::string verdict_for(const MeasurementTruth& m) {
  const std::string head = method_label(m) + " reported " + format_duration(m.reported_ns);
  if (m.gpu_activity_count == 0)
    return head + "; no GPU work ran in its scope, so the truth is its host interval, " + format_duration(m.truth_ns) +
           ".";
  const std::string truth = "the work took " + format_duration(m.truth_ns);
  const double abs_rel = std::fabs(m.relative_error);
  if (abs_rel <= 0.05) return head + "; " + truth + ": within " + percent(abs_rel, 1) + ".";
  const std::string how = m.error_ns < 0 ? "it missed " : "it over-counted ";
  return head + " but " + truth + ": " + how + format_duration(m.error_ns < 0 ? -m.error_ns : m.error_ns) + " (" +
         percent(abs_rel) + ").";
}

std::vector<MethodError> method_errors(const std::vector<MeasurementTruth>& measurements) {
  std::map<MeasurementMethod, MethodError> per_method;
  for (const MeasurementTruth& m : measurements) {
    MethodError& e = per_method[m.method];
    e.method = m.method;
    ++e.count;
    e.mean_relative_error += m.relative_error;
    e.mean_abs_relative_error += std::fabs(m.relative_error);
  }
  std::vector<MethodError> out;
  for (auto& [method, e] : per_method) {
    e.mean_relative_error /= double(e.count);
    e.mean_abs_relative_error /= double(e.count);
    out.push_back(e);
  }
  return out;
}

// A measurement's launches are a range of launches by time (of all processes, or of its own process in the launches
// by pid): the GPU work of every measurement's range is covered at once (cover_of_ranges), never pair by pair.

std::vector<Interval> gpu_work_of(const std::vector<Launched>& launches) {
  std::vector<Interval> out;
  out.reserve(launches.size());
  for (const Launched& l : launches) out.push_back(l.gpu);
  return out;
}

IndexRange launched_in(const std::vector<Launched>& launches, std::size_t first, std::size_t last, TimeNs start_ns,
                       TimeNs end_ns) {
  const auto begin = launches.begin() + std::ptrdiff_t(first), end = launches.begin() + std::ptrdiff_t(last);
  const auto by_time = [](const Launched& l, TimeNs t) { return l.launch_ns < t; };
  const auto lo = std::lower_bound(begin, end, start_ns, by_time);
  const auto hi = std::lower_bound(lo, end, end_ns, by_time);
  return {std::size_t(lo - launches.begin()), std::size_t(hi - launches.begin())};
}

void judge(MeasurementTruth& m, std::size_t count, const RangeCover& cover) {
  m.gpu_activity_count = count;
  if (count > 0) {
    m.gpu_first_start_ns = cover.first_start_ns;
    m.gpu_last_end_ns = cover.last_end_ns;
    m.gpu_busy_ns = cover.union_ns;
  }
}

}  // namespace

TimingTruth analyze_timing_truth(const Trace& trace) {
  TimingTruth out;
  if (trace.measurements().empty()) {
    out.findings.emplace_back("No timing measurements recorded in this trace.");
    return out;
  }
  const std::vector<Launched> launches = launches_by_time(trace);
  const bool by_flows = !launches.empty();
  const Activities activities = by_flows ? Activities{} : activities_by_start(trace);
  std::vector<std::int64_t> launch_pids;
  for (const Launched& l : launches)
    if (std::find(launch_pids.begin(), launch_pids.end(), l.pid) == launch_pids.end()) launch_pids.push_back(l.pid);
  std::vector<Launched> by_pid = launches;
  std::stable_sort(by_pid.begin(), by_pid.end(), [](const Launched& a, const Launched& b) { return a.pid < b.pid; });
  // Another process's launches are not this stopwatch's work, unless the measurement's pid launched nothing.
  std::vector<IndexRange> all_ranges, own_ranges;
  for (const Measurement& meas : trace.measurements()) {
    const bool same_pid_only =
        std::find(launch_pids.begin(), launch_pids.end(), meas.pid) != launch_pids.end() && launch_pids.size() > 1;
    if (!by_flows) {
      all_ranges.push_back({});
      own_ranges.push_back({});
    } else if (same_pid_only) {
      const auto pid_less = [](const Launched& l, std::int64_t pid) { return l.pid < pid; };
      const auto first = std::lower_bound(by_pid.begin(), by_pid.end(), meas.pid, pid_less);
      const auto last = std::upper_bound(first, by_pid.end(), meas.pid,
                                         [](std::int64_t pid, const Launched& l) { return pid < l.pid; });
      all_ranges.push_back({});
      own_ranges.push_back(launched_in(by_pid, std::size_t(first - by_pid.begin()), std::size_t(last - by_pid.begin()),
                                       meas.host_start_ns, meas.host_end_ns));
    } else {
      all_ranges.push_back(launched_in(launches, 0, launches.size(), meas.host_start_ns, meas.host_end_ns));
      own_ranges.push_back({});
    }
  }
  const std::vector<RangeCover> all_cover = cover_of_ranges(gpu_work_of(launches), all_ranges);
  const std::vector<RangeCover> own_cover = cover_of_ranges(gpu_work_of(by_pid), own_ranges);
  std::vector<Interval> work;
  for (std::size_t i = 0; i < trace.measurements().size(); ++i) {
    const Measurement& meas = trace.measurements()[i];
    MeasurementTruth m;
    m.name = meas.name;
    m.method = meas.method;
    m.reported_ns = meas.reported_ns;
    m.host_start_ns = meas.host_start_ns;
    m.host_end_ns = meas.host_end_ns;
    m.by_flows = by_flows;
    if (by_flows) {
      judge(m, all_ranges[i].last - all_ranges[i].first, all_cover[i]);
      if (own_ranges[i].last > own_ranges[i].first) judge(m, own_ranges[i].last - own_ranges[i].first, own_cover[i]);
    } else {
      work.clear();
      auto it = std::lower_bound(activities.by_start.begin(), activities.by_start.end(),
                                 meas.host_start_ns - activities.max_duration_ns,
                                 [](const Interval& iv, TimeNs t) { return iv.start_ns < t; });
      for (; it != activities.by_start.end() && it->start_ns <= meas.host_end_ns; ++it)
        if (it->end_ns >= meas.host_start_ns) add_gpu_work(m, *it, work);
      m.gpu_busy_ns = total_length_ns(merged(work));
    }
    const TimeNs end = m.gpu_activity_count > 0 ? std::max(meas.host_end_ns, m.gpu_last_end_ns) : meas.host_end_ns;
    m.truth_ns = end - meas.host_start_ns;
    m.error_ns = m.reported_ns - m.truth_ns;
    m.relative_error = safe_ratio(double(m.error_ns), double(m.truth_ns));
    m.verdict = verdict_for(m);
    out.measurements.push_back(std::move(m));
  }
  out.methods = method_errors(out.measurements);
  for (const MeasurementTruth& m : out.measurements) out.findings.push_back(m.verdict);
  return out;
}

}  // namespace gtv::analysis
