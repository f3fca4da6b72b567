#include "gpu_checks.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <vector>

#include "gtv/analysis/intervals.h"
#include "gtv/experiments/runner.h"

namespace gtv::exp::gpu_test {

using analysis::Interval;

Range find_range(const Trace& trace, RangeKind kind, std::string_view name) {
  for (const Range& r : trace.ranges())
    if (r.kind == kind && r.name == name) return r;
  ADD_FAILURE() << "no range '" << name << "'";
  return {};
}

const Measurement* find_measurement(const Trace& trace, std::string_view name, MeasurementMethod method) {
  for (const Measurement& m : trace.measurements())
    if (m.name == name && m.method == method) return &m;
  return nullptr;
}

int kernels_on_device(const Trace& trace, int device) {
  int count = 0;
  for (const Lane& lane : trace.lanes())
    if (lane.is_gpu() && lane.device() == device)
      count += static_cast<int>(std::count_if(lane.events.begin(), lane.events.end(),
                                              [](const Event& e) { return e.kind == EventKind::Kernel; }));
  return count;
}

namespace {

std::map<std::int64_t, std::vector<Interval>> busy_by_device(const Trace& trace, TimeNs start_ns, TimeNs end_ns) {
  std::map<std::int64_t, std::vector<Interval>> busy;
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu()) continue;
    for (const Event& e : lane.events) {
      if (!is_gpu_activity(e.kind)) continue;
      const Interval clipped{std::max(e.start_ns, start_ns), std::min(e.end_ns(), end_ns)};
      if (clipped.end_ns > clipped.start_ns) busy[lane.device()].push_back(clipped);
    }
  }
  for (auto& [device, intervals] : busy) analysis::merge_in_place(intervals);
  return busy;
}

}  // namespace

double gpu_concurrency(const Trace& trace, TimeNs start_ns, TimeNs end_ns) {
  TimeNs sum_ns = 0;
  std::vector<Interval> all;
  for (const auto& [device, intervals] : busy_by_device(trace, start_ns, end_ns)) {
    sum_ns += analysis::total_length_ns(intervals);
    all.insert(all.end(), intervals.begin(), intervals.end());
  }
  analysis::merge_in_place(all);
  const TimeNs union_ns = analysis::total_length_ns(all);
  return union_ns == 0 ? 0.0 : static_cast<double>(sum_ns) / static_cast<double>(union_ns);
}

TimeNs gpu_span_ns(const Trace& trace, TimeNs start_ns, TimeNs end_ns) {
  TimeNs first = end_ns;
  TimeNs last = start_ns;
  for (const auto& [device, intervals] : busy_by_device(trace, start_ns, end_ns)) {
    if (intervals.empty()) continue;
    first = std::min(first, intervals.front().start_ns);
    last = std::max(last, intervals.back().end_ns);
  }
  return last > first ? last - first : 0;
}

int gpu_count_in_child() {
  int fds[2];
  if (::pipe(fds) != 0) return 0;
  const pid_t pid = ::fork();
  if (pid == 0) {
    const char count = static_cast<char>(std::min(cuda_device_count(), 127));
    (void)!::write(fds[1], &count, 1);
    ::_exit(0);
  }
  ::close(fds[1]);
  char count = 0;
  const bool read = pid > 0 && ::read(fds[0], &count, 1) == 1;
  ::close(fds[0]);
  if (pid > 0) ::waitpid(pid, nullptr, 0);
  return read ? count : 0;
}

}  // namespace gtv::exp::gpu_test
