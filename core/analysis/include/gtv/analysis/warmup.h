#pragma once
// Warm-up: costs the steady state does not pay. First-use work recognised from the calls and records that do it
// (context creation, module loading in every spelling CUPTI uses, cuBLAS/cuDNN set-up, allocator growth, the
// stream pool, peer access) and kernels slower on their first run than on later runs of the same kernel with the
// same grid and block. Costs paid on every launch (cuKernelGetFunction, cuLibraryGetKernel...) count only for
// the first launch of each kernel on a device. Also: the first iteration against the median of the later ones,
// per host thread, on like-for-like bases (synchronized time, GPU time); and, from memory counters, how much each
// GPU's allocator grew before the timed loop and inside it.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/analysis/intervals.h"
#include "gtv/analysis/region.h"
#include "gtv/base/enum_table.h"
#include "gtv/model/trace.h"

namespace gtv::analysis {

enum class WarmUpCause : std::uint8_t {
  ContextCreation,
  ModuleLoading,  // lazy module / function loading
  LibrarySetup,   // cuBLAS / cuDNN handle and workspace set-up
  AllocatorGrowth,
  StreamPool,
  PeerAccess,
  SlowFirstKernel,  // a kernel's first run slower than its later runs with the same grid and block
};
inline constexpr std::array<EnumEntry<WarmUpCause>, 7> kWarmUpCauses{{
    {WarmUpCause::ContextCreation, "context_creation", "context creation"},
    {WarmUpCause::ModuleLoading, "module_loading", "module loading"},
    {WarmUpCause::LibrarySetup, "library_setup", "cuBLAS/cuDNN set-up"},
    {WarmUpCause::AllocatorGrowth, "allocator_growth", "allocator growth"},
    {WarmUpCause::StreamPool, "stream_pool", "stream pool"},
    {WarmUpCause::PeerAccess, "peer_access", "peer access"},
    {WarmUpCause::SlowFirstKernel, "slow_first_kernel", "slow first kernel run"},
}};
static_assert(in_enum_order(kWarmUpCauses));
inline constexpr int kWarmUpCauseCount = static_cast<int>(kWarmUpCauses.size());
[[nodiscard]] std::string_view to_string(WarmUpCause cause);         // "context creation", "module loading", ...
[[nodiscard]] std::string_view warmup_cause_key(WarmUpCause cause);  // stable JSON key: "context_creation", ...

// One group of first-use work: calls (or a first kernel run) of one cause on one host thread (or GPU stream),
// for one device, with gaps below 1 ms between them.
struct WarmUpFinding {
  WarmUpCause cause = WarmUpCause::ContextCreation;
  std::int64_t device = -1;     // the GPU it was for, -1 when unknown
  std::int64_t pid = 0;         // host process; for SlowFirstKernel the GPU lane's pid (= device)
  std::int64_t tid = 0;         // host thread; for SlowFirstKernel the stream
  bool on_gpu = false;          // SlowFirstKernel: the spans are on a GPU lane
  TimeNs start_ns = 0;          // first span start
  TimeNs end_ns = 0;            // last span end
  TimeNs cost_ns = 0;           // what it cost: union of the spans (for a slow first kernel: first run - median later)
  std::size_t count = 0;        // calls or kernel runs
  std::string first_call;       // name of the first call or kernel
  std::vector<Interval> spans;  // merged spans of the calls / kernels involved: what a band covers, exactly
};

struct WarmUpCauseTotal {
  WarmUpCause cause = WarmUpCause::ContextCreation;
  std::size_t count = 0;  // calls or kernel runs
  std::size_t finding_count = 0;
  TimeNs cost_ns = 0;                 // host causes: union of their findings' spans; slow first kernels: sum of costs
  std::vector<std::int64_t> devices;  // devices of its findings, ascending; -1 (unknown) first when present
};

// The first iteration of one host thread against the median of its later ones. Iterations are grouped per
// thread and per enclosing phase (one loop), so the first of a loop is compared with the rest of that loop only.
struct IterationWarmUp {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::int64_t rank = -1;        // in a run merged from ranks, the rank of pid; else -1
  std::int64_t device = -1;      // when all its iterations' GPU work ran on one device, else -1
  std::string series;            // what was compared: "iterations of \"timed loop\"", "\"model 0 forward\" ranges"
  std::string first_name;        // "iteration 0", "ProfilerStep#3"
  std::size_t steady_count = 0;  // later iterations behind the median
  bool synchronized = false;     // every iteration's host range ended after its GPU work: host time is wall time
  bool communication = false;    // launched NCCL kernels: wall time would hold waits for peer ranks
  bool whole_process = false;    // profiler steps: the GPU work any thread of the process launched inside counts
  TimeNs first_start_ns = 0;     // host range of the first iteration
  TimeNs first_end_ns = 0;
  TimeNs last_end_ns = 0;    // the latest end of the series' iterations
  TimeNs first_use_ns = 0;   // first-use work (host findings of this thread, of its process for profiler steps)
                             // inside the first iteration
  TimeNs first_host_ns = 0;  // host range length
  TimeNs steady_host_median_ns = 0;
  TimeNs first_gpu_ns = 0;  // busy time of the GPU work launched inside, summed over GPUs (NCCL left out)
  TimeNs steady_gpu_median_ns = 0;
  double sync_ratio = 0;  // first / median host time, synchronized and without NCCL only; else 0
  double gpu_ratio = 0;   // first / median of GPU time; 0 when unknown
};

// What one GPU's allocator took before the steady part of the trace and inside it, read from one memory counter
// series of that GPU: PyTorch's reserved bytes when the trace has them (the caching allocator's growth), else the
// device memory CUPTI saw allocated. The steady part is the region of interest when it comes from measurements (the
// timed loop), else everything after the first iteration of the loop with the most iterations.
struct MemoryGrowth {
  std::int64_t device = 0;
  std::string series;          // the counter read: "reserved by PyTorch (bytes)", ...
  bool since_start = false;    // the series counts from 0 at the recording's start, else from its first sample
  double start_bytes = 0;      // 0 for since_start series, else the first sample
  double peak_bytes = 0;       // the series' highest value
  bool has_steady = false;     // a steady part was found; without one, before_growth_bytes covers the trace
  std::string steady_name;     // "the timed loop", "the ProfilerStep annotations after the first"
  TimeNs steady_start_ns = 0;  // the steady window; warm-up ranges inside it are not part of the steady part
  TimeNs steady_end_ns = 0;
  double before_growth_bytes = 0;     // the value in force when the steady window starts (or the last) - start_bytes
  bool has_warmup_ranges = false;     // warm-up ranges start before the steady window ends
  bool warmup_inside_steady = false;  // some of them lie inside the steady window
  double warmup_growth_bytes = 0;     // the change inside them (end - start of each, merged)
  double steady_growth_bytes = 0;     // per piece of the steady part: highest value - value at its start, summed
  bool has_gaps = false;              // the steady part is timed measurements with gaps between them
  double gap_growth_bytes = 0;        // the same, summed over the gaps (warm-up ranges cut out)
};

struct WarmUp {
  std::vector<WarmUpFinding> findings;      // by start
  std::vector<WarmUpCauseTotal> causes;     // only causes seen, by cost, largest first
  std::vector<IterationWarmUp> iterations;  // by pid, tid
  std::vector<MemoryGrowth> memory;         // by device
  TimeNs host_cost_ns = 0;                  // union of all host findings' spans
  std::vector<std::string> lines;           // plain words
  std::string headline;  // the one sentence for the verdict; empty when there is nothing worth a verdict line
};

// The cause recognised from an API or overhead name alone, if any.
[[nodiscard]] bool warmup_cause_of_call(std::string_view api_name, WarmUpCause& cause);

// region: the trace's region of interest (region.h), whose timed loop is the steady part memory growth is compared
// with; the one-argument form works it out.
[[nodiscard]] WarmUp analyze_warmup(const Trace& trace, const Region& region);
[[nodiscard]] WarmUp analyze_warmup(const Trace& trace);
// How much of the host's first-use work lies inside [start_ns, end_ns): the union of the host findings' spans there.
[[nodiscard]] TimeNs warmup_host_cost_within(const WarmUp& warmup, TimeNs start_ns, TimeNs end_ns);
// The same inside sorted, disjoint spans (Region::measured).
[[nodiscard]] TimeNs warmup_host_cost_within(const WarmUp& warmup, std::span<const Interval> spans);

}  // namespace gtv::analysis
