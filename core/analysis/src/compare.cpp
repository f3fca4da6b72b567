#include "gtv/analysis/compare.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>

#include "gtv/analysis/concurrency.h"
#include "gtv/analysis/host_blocking.h"
#include "gtv/analysis/intervals.h"
#include "gtv/analysis/kernel_stats.h"
#include "gtv/analysis/region.h"
#include "gtv/analysis/timing_truth.h"

namespace gtv::analysis {
namespace {

std::vector<KernelDiff> kernel_diffs(const KernelStats& a, const KernelStats& b) {
  std::map<std::string, KernelDiff> by_full;  // joined by full name: the same kernel in both runs
  for (const KernelStat& k : a.kernels) {
    KernelDiff& d = by_full[k.full_name];
    d.name = k.name;
    d.full_name = k.full_name;
    d.count_a = k.count;
    d.total_a_ns = k.total_ns;
  }
  for (const KernelStat& k : b.kernels) {
    KernelDiff& d = by_full[k.full_name];
    if (d.name.empty()) d.name = k.name;
    d.full_name = k.full_name;
    d.count_b = k.count;
    d.total_b_ns = k.total_ns;
  }
  std::vector<KernelDiff> out;
  for (auto& [full, d] : by_full) {
    d.delta_ns = d.total_b_ns - d.total_a_ns;
    out.push_back(std::move(d));
  }
  std::stable_sort(out.begin(), out.end(), [](const KernelDiff& x, const KernelDiff& y) {
    return std::abs(x.delta_ns) > std::abs(y.delta_ns);
  });
  return out;
}

// What the speedup is computed on.
struct Basis {
  CompareBasis kind = CompareBasis::WholeTrace;
  std::string what;  // "timed loop", "timed windows", ...
  std::string text;  // the basis in words
  TimeNs a_ns = 0;
  TimeNs b_ns = 0;
};

struct NamedTruth {
  TimeNs total_ns = 0;
  std::size_t intervals = 0;
};

// Per measurement name, the truth of the work it timed. Several methods timing one interval share it (the
// largest truth covers them all); distinct intervals of one name add up.
std::map<std::string, NamedTruth> truth_by_name(const TimingTruth& timing) {
  std::map<std::pair<std::string, TimeNs>, TimeNs> by_interval;
  for (const MeasurementTruth& m : timing.measurements) {
    TimeNs& t = by_interval[{m.name, m.host_start_ns}];
    t = std::max(t, m.truth_ns);
  }
  std::map<std::string, NamedTruth> out;
  for (const auto& [key, truth_ns] : by_interval) {
    NamedTruth& n = out[key.first];
    n.total_ns += truth_ns;
    ++n.intervals;
  }
  return out;
}

std::string names_in_words(const std::vector<std::string>& names) {
  if (names.size() > 3) return std::to_string(names.size()) + " shared measurements";
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

// Measurements of the same name timing the same number of intervals measured the same work in both runs.
std::optional<Basis> shared_measurements(const TimingTruth& ta, const TimingTruth& tb) {
  const auto a = truth_by_name(ta), b = truth_by_name(tb);
  Basis basis{CompareBasis::SharedMeasurements, {}, "the truth of the measurements both traces share", 0, 0};
  std::vector<std::string> names;
  for (const auto& [name, na] : a) {
    const auto it = b.find(name);
    if (it == b.end() || it->second.intervals != na.intervals || na.total_ns <= 0 || it->second.total_ns <= 0) continue;
    names.push_back(name);
    basis.a_ns += na.total_ns;
    basis.b_ns += it->second.total_ns;
  }
  if (names.empty()) return std::nullopt;
  basis.what = names_in_words(names);
  return basis;
}

std::optional<Basis> timed_windows(const Trace& a, const TimingTruth& ta, const Trace& b, const TimingTruth& tb) {
  if (ta.measurements.empty() || tb.measurements.empty()) return std::nullopt;
  const Region ra = region_of_interest(a, ta), rb = region_of_interest(b, tb);
  if (ra.length_ns() <= 0 || rb.length_ns() <= 0) return std::nullopt;
  return Basis{CompareBasis::TimedWindows, "timed windows",
               "each trace's timed measurements, first host start to the end of their GPU work, as the traces "
               "have no measurement in common",
               ra.length_ns(), rb.length_ns()};
}

std::optional<Basis> steady_parts(const Trace& a, const Trace& b) {
  const auto sa = steady_part(a), sb = steady_part(b);
  if (!sa || !sb || sa->length_ns() <= 0 || sb->length_ns() <= 0) return std::nullopt;
  return Basis{CompareBasis::SteadyParts, "steady parts",
               "the steady parts, first kernel after warm-up to the end of the GPU work, as the traces do not both "
               "have timed measurements",
               sa->length_ns(), sb->length_ns()};
}

Basis choose_basis(const Trace& a, const Trace& b, const RunFigures& fa, const RunFigures& fb) {
  const TimingTruth ta = analyze_timing_truth(a), tb = analyze_timing_truth(b);
  if (auto basis = shared_measurements(ta, tb)) return *basis;
  if (auto basis = timed_windows(a, ta, b, tb)) return *basis;
  if (auto basis = steady_parts(a, b)) return *basis;
  return Basis{CompareBasis::WholeTrace, "whole trace",
               "whole-trace wall time, as the traces do not both have timed measurements or kernels", fa.wall_ns,
               fb.wall_ns};
}

std::string_view on_what(CompareBasis basis) {
  switch (basis) {
    case CompareBasis::SharedMeasurements:
      return "on the measured work";
    case CompareBasis::TimedWindows:
      return "on their timed windows";
    case CompareBasis::SteadyParts:
      return "on their steady parts";
    case CompareBasis::WholeTrace:
      return "over the whole trace";
  }
  return {};
}

// "B is 1.13x faster than A", "B is 1.25x slower than A", or the same time when both ratios round to 1.00.
std::string ratio_words(const std::string& a, const std::string& b, double speedup) {
  if (fixed(speedup, 2) == "1.00" && fixed(1.0 / speedup, 2) == "1.00") return a + " and " + b + " take the same time";
  if (speedup > 1) return b + " is " + fixed(speedup, 2) + "x faster than " + a;
  return b + " is " + fixed(1.0 / speedup, 2) + "x slower than " + a;
}

std::string verdict_for(const Comparison& c) {
  if (c.a.wall_ns <= 0 && c.b.wall_ns <= 0)
    return "Cannot compare: neither " + c.a.label + " nor " + c.b.label +
           " spans any time (no events, or only instants).";
  if (c.a.wall_ns <= 0 || c.b.wall_ns <= 0)
    return "Cannot compare: " + (c.a.wall_ns <= 0 ? c.a.label : c.b.label) +
           " spans no time (no events, or only instants).";
  const std::string what = c.basis == CompareBasis::SharedMeasurements ? c.basis_what + ": " : "";
  return ratio_words(c.a.label, c.b.label, c.speedup) + " " + std::string(on_what(c.basis)) + " (" + what +
         format_duration(c.basis_a_ns) + " -> " + format_duration(c.basis_b_ns) + "; basis: " + c.basis_text + ").";
}

// Whole-trace figures, everything recorded: a secondary line beside the basis.
std::string wall_line_for(const Comparison& c) {
  if (c.a.wall_ns <= 0 || c.b.wall_ns <= 0) return {};
  std::string line = "Whole trace (everything recorded): " + format_duration(c.a.wall_ns) + " -> " +
                     format_duration(c.b.wall_ns) + " wall (" + fixed(c.wall_speedup, 2) + "x)";
  if (c.a.gpu_busy_ns > 0 && c.b.gpu_busy_ns > 0)
    line += "; 2+ GPUs overlapped " + format_duration(c.a.overlap_ns) + " -> " + format_duration(c.b.overlap_ns) +
            "; effective parallelism " + fixed(c.a.effective_parallelism, 2) + " -> " +
            fixed(c.b.effective_parallelism, 2);
  return line + ".";
}

}  // namespace

std::string_view compare_basis_key(CompareBasis basis) {
  switch (basis) {
    case CompareBasis::SharedMeasurements:
      return "shared_measurements";
    case CompareBasis::TimedWindows:
      return "timed_windows";
    case CompareBasis::SteadyParts:
      return "steady_parts";
    case CompareBasis::WholeTrace:
      return "whole_trace";
  }
  return {};
}

std::optional<SteadyPart> steady_part(const Trace& trace) {
  TimeNs warmup_end_ns = std::numeric_limits<TimeNs>::min();
  for (const Range& r : trace.ranges())
    if (r.kind == RangeKind::WarmUp) warmup_end_ns = std::max(warmup_end_ns, r.end_ns);
  std::optional<TimeNs> first_ns;
  TimeNs last_end_ns = std::numeric_limits<TimeNs>::min();
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu()) continue;
    for (const Event& e : lane.events) {
      if (!is_gpu_activity(e.kind)) continue;
      last_end_ns = std::max(last_end_ns, e.end_ns());
      if (e.kind == EventKind::Kernel && e.start_ns >= warmup_end_ns && (!first_ns || e.start_ns < *first_ns))
        first_ns = e.start_ns;
    }
  }
  if (!first_ns) return std::nullopt;
  return SteadyPart{*first_ns, last_end_ns};
}

