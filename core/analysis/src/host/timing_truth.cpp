#include "gtv/analysis/timing_truth.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "gtv/analysis/format.h"
#include "gtv/analysis/intervals.h"
#include "gtv/base/sorted_runs.h"

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

// GPU activities by start, for traces without launch links: a measurement's work is every activity that overlaps its
// host interval [a, b] (ends included). Those are the activities starting by b, less those that ended before a, so
// each measurement is answered from prefixes: their union (only its last segment grows as the prefix does), the
// running latest end, and the ends sorted.
struct Activities {
  std::vector<Interval> by_start;
  std::vector<TimeNs> latest_end;  // per prefix [0, i]: its latest end
  std::vector<TimeNs> ends;        // sorted
  // The union of each prefix: segment_of[i] the prefix [0, i]'s last segment (-1: none yet), grown_end[i] that
  // segment's end then; the segments' starts, final ends and lengths before each.
  std::vector<std::int64_t> segment_of;
  std::vector<TimeNs> grown_end;
  std::vector<TimeNs> segment_start, segment_end, length_before;

  // The prefix [0, count)'s union from `a` on.
  [[nodiscard]] TimeNs union_from(std::size_t count, TimeNs a) const {
    if (count == 0 || segment_of[count - 1] < 0) return 0;
    const auto last = std::size_t(segment_of[count - 1]);
    TimeNs out = std::max<TimeNs>(0, grown_end[count - 1] - std::max(a, segment_start[last]));
    const auto first = std::size_t(
        std::upper_bound(segment_end.begin(), segment_end.begin() + std::ptrdiff_t(last), a) - segment_end.begin());
    if (first < last) out += length_before[last] - length_before[first] - std::max<TimeNs>(0, a - segment_start[first]);
    return out;
  }
};

Activities activities_by_start(const Trace& trace) {
  Activities a;
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu()) continue;
    for (const Event& e : lane.events) {
      if (!is_gpu_activity(e.kind)) continue;
      a.by_start.push_back({e.start_ns, e.end_ns()});
      a.ends.push_back(e.end_ns());
    }
  }
  std::sort(a.by_start.begin(), a.by_start.end(),
            [](const Interval& x, const Interval& y) { return x.start_ns < y.start_ns; });
  sort_runs(a.ends);
  for (const Interval& iv : a.by_start) {
    a.latest_end.push_back(a.latest_end.empty() ? iv.end_ns : std::max(a.latest_end.back(), iv.end_ns));
    if (iv.end_ns > iv.start_ns) {
      if (!a.segment_start.empty() && iv.start_ns <= a.segment_end.back()) {
        a.segment_end.back() = std::max(a.segment_end.back(), iv.end_ns);
      } else {
        a.length_before.push_back(
            a.segment_start.empty() ? 0 : a.length_before.back() + (a.segment_end.back() - a.segment_start.back()));
        a.segment_start.push_back(iv.start_ns);
        a.segment_end.push_back(iv.end_ns);
      }
    }
    a.segment_of.push_back(std::int64_t(a.segment_start.size()) - 1);
    a.grown_end.push_back(a.segment_end.empty() ? 0 : a.segment_end.back());
  }
  a.length_before.push_back(
      a.segment_start.empty() ? 0 : a.length_before.back() + (a.segment_end.back() - a.segment_start.back()));
  return a;
}

// The activities that overlap [a, b] (a <= b): how many, their first start, last end and the length of their union.
void judge_overlapping(MeasurementTruth& m, const Activities& acts, TimeNs a, TimeNs b) {
  const std::vector<Interval>& v = acts.by_start;
  const auto by_start = [](const Interval& iv, TimeNs t) { return iv.start_ns < t; };
  const auto started_by_b = std::size_t(
      std::upper_bound(v.begin(), v.end(), b, [](TimeNs t, const Interval& iv) { return t < iv.start_ns; }) -
      v.begin());
  const auto started_before_a = std::size_t(std::lower_bound(v.begin(), v.end(), a, by_start) - v.begin());
  const auto ended_before_a = std::size_t(std::lower_bound(acts.ends.begin(), acts.ends.end(), a) - acts.ends.begin());
  m.gpu_activity_count = started_by_b - ended_before_a;
  if (m.gpu_activity_count == 0) return;
  // The first activity still running at a: the earliest start of those that began before it.
  const auto running =
      std::size_t(std::lower_bound(acts.latest_end.begin(), acts.latest_end.end(), a) - acts.latest_end.begin());
  const bool some_running = running < started_before_a;
  m.gpu_first_start_ns = v[some_running ? running : started_before_a].start_ns;
  m.gpu_last_end_ns = acts.latest_end[started_by_b - 1];
  m.gpu_busy_ns = (some_running ? a - v[running].start_ns : 0) + acts.union_from(started_by_b, a);
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
    } else if (meas.host_start_ns <= meas.host_end_ns) {
      judge_overlapping(m, activities, meas.host_start_ns, meas.host_end_ns);
    } else {
      // A backwards interval: what overlaps both its ends, one by one (the readers skip such measurements).
      work.clear();
      for (const Interval& iv : activities.by_start)
        if (iv.start_ns <= meas.host_end_ns && iv.end_ns >= meas.host_start_ns) add_gpu_work(m, iv, work);
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
