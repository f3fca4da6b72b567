#include "gtv/analysis/compare.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "gtv/analysis/concurrency.h"
#include "gtv/analysis/host_blocking.h"
#include "gtv/analysis/intervals.h"
#include "gtv/analysis/kernel_stats.h"
#include "gtv/analysis/region.h"
#include "gtv/analysis/report.h"
#include "gtv/analysis/timing_truth.h"

namespace gtv::analysis {
namespace {

// The same kernels, but this many more or fewer of them in one basis (per iteration when compared per iteration),
// is different work too: the seed's loops run the same kernels in every iteration, 1-2% apart at most from warm-up
// iterations and allocator calls.
constexpr double kDifferentKernelCount = 0.05;

// What the comparison needs of one run: from its Report when the caller has one, else computed here once.
struct RunParts {
  const Trace& trace;
  const Concurrency& concurrency;  // over the whole trace
  TimeNs host_blocked_ns = 0;
  const TimingTruth& timing;
  const KernelStats& kernels;
  std::optional<SteadyPart> steady;
};

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
  std::vector<Interval> a_spans;  // where the compared time lies, to count the iterations in it
  std::vector<Interval> b_spans;
};

struct NamedTruth {
  TimeNs total_ns = 0;
  std::size_t intervals = 0;
  std::vector<Interval> spans;  // host start to the end of the measured work, per interval
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
    n.spans.push_back({key.second, key.second + truth_ns});
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

// Iteration ranges that overlap the spans, counted per host thread; the most of any thread. Threads that each run
// the loop (one model per thread) run its iterations side by side, so their counts do not add up. Overlap, not
// containment: a steady part starts at the first iteration's first kernel, after the iteration's range began.
// PyTorch marks iterations with annotations at a thread's top level: "ProfilerStep#N" (profiler steps), else
// "iteration" (record_function), else a range the loop repeats ("train_step" each step). Per thread, the spans of
// the first of these any thread has; of repeated ranges, the name a thread repeats most, twice at least.
std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Interval>> annotated_iterations(const Trace& trace) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Interval>> out;
  for (const std::string_view prefix : {std::string_view("ProfilerStep#"), std::string_view("iteration")}) {
    for (const Lane& lane : trace.lanes()) {
      if (lane.is_gpu() || lane.by_depth.empty()) continue;
      for (const std::uint32_t i : lane.by_depth[0]) {
        const Event& e = lane.events[i];
        if (e.kind == EventKind::Annotation && trace.name(e).substr(0, prefix.size()) == prefix)
          out[{lane.key.pid, lane.key.tid}].push_back({e.start_ns, e.end_ns()});
      }
    }
    if (!out.empty()) return out;
  }
  for (const Lane& lane : trace.lanes()) {
    if (lane.is_gpu() || lane.by_depth.empty()) continue;
    std::map<StringId, std::vector<Interval>> by_name;
    for (const std::uint32_t i : lane.by_depth[0]) {
      const Event& e = lane.events[i];
      if (e.kind == EventKind::Annotation) by_name[e.name].push_back({e.start_ns, e.end_ns()});
    }
    const std::vector<Interval>* most = nullptr;
    for (const auto& [name, spans] : by_name)
      if (spans.size() >= 2 && (!most || spans.size() > most->size())) most = &spans;
    if (most) out[{lane.key.pid, lane.key.tid}] = *most;
  }
  return out;
}

std::size_t iterations_in(const Trace& trace, std::vector<Interval> spans) {
  spans = merged(std::move(spans));
  const auto overlaps = [&](TimeNs start_ns, TimeNs end_ns) {
    const auto it = std::upper_bound(spans.begin(), spans.end(), start_ns,
                                     [](TimeNs t, const Interval& iv) { return t < iv.end_ns; });
    return it != spans.end() && it->start_ns < std::max(end_ns, start_ns + 1);
  };
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> per_thread;
  bool ranges = false;
  for (const Range& r : trace.ranges()) {
    if (r.kind != RangeKind::Iteration) continue;
    ranges = true;
    if (overlaps(r.start_ns, r.end_ns)) ++per_thread[{r.pid, r.tid}];
  }
  if (!ranges)
    for (const auto& [thread, steps] : annotated_iterations(trace))
      for (const Interval& s : steps)
        if (overlaps(s.start_ns, s.end_ns)) ++per_thread[thread];
  std::size_t most = 0;
  for (const auto& [thread, count] : per_thread) most = std::max(most, count);
  return most;
}

// Measurements of the same name timing the same number of intervals measured the same work in both runs; so do
// measurements of one name timing different numbers of intervals (a loop run once, the same loop run five times)
// when both traces record the iterations inside them, which the comparison is then made per.
std::optional<Basis> shared_measurements(const Trace& ta_trace, const TimingTruth& ta, const Trace& tb_trace,
                                         const TimingTruth& tb) {
  const auto a = truth_by_name(ta), b = truth_by_name(tb);
  Basis basis{CompareBasis::SharedMeasurements, {}, "the truth of the measurements both traces share", 0, 0, {}, {}};
  std::vector<std::string> names;
  for (const auto& [name, na] : a) {
    const auto it = b.find(name);
    if (it == b.end() || na.total_ns <= 0 || it->second.total_ns <= 0) continue;
    if (it->second.intervals != na.intervals &&
        (iterations_in(ta_trace, na.spans) == 0 || iterations_in(tb_trace, it->second.spans) == 0))
      continue;
    names.push_back(name);
    basis.a_ns += na.total_ns;
    basis.b_ns += it->second.total_ns;
    basis.a_spans.insert(basis.a_spans.end(), na.spans.begin(), na.spans.end());
    basis.b_spans.insert(basis.b_spans.end(), it->second.spans.begin(), it->second.spans.end());
  }
  if (names.empty()) return std::nullopt;
  basis.what = names_in_words(names);
  return basis;
}

std::optional<Basis> timed_windows(const Trace& a, const TimingTruth& ta, const Trace& b, const TimingTruth& tb) {
  if (ta.measurements.empty() || tb.measurements.empty()) return std::nullopt;
  const Region ra = region_of_interest(a, ta), rb = region_of_interest(b, tb);
  if (ra.length_ns() <= 0 || rb.length_ns() <= 0) return std::nullopt;
  return Basis{CompareBasis::TimedWindows,
               "timed windows",
               "each trace's timed measurements, first host start to the end of their GPU work, as the traces "
               "have no measurement in common",
               ra.length_ns(),
               rb.length_ns(),
               {{ra.start_ns, ra.end_ns}},
               {{rb.start_ns, rb.end_ns}}};
}

std::optional<Basis> steady_parts(const std::optional<SteadyPart>& sa, const std::optional<SteadyPart>& sb) {
  if (!sa || !sb || sa->length_ns() <= 0 || sb->length_ns() <= 0) return std::nullopt;
  return Basis{CompareBasis::SteadyParts,
               "steady parts",
               "the steady parts, first kernel after warm-up to the end of the GPU work, as the traces do not both "
               "have timed measurements",
               sa->length_ns(),
               sb->length_ns(),
               {{sa->start_ns, sa->end_ns}},
               {{sb->start_ns, sb->end_ns}}};
}

Basis choose_basis(const RunParts& pa, const RunParts& pb, const RunFigures& fa, const RunFigures& fb) {
  const Trace& a = pa.trace;
  const Trace& b = pb.trace;
  if (auto basis = shared_measurements(a, pa.timing, b, pb.timing)) return *basis;
  if (auto basis = timed_windows(a, pa.timing, b, pb.timing)) return *basis;
  if (auto basis = steady_parts(pa.steady, pb.steady)) return *basis;
  return Basis{CompareBasis::WholeTrace,
               "whole trace",
               "whole-trace wall time, as the traces do not both have timed measurements or kernels",
               fa.wall_ns,
               fb.wall_ns,
               {{a.start_ns(), a.end_ns()}},
               {{b.start_ns(), b.end_ns()}}};
}

// Kernels that start inside the spans, on every GPU.
std::size_t kernels_in(const Trace& trace, std::vector<Interval> spans) {
  spans = merged(std::move(spans));
  std::size_t count = 0;
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu()) continue;
    for (const Event& e : lane.events) {
      if (e.kind != EventKind::Kernel) continue;
      const auto it = std::upper_bound(spans.begin(), spans.end(), e.start_ns,
                                       [](TimeNs t, const Interval& iv) { return t < iv.end_ns; });
      if (it != spans.end() && it->start_ns <= e.start_ns) ++count;
    }
  }
  return count;
}

