#pragma once
// Two traces (or two scenarios) side by side: the speedup of the work both measured (the measurements they
// share, by the truth gtv computed for each; else their timed windows; else their aligned steady parts; else the
// whole trace, each basis said in words), per iteration when the runs ran different iteration counts, GPU busy
// time, overlap of GPUs and of each GPU's streams, per-kernel changes, and a warning when the work differs.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtv/analysis/format.h"
#include "gtv/model/trace.h"

namespace gtv::analysis {

// One GPU's streams over the whole trace: whether they ran at the same time (stream_overlap.h).
struct GpuStreamFigures {
  std::int64_t device = 0;
  std::size_t stream_count = 0;
  TimeNs busy_ns = 0;
  TimeNs multi_stream_ns = 0;  // 2+ streams busy
  double stream_parallelism = 0;
};

struct RunFigures {
  std::string label;
  TimeNs wall_ns = 0;      // trace span
  TimeNs gpu_busy_ns = 0;  // union over GPUs
  TimeNs gpu_busy_sum_ns = 0;
  TimeNs overlap_ns = 0;  // 2+ GPUs busy
  double effective_parallelism = 0;
  TimeNs kernel_ns = 0;
  std::size_t kernel_count = 0;
  std::size_t gpu_count = 0;
  TimeNs host_blocked_ns = 0;
  std::vector<GpuStreamFigures> gpu_streams;  // by device
};

struct KernelDiff {
  std::string name;  // short
  std::string full_name;
  std::size_t count_a = 0;
  std::size_t count_b = 0;
  TimeNs total_a_ns = 0;
  TimeNs total_b_ns = 0;
  TimeNs delta_ns = 0;  // b - a
};

enum class CompareBasis : std::uint8_t { SharedMeasurements, TimedWindows, SteadyParts, WholeTrace };
[[nodiscard]] std::string_view compare_basis_key(CompareBasis basis);  // "shared_measurements", ...

// The steady part of a trace, where runs are aligned to be compared: from the first kernel that starts after the
// last warm-up range (the first kernel when there is none) to the end of the last GPU activity. Nullopt without
// kernels.
struct SteadyPart {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  [[nodiscard]] TimeNs length_ns() const { return end_ns - start_ns; }
};
[[nodiscard]] std::optional<SteadyPart> steady_part(const Trace& trace);

struct Comparison {
  RunFigures a;
  RunFigures b;
  CompareBasis basis = CompareBasis::WholeTrace;
  std::string basis_text;  // in words: "the truth of the measurements both traces share"
  std::string basis_what;  // what was timed: "timed loop", "the timed windows", "the steady parts", "wall time"
  TimeNs basis_a_ns = 0;   // the time compared, in A and in B
  TimeNs basis_b_ns = 0;
  // Iterations inside each basis (ranges of kind Iteration, else profiler steps "ProfilerStep#N", "iteration"
  // annotations or a top-level annotation a thread repeats), the most of any one host thread; 0 when unknown.
  // When both are known and differ, the speedup is per iteration.
  std::size_t iterations_a = 0;
  std::size_t iterations_b = 0;
  bool per_iteration = false;
  // The work differs (other kernels, or more kernel instances per basis or per iteration): the totals are not a
  // speedup, and the speedup is per kernel instance.
  bool per_kernel = false;
  bool same_run = false;            // A and B are ranks of one run: no speedup is headlined
  std::size_t basis_kernels_a = 0;  // kernels that started inside each basis
  std::size_t basis_kernels_b = 0;
  double speedup = 0;       // basis a / basis b (per iteration or per kernel instance as said): > 1 means B is faster
  double wall_speedup = 0;  // whole-trace wall a / wall b: a secondary line
  std::vector<KernelDiff> kernels;  // by |delta| (largest first), then full name
  std::string verdict;              // the speedup on the basis, said with its basis
  std::string wall_line;            // whole-trace wall time, everything recorded: a secondary line
  // Kernel time in kernels only one trace ran, as a share of that trace's kernel time.
  double only_a_share = 0;
  double only_b_share = 0;
  // The work differs (kernels only one trace ran; or as many kernel names but more kernels per iteration, or per
  // basis), or iterations are known for one trace only.
  std::vector<std::string> warnings;
};

struct Report;  // report.h

// The names two runs go by in a comparison, from their files' paths and stems (the names without folders and trace
// extensions, "x" for r1/x.json.gz): the stems when they differ; else the file names when those differ; else the
// stems under as many of their folders as it takes to tell them apart ("r1/x" and "r2/x"); else, one file twice,
// "x (A)" and "x (B)". Paths are split at '/'; give both in the same form (both absolute).
[[nodiscard]] std::pair<std::string, std::string> run_labels(std::string_view path_a, const std::string& stem_a,
                                                             std::string_view path_b, const std::string& stem_b);

// One run's figures from its Report (its concurrency, host blocking and kernels), computing nothing again.
[[nodiscard]] RunFigures run_figures(const Trace& trace, const Report& report, std::string label);
[[nodiscard]] Comparison compare(const Trace& a, const Trace& b, std::string label_a = "A", std::string label_b = "B");
// The same comparison from each run's Report (concurrency, timing, kernels, host blocking and steady part), as a
// window that has analysed both runs already makes it: only what depends on the pair is computed.
[[nodiscard]] Comparison compare(const Trace& a, const Report& report_a, const Trace& b, const Report& report_b,
                                 std::string label_a = "A", std::string label_b = "B");
// When A and B are ranks of one distributed run (different ranks of one world size, recorded at the same time),
// the warning that says so and points to merging them; nothing otherwise.
[[nodiscard]] std::optional<std::string> same_run_warning(const Trace& a, const Trace& b, const std::string& label_a,
                                                          const std::string& label_b);
[[nodiscard]] std::string format_comparison(const Comparison& comparison, Format format);

// Tracing overhead (gtv's or the profiler's own records) on the critical path of a compared region is part of the
// speedup: when either run's basis is its report's region and removing the overhead would shorten it by 1% or more,
// adds a warning that says how much in each and the speedup without it (the replayed region, core/causal).
void note_tracing_overhead(Comparison& comparison, const Report& a, const Report& b);

}  // namespace gtv::analysis