RunFigures run_figures(const Trace& trace, std::string label) {
  RunFigures f;
  f.label = std::move(label);
  f.wall_ns = trace.end_ns() - trace.start_ns();
  const Concurrency c = analyze_concurrency(trace);
  f.gpu_busy_ns = c.any_busy_ns;
  f.gpu_busy_sum_ns = c.sum_busy_ns;
  f.overlap_ns = c.overlap_ns;
  f.effective_parallelism = c.effective_parallelism;
  f.gpu_count = c.gpu_count;
  f.host_blocked_ns = analyze_host_blocking(trace).total_blocked_ns;
  return f;
}

Comparison compare(const Trace& a, const Trace& b, std::string label_a, std::string label_b) {
  Comparison c;
  c.a = run_figures(a, std::move(label_a));
  c.b = run_figures(b, std::move(label_b));
  const KernelStats ka = analyze_kernels(a), kb = analyze_kernels(b);
  c.a.kernel_ns = ka.total_kernel_ns;
  c.a.kernel_count = ka.kernel_count;
  c.b.kernel_ns = kb.total_kernel_ns;
  c.b.kernel_count = kb.kernel_count;
  const Basis basis = choose_basis(a, b, c.a, c.b);
  c.basis = basis.kind;
  c.basis_what = basis.what;
  c.basis_text = basis.text;
  c.basis_a_ns = basis.a_ns;
  c.basis_b_ns = basis.b_ns;
  c.speedup = basis.b_ns > 0 ? double(basis.a_ns) / double(basis.b_ns) : 0.0;
  c.wall_speedup = c.b.wall_ns > 0 ? double(c.a.wall_ns) / double(c.b.wall_ns) : 0.0;
  c.kernels = kernel_diffs(ka, kb);
  c.verdict = verdict_for(c);
  c.wall_line = wall_line_for(c);
  return c;
}

}  // namespace gtv::analysis