// Kernel counts within kDifferentKernelCount of each other; false when either is unknown (0).
bool same_kernel_count(double a, double b) { return a > 0 && b > 0 && std::abs(b / a - 1.0) <= kDifferentKernelCount; }

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

std::string capitalized(std::string_view text) {
  std::string out(text);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

// Why the work differs, for the headline: "B ran 2,250 kernel instances in its basis, A 450 (5.00x)", or the
// kernels only one ran.
std::string work_difference(const Comparison& c);

// The headline: the speedup on its basis; per kernel instance when the work differs; none for two ranks of one run.
std::string verdict_for(const Comparison& c, const std::optional<std::string>& same_run) {
  if (c.a.wall_ns <= 0 && c.b.wall_ns <= 0)
    return "Cannot compare: neither " + c.a.label + " nor " + c.b.label +
           " spans any time (no events, or only instants).";
  if (c.a.wall_ns <= 0 || c.b.wall_ns <= 0)
    return "Cannot compare: " + (c.a.wall_ns <= 0 ? c.a.label : c.b.label) +
           " spans no time (no events, or only instants).";
  const std::string what = c.basis == CompareBasis::SharedMeasurements ? c.basis_what + ": " : "";
  const std::string basis = "; basis: " + c.basis_text + ").";
  if (same_run)
    return *same_run + " " + capitalized(on_what(c.basis)) + ": " + c.a.label + " " + format_duration(c.basis_a_ns) +
           ", " + c.b.label + " " + format_duration(c.basis_b_ns) + " (" + what.substr(0, what.size() - 2) +
           (what.empty() ? "" : "; ") + "basis: " + c.basis_text + ").";
  if (c.per_kernel) {
    const auto per_a = c.basis_a_ns / static_cast<TimeNs>(c.basis_kernels_a);
    const auto per_b = c.basis_b_ns / static_cast<TimeNs>(c.basis_kernels_b);
    return "The work differs, so the totals are no speedup: " + work_difference(c) + ". Per kernel instance, " +
           ratio_words(c.a.label, c.b.label, c.speedup) + " " + std::string(on_what(c.basis)) + " (" + what +
           format_duration(c.basis_a_ns) + " for " + grouped_count(c.basis_kernels_a) +
           (c.basis_kernels_a == 1 ? " kernel instance -> " : " kernel instances -> ") + format_duration(c.basis_b_ns) +
           " for " + grouped_count(c.basis_kernels_b) + "; per instance " + format_duration(per_a) + " -> " +
           format_duration(per_b) + ": " + fixed(c.speedup, 2) + "x" + basis;
  }
  if (!c.per_iteration)
    return ratio_words(c.a.label, c.b.label, c.speedup) + " " + std::string(on_what(c.basis)) + " (" + what +
           format_duration(c.basis_a_ns) + " -> " + format_duration(c.basis_b_ns) + "; basis: " + c.basis_text + ").";
  const auto per_a = c.basis_a_ns / static_cast<TimeNs>(c.iterations_a);
  const auto per_b = c.basis_b_ns / static_cast<TimeNs>(c.iterations_b);
  return ratio_words(c.a.label, c.b.label, c.speedup) + " per iteration " + std::string(on_what(c.basis)) + " (" +
         what + std::to_string(c.iterations_a) + (c.iterations_a == 1 ? " iteration in " : " iterations in ") +
         format_duration(c.basis_a_ns) + " -> " + std::to_string(c.iterations_b) + " in " +
         format_duration(c.basis_b_ns) + "; per iteration " + format_duration(per_a) + " -> " + format_duration(per_b) +
         ": " + fixed(c.speedup, 2) +
         "x; compared per iteration as the runs ran different iteration counts; basis: " + c.basis_text + ").";
}

// Kernel time in kernels the other run never ran, as a share of the run's kernel time.
void only_in_one(Comparison& c, std::size_t& kernels_only_a, std::size_t& kernels_only_b) {
  kernels_only_a = kernels_only_b = 0;
  TimeNs only_a_ns = 0, only_b_ns = 0, total_a_ns = 0, total_b_ns = 0;
  for (const KernelDiff& k : c.kernels) {
    total_a_ns += k.total_a_ns;
    total_b_ns += k.total_b_ns;
    if (k.count_b == 0 && k.count_a > 0) {
      only_a_ns += k.total_a_ns;
      ++kernels_only_a;
    }
    if (k.count_a == 0 && k.count_b > 0) {
      only_b_ns += k.total_b_ns;
      ++kernels_only_b;
    }
  }
  c.only_a_share = safe_ratio(double(only_a_ns), double(total_a_ns));
  c.only_b_share = safe_ratio(double(only_b_ns), double(total_b_ns));
}

// Kernels that make up more than this share of one run's kernel time and that the other run never ran make the two
// runs different work: a speedup between them is not a speedup of one piece of work.
constexpr double kDifferentWorkShare = 0.01;

// Kernel instances per unit compared: per iteration when compared per iteration, else per basis.
double kernels_per_unit(std::size_t kernels, std::size_t iterations, bool per_iteration) {
  return per_iteration ? double(kernels) / double(iterations) : double(kernels);
}

// "B ran 96.0 kernels per iteration in its basis, A 48.0 (2.00x)" when the counts differ by kDifferentKernelCount.
std::string kernel_count_difference(const Comparison& c, bool per_iteration) {
  if (c.basis_kernels_a == 0 || c.basis_kernels_b == 0) return {};
  const double per_a = kernels_per_unit(c.basis_kernels_a, c.iterations_a, per_iteration);
  const double per_b = kernels_per_unit(c.basis_kernels_b, c.iterations_b, per_iteration);
  if (same_kernel_count(per_a, per_b)) return {};
  const auto count = [&](double n) {
    return per_iteration ? fixed(n, 1) : grouped_count(std::size_t(std::llround(n)));
  };
  return c.b.label + " ran " + count(per_b) + " kernel instances" + (per_iteration ? " per iteration" : "") +
         " in its basis, " + c.a.label + " " + count(per_a) + " (" + fixed(per_b / per_a, 2) + "x)";
}

std::string kernels_only_in_one(const Comparison& c, std::size_t only_a, std::size_t only_b) {
  const bool a_differs = c.only_a_share > kDifferentWorkShare, b_differs = c.only_b_share > kDifferentWorkShare;
  std::string line;
  if (a_differs)
    line += percent(c.only_a_share) + " of " + c.a.label + "'s kernel time is in " + std::to_string(only_a) +
            " kernel(s) " + c.b.label + " never ran";
  if (a_differs && b_differs) line += ", and ";
  if (b_differs)
    line += percent(c.only_b_share) + " of " + c.b.label + "'s kernel time is in " + std::to_string(only_b) +
            " kernel(s) " + c.a.label + " never ran";
  return line;
}

std::string work_difference(const Comparison& c) {
  std::string counts = kernel_count_difference(c, false);
  if (!counts.empty()) return counts;
  return "they ran different kernels (below)";
}

std::vector<std::string> warnings_for(Comparison& c, std::size_t only_a, std::size_t only_b) {
  std::vector<std::string> out;
  if (std::string names = kernels_only_in_one(c, only_a, only_b); !names.empty())
    out.push_back("The work differs: " + names +
                  (c.per_kernel ? ": even per kernel instance, the comparison is of different work."
                                : ": the speedup compares different work, not the same work done faster or slower."));
  if (c.iterations_a > 0 && c.iterations_b > 0 && c.iterations_a != c.iterations_b && !c.per_iteration && !c.per_kernel)
    out.push_back(c.a.label + " and " + c.b.label + " ran " + std::to_string(c.iterations_a) + " and " +
                  std::to_string(c.iterations_b) + " iterations but as many kernels in their bases (" +
                  std::to_string(c.basis_kernels_a) + " and " + std::to_string(c.basis_kernels_b) +
                  "): an iteration is different work in each, so the totals are compared, not iterations.");
  if ((c.iterations_a == 0) != (c.iterations_b == 0) && !c.per_kernel) {
    const bool a_known = c.iterations_a > 0;
    out.push_back((a_known ? c.a.label : c.b.label) + " records " +
                  std::to_string(a_known ? c.iterations_a : c.iterations_b) + " iterations in its basis and " +
                  (a_known ? c.b.label : c.a.label) +
                  " records none: the speedup compares totals, which is fair only if both ran as many iterations.");
  }
  return out;
}

// Whole-trace figures, everything recorded: a secondary line beside the basis.
std::string wall_line_for(const Comparison& c) {
  if (c.a.wall_ns <= 0 || c.b.wall_ns <= 0) return {};
  std::string line = "Whole trace (everything recorded): " + format_duration(c.a.wall_ns) + " -> " +
                     format_duration(c.b.wall_ns) + " wall (" + fixed(c.wall_speedup, 2) + "x)";
  const bool one_gpu_each = c.a.gpu_streams.size() == 1 && c.b.gpu_streams.size() == 1 &&
                            c.a.gpu_streams[0].device == c.b.gpu_streams[0].device;
  if (one_gpu_each)
    // Overlap across GPUs means nothing with one GPU: what overlapped there is its streams.
    line += "; one GPU in each (GPU " + std::to_string(c.a.gpu_streams[0].device) + "), its stream parallelism " +
            fixed(c.a.gpu_streams[0].stream_parallelism, 2) + " -> " + fixed(c.b.gpu_streams[0].stream_parallelism, 2);
  else if (c.a.gpu_busy_ns > 0 && c.b.gpu_busy_ns > 0)
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

namespace {

RunFigures figures_of(const RunParts& p, std::string label) {
  RunFigures f;
  f.label = std::move(label);
  f.wall_ns = p.trace.end_ns() - p.trace.start_ns();
  const Concurrency& c = p.concurrency;
  f.gpu_busy_ns = c.any_busy_ns;
  f.gpu_busy_sum_ns = c.sum_busy_ns;
  f.overlap_ns = c.overlap_ns;
  f.effective_parallelism = c.effective_parallelism;
  f.gpu_count = c.gpu_count;
  f.host_blocked_ns = p.host_blocked_ns;
  for (const GpuStreamOverlap& g : c.streams.gpus)
    f.gpu_streams.push_back({g.device, g.stream_count, g.busy_ns, g.multi_stream_ns, g.stream_parallelism});
  f.kernel_ns = p.kernels.total_kernel_ns;
  f.kernel_count = p.kernels.kernel_count;
  return f;
}

Comparison compare_parts(const RunParts& a, const RunParts& b, std::string label_a, std::string label_b) {
  Comparison c;
  std::optional<std::string> same_run = same_run_warning(a.trace, b.trace, label_a, label_b);
  c.a = figures_of(a, std::move(label_a));
  c.b = figures_of(b, std::move(label_b));
  const Basis basis = choose_basis(a, b, c.a, c.b);
  c.basis = basis.kind;
  c.basis_what = basis.what;
  c.basis_text = basis.text;
  c.basis_a_ns = basis.a_ns;
  c.basis_b_ns = basis.b_ns;
  c.iterations_a = iterations_in(a.trace, basis.a_spans);
  c.iterations_b = iterations_in(b.trace, basis.b_spans);
  c.basis_kernels_a = kernels_in(a.trace, basis.a_spans);
  c.basis_kernels_b = kernels_in(b.trace, basis.b_spans);
  // Different iteration counts are compared per iteration, unless both ran as many kernels in all: then an
  // "iteration" meant different work in each (baseline's 30 iterations of one model each against sequential's 10
  // of three models: 450 kernels in both), and the totals are the same work.
  const bool iterations_differ = c.iterations_a > 0 && c.iterations_b > 0 && c.iterations_a != c.iterations_b;
  c.per_iteration = iterations_differ && !same_kernel_count(c.basis_kernels_a, c.basis_kernels_b);
  c.kernels = kernel_diffs(a.kernels, b.kernels);
  std::size_t only_a = 0, only_b = 0;
  only_in_one(c, only_a, only_b);
  // Other kernels, or more kernel instances in each unit compared (a loop run 5 times against once, with no
  // iterations recorded): the totals are different work, and only a kernel instance is the same unit in both.
  c.per_kernel =
      c.basis_kernels_a > 0 && c.basis_kernels_b > 0 &&
      (!kernel_count_difference(c, c.per_iteration).empty() || !kernels_only_in_one(c, only_a, only_b).empty());
  if (c.per_kernel) c.per_iteration = false;
  double scale = c.per_iteration ? double(c.iterations_b) / double(c.iterations_a) : 1.0;
  if (c.per_kernel) scale = double(c.basis_kernels_b) / double(c.basis_kernels_a);
  c.speedup = basis.b_ns > 0 ? scale * double(basis.a_ns) / double(basis.b_ns) : 0.0;
  c.wall_speedup = c.b.wall_ns > 0 ? double(c.a.wall_ns) / double(c.b.wall_ns) : 0.0;
  c.same_run = same_run.has_value();
  c.warnings = warnings_for(c, only_a, only_b);
  c.verdict = verdict_for(c, same_run);
  c.wall_line = wall_line_for(c);
  return c;
}

// A run's parts computed from its trace alone; the values the parts refer to live here.
struct OwnParts {
  explicit OwnParts(const Trace& trace)
      : concurrency(analyze_concurrency(trace)),
        timing(analyze_timing_truth(trace)),
        kernels(analyze_kernels(trace)),
        parts{trace, concurrency, analyze_host_blocking(trace).total_blocked_ns, timing, kernels, steady_part(trace)} {}
  Concurrency concurrency;
  TimingTruth timing;
  KernelStats kernels;
  RunParts parts;
};

RunParts parts_of(const Trace& trace, const Report& report) {
  return RunParts{trace,         report.concurrency, report.blocking.total_blocked_ns,
                  report.timing, report.kernels,     report.steady};
}

}  // namespace

RunFigures run_figures(const Trace& trace, const Report& report, std::string label) {
  return figures_of(parts_of(trace, report), std::move(label));
}

Comparison compare(const Trace& a, const Trace& b, std::string label_a, std::string label_b) {
  const OwnParts own_a(a);
  const OwnParts own_b(b);
  return compare_parts(own_a.parts, own_b.parts, std::move(label_a), std::move(label_b));
}

Comparison compare(const Trace& a, const Report& report_a, const Trace& b, const Report& report_b, std::string label_a,
                   std::string label_b) {
  return compare_parts(parts_of(a, report_a), parts_of(b, report_b), std::move(label_a), std::move(label_b));
}

}  // namespace gtv::analysis
