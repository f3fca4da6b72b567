#include "gtv/analysis/warmup.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "gtv/analysis/report.h"
#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

namespace {

constexpr TimeNs ms = kNsPerMs;
constexpr TimeNs us = kNsPerUs;
constexpr std::string_view kNoWarmUp =
    "No warm-up in this recording: no first-use work (context creation, module loading, library set-up, allocator "
    "growth) was found; it may have been recorded after warm-up.";

void api(TraceBuilder& b, std::string_view name, TimeNs start, TimeNs dur, std::uint64_t corr = kNoCorrelation,
         EventKind kind = EventKind::Runtime, std::int64_t tid = 1) {
  host_call(b, 1, tid, name, start, dur, kind, corr);
}

void overhead(TraceBuilder& b, std::string_view name, TimeNs start, TimeNs dur) {
  host_call(b, 1, 1, name, start, dur, EventKind::Overhead);
}

// A kernel with a launch configuration (the helper's kernel() leaves it unknown).
void shaped_kernel(TraceBuilder& b, std::int64_t device, std::string_view name, TimeNs start, TimeNs dur,
                   std::int32_t block_x, std::uint64_t corr = kNoCorrelation, std::int64_t stream = 7) {
  KernelDetail d;
  d.grid[0] = 64;
  d.grid[1] = d.grid[2] = 1;
  d.block[0] = block_x;
  d.block[1] = d.block[2] = 1;
  b.add_kernel(b.lane(gpu_lane_key(device, stream)), make_event(b, name, start, dur, EventKind::Kernel, corr), d);
}

// A launch on thread 1 and the kernel it launched.
void launch(TraceBuilder& b, std::string_view kernel_name, std::int64_t device, TimeNs start, TimeNs dur,
            std::uint64_t corr, TimeNs kernel_dur = 10 * us) {
  api(b, "cuLaunchKernel", start, dur, corr, EventKind::Driver);
  kernel(b, device, 7, kernel_name, start + dur + 5 * us, kernel_dur, corr);
}

std::vector<WarmUpFinding> of_cause(const WarmUp& w, WarmUpCause cause) {
  std::vector<WarmUpFinding> out;
  for (const WarmUpFinding& f : w.findings)
    if (f.cause == cause) out.push_back(f);
  return out;
}

bool has_line(const WarmUp& w, std::string_view text) {
  return std::any_of(w.lines.begin(), w.lines.end(), [&](const std::string& l) { return l == text; });
}

}  // namespace

TEST(WarmUp, ContextCreationIsALongCallBeforeTheFirstLaunchOrALongContextCall) {
  TraceBuilder b;
  api(b, "cudaGetDeviceCount", 0, 1 * us);                       // short: the driver was already up
  api(b, "cudaDeviceGetStreamPriorityRange", 1 * ms, 125 * ms);  // the first long call: context creation
  launch(b, "k", 0, 200 * ms, 5 * us, 1);
  api(b, "cudaDeviceSynchronize", 210 * ms, 40 * ms);  // a long wait, never context creation
  api(b, "cudaFuncGetAttributes", 260 * ms, 20 * ms);  // long, but after the first launch
  api(b, "cudaSetDevice", 300 * ms, 5 * us);           // short: the context exists
  api(b, "cudaSetDevice", 310 * ms, 50 * ms);          // the second device's context
  launch(b, "k", 1, 400 * ms, 5 * us, 2);
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  const auto ctx = of_cause(w, WarmUpCause::ContextCreation);
  ASSERT_EQ(ctx.size(), 2u);
  EXPECT_EQ(ctx[0].device, 0);  // the next launch on the thread went to GPU 0
  EXPECT_EQ(ctx[0].first_call, "cudaDeviceGetStreamPriorityRange");
  EXPECT_EQ(ctx[0].spans, (std::vector<Interval>{{1 * ms, 126 * ms}}));
  EXPECT_EQ(ctx[0].cost_ns, 125 * ms);
  EXPECT_EQ(ctx[1].device, 1);
  EXPECT_EQ(ctx[1].spans, (std::vector<Interval>{{310 * ms, 360 * ms}}));
  EXPECT_EQ(w.findings.size(), 2u);  // nothing else is first use: "k" launched fast
  EXPECT_EQ(w.host_cost_ns, 175 * ms);
  ASSERT_EQ(w.causes.size(), 1u);
  EXPECT_EQ(w.causes[0].count, 2u);
  EXPECT_EQ(w.causes[0].devices, (std::vector<std::int64_t>{0, 1}));
  EXPECT_TRUE(has_line(w, "Context creation: 2 calls in 2 groups, 175.0 ms on the host (GPUs 0 and 1)."));
  EXPECT_EQ(w.headline, "Warm-up: first-use work cost the host 175.0 ms (context creation 175.0 ms on GPUs 0 and 1).");
}

// A trace recorded after its contexts existed: the long call before the first launch waited while another
// thread loaded a module (CUPTI's record on that thread). It is module loading, counted once, not context creation.
TEST(WarmUp, ALongCallThatModuleLoadingOnAnotherThreadExplainsIsNotContextCreation) {
  TraceBuilder b;
  api(b, "cudaStreamGetPriority", 0, 38 * ms);
  host_call(b, 1, 2, "module loading", 1 * ms, 36 * ms, EventKind::Overhead);
  launch(b, "k", 0, 40 * ms, 5 * us, 1);
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  EXPECT_TRUE(of_cause(w, WarmUpCause::ContextCreation).empty());
  const auto loading = of_cause(w, WarmUpCause::ModuleLoading);
  ASSERT_EQ(loading.size(), 2u);  // the load on thread 2, the wait for it on thread 1
  EXPECT_EQ(w.host_cost_ns, 38 * ms);
  ASSERT_EQ(w.causes.size(), 1u);
  EXPECT_EQ(w.causes[0].cost_ns, 38 * ms);  // not 38 + 36: the two overlap in time
  // The record on thread 2 is not inside a launch: which GPU its load was for, the trace does not say.
  EXPECT_EQ(w.headline,
            "Warm-up: first-use work cost the host 38.0 ms (module loading 38.0 ms on GPU 0, partly on no known GPU).");
}

TEST(WarmUp, ACallHoldingKinetosModuleLoadingRecordLoadedAModuleInAnExistingContext) {
  // torch.profiler started on a process whose context existed: its first recorded call, a 38.3 ms
  // cudaFuncGetAttributes, holds CUPTI's loading record, which Kineto writes under pid -1.
  TraceBuilder b;
  api(b, "cudaFuncGetAttributes", 0, 38300 * us);
  host_call(b, -1, 0, "Runtime Triggered Module Loading", 2 * ms, 3 * ms, EventKind::Overhead);
  launch(b, "k", 0, 40 * ms, 5 * us, 1);
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  EXPECT_TRUE(of_cause(w, WarmUpCause::ContextCreation).empty());
  ASSERT_EQ(w.causes.size(), 1u);
  EXPECT_EQ(w.causes[0].cause, WarmUpCause::ModuleLoading);
  EXPECT_EQ(w.causes[0].cost_ns, 38300 * us);  // the record lies inside the call
  EXPECT_EQ(w.headline,
            "Warm-up: first-use work cost the host 38.3 ms (module loading 38.3 ms on GPU 0, partly on no known GPU).");
}

TEST(WarmUp, ALongFirstCallWithoutALoadingRecordStillCreatesTheContext) {
  TraceBuilder b;
  api(b, "cudaFuncGetAttributes", 0, 38300 * us);
  host_call(b, -1, 0, "Runtime Triggered Module Loading", 39 * ms, 1 * ms, EventKind::Overhead);  // after it
  launch(b, "k", 0, 41 * ms, 5 * us, 1);
  const Trace t = build(b);
  const auto ctx = of_cause(analyze_warmup(t), WarmUpCause::ContextCreation);
  ASSERT_EQ(ctx.size(), 1u);
  EXPECT_EQ(ctx[0].cost_ns, 38300 * us);
}

TEST(WarmUp, LongFirstWaitIsNotContextCreation) {
  TraceBuilder b;
  api(b, "cudaDeviceSynchronize", 0, 50 * ms);
  api(b, "cudaMemcpy", 60 * ms, 50 * ms);
  const Trace t = build(b);
  EXPECT_TRUE(analyze_warmup(t).findings.empty());
}

TEST(WarmUp, ASteadyPerLaunchLookupIsNeverWarmUp) {
  TraceBuilder b;
  std::uint64_t corr = 1;
  // 100 iterations: the lookup before every launch (0.4 us), not nested in it, as CUPTI records it.
  for (int i = 0; i < 100; ++i) {
    const TimeNs t0 = i * 100 * us;
    api(b, "cuKernelGetFunction", t0, 400, kNoCorrelation, EventKind::Driver);
    api(b, "cudaMemsetAsync", t0 + 1 * us, 3 * us);
    launch(b, "gemm", 0, t0 + 5 * us, 6 * us, corr++);
    if (i == 50) {  // a new kernel's first launch, in the middle of the loop: its lookup is module loading
      api(b, "cuKernelGetFunction", t0 + 40 * us, 400, kNoCorrelation, EventKind::Driver);
      launch(b, "relu", 0, t0 + 41 * us, 6 * us, corr++);
    }
  }
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  const auto loading = of_cause(w, WarmUpCause::ModuleLoading);
  ASSERT_EQ(loading.size(), 2u);
  EXPECT_EQ(loading[0].count, 1u);
  EXPECT_EQ(loading[0].spans, (std::vector<Interval>{{0, 400}}));  // the first lookup only
  EXPECT_EQ(loading[0].device, 0);
  EXPECT_EQ(loading[1].spans, (std::vector<Interval>{{5000 * us + 40 * us, 5000 * us + 40 * us + 400}}));
  EXPECT_EQ(w.findings.size(), 2u);
  EXPECT_EQ(w.host_cost_ns, 800);
}

TEST(WarmUp, ALookupNestedInItsLaunchFollowsThatLaunch) {
  TraceBuilder b;
  for (int i = 0; i < 3; ++i) {
    api(b, "cudaLaunchKernel", i * ms, 20 * us, i + 1);
    api(b, "cuLibraryGetKernel", i * ms + 2 * us, 1 * us, kNoCorrelation, EventKind::Driver);
    kernel(b, 1, 7, "k", i * ms + 30 * us, 5 * us, i + 1);
  }
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.findings.size(), 1u);
  EXPECT_EQ(w.findings[0].spans, (std::vector<Interval>{{2 * us, 3 * us}}));
  EXPECT_EQ(w.findings[0].device, 1);
}

TEST(WarmUp, ModuleLoadingInEverySpellingButNotTheTracersOwnRecords) {
  TraceBuilder b;
  overhead(b, "module loading", 0, 2 * ms);  // lower case, as CUPTI writes it in our recordings
  overhead(b, "lazy function loading", 10 * ms, 30 * us);
  overhead(b, "Lazy Function Loading", 20 * ms, 40 * us);
  overhead(b, "Module Load", 30 * ms, 50 * us);
  overhead(b, "CUPTI buffer flush", 40 * ms, 3 * ms);  // the tracer's cost
  overhead(b, "CUPTI buffer request", 50 * ms, 3 * ms);
  overhead(b, "Activity Buffer Request", 60 * ms, 3 * ms);
  overhead(b, "CUPTI instrumentation", 70 * ms, 3 * ms);
  api(b, "cuLibraryLoadData", 80 * ms, 5 * ms, kNoCorrelation, EventKind::Driver);
  api(b, "cuModuleLoadDataEx", 90 * ms, 1 * ms, kNoCorrelation, EventKind::Driver);
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.findings.size(), 6u);
  for (const WarmUpFinding& f : w.findings) EXPECT_EQ(f.cause, WarmUpCause::ModuleLoading) << f.first_call;
  EXPECT_EQ(w.host_cost_ns, 2 * ms + 30 * us + 40 * us + 50 * us + 5 * ms + 1 * ms);
  WarmUpCause cause{};
  EXPECT_TRUE(warmup_cause_of_call("module loading", cause));
  EXPECT_FALSE(warmup_cause_of_call("CUPTI buffer flush", cause));
  EXPECT_FALSE(warmup_cause_of_call("cuKernelGetFunction", cause));  // per launch: needs the launch it serves
}

TEST(WarmUp, ASlowLaunchLoadsTheModuleOnlyOnAFirstRunOrWithALoadingRecord) {
  TraceBuilder b;
  launch(b, "copy", 0, 0, 57 * ms, 1);                   // the first run of "copy" on GPU 0: waited for its module
  launch(b, "copy", 0, 100 * ms, 2 * ms, 2);             // slow, but "copy" ran before: something else
  launch(b, "copy", 1, 200 * ms, 1 * ms + 800 * us, 3);  // first run on GPU 1
  launch(b, "copy", 0, 300 * ms, 3 * ms, 4);             // not a first run, but CUPTI saw lazy loading inside it
  overhead(b, "lazy function loading", 302 * ms, 88 * us);
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.findings.size(), 3u);
  EXPECT_EQ(w.findings[0].spans, (std::vector<Interval>{{0, 57 * ms}}));
  EXPECT_EQ(w.findings[0].device, 0);
  EXPECT_EQ(w.findings[1].spans, (std::vector<Interval>{{200 * ms, 201 * ms + 800 * us}}));
  EXPECT_EQ(w.findings[1].device, 1);
  EXPECT_EQ(w.findings[2].spans, (std::vector<Interval>{{300 * ms, 303 * ms}}));  // the record lies inside
  EXPECT_EQ(w.findings[2].count, 2u);
  EXPECT_EQ(w.findings[2].device, 0);
}

TEST(WarmUp, LibrarySetupTakesItsWorkspaceAllocationAndOtherCausesAreNamed) {
  TraceBuilder b;
  api(b, "cuGetProcAddress_v2", 0, 10 * us, kNoCorrelation, EventKind::Driver);
  api(b, "cuGetProcAddress_v2", 100 * us, 10 * us, kNoCorrelation, EventKind::Driver);
  api(b, "cublasCreate_v2", 200 * us, 100 * us);
  api(b, "cudaMalloc", 500 * us, 200 * us);    // cuBLAS's workspace: right after its set-up
  api(b, "cudaMalloc", 10 * ms, 1 * ms);       // growth
  api(b, "cudaMallocAsync", 20 * ms, 1 * ms);  // from a pool on every iteration: steady
  api(b, "cudaStreamCreateWithPriority", 30 * ms, 5 * us);
  api(b, "cudaStreamCreateWithPriority", 30 * ms + 10 * us, 5 * us);
  api(b, "cudaDeviceEnablePeerAccess", 40 * ms, 2 * ms);
  launch(b, "k", 0, 50 * ms, 5 * us, 1);
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.findings.size(), 4u);
  EXPECT_EQ(w.findings[0].cause, WarmUpCause::LibrarySetup);
  EXPECT_EQ(w.findings[0].count, 4u);
  EXPECT_EQ(w.findings[0].spans,
            (std::vector<Interval>{{0, 10 * us}, {100 * us, 110 * us}, {200 * us, 300 * us}, {500 * us, 700 * us}}));
  EXPECT_EQ(w.findings[0].cost_ns, 320 * us);
  EXPECT_EQ(w.findings[1].cause, WarmUpCause::AllocatorGrowth);
  EXPECT_EQ(w.findings[1].spans, (std::vector<Interval>{{10 * ms, 11 * ms}}));
  EXPECT_EQ(w.findings[2].cause, WarmUpCause::StreamPool);
  EXPECT_EQ(w.findings[2].count, 2u);
  EXPECT_EQ(w.findings[2].cost_ns, 10 * us);
  EXPECT_EQ(w.findings[3].cause, WarmUpCause::PeerAccess);
  for (const WarmUpFinding& f : w.findings) EXPECT_EQ(f.device, 0);
}

TEST(WarmUp, CallsFarApartOrForOtherDevicesAreSeparateFindings) {
  TraceBuilder b;
  api(b, "cudaMalloc", 0, 100 * us);
  api(b, "cudaMalloc", 500 * us, 100 * us);  // 0.4 ms later: same finding
  launch(b, "k", 0, 700 * us, 5 * us, 1);
  api(b, "cudaMalloc", 800 * us, 100 * us);  // for GPU 1 (the next launch): another finding
  launch(b, "k", 1, 1 * ms, 5 * us, 2);
  api(b, "cudaMalloc", 5 * ms, 100 * us);  // more than 1 ms after the last: another finding
  launch(b, "k", 1, 6 * ms, 5 * us, 3);
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.findings.size(), 3u);
  EXPECT_EQ(w.findings[0].spans, (std::vector<Interval>{{0, 100 * us}, {500 * us, 600 * us}}));
  EXPECT_EQ(w.findings[0].device, 0);
  EXPECT_EQ(w.findings[0].cost_ns, 200 * us);
  EXPECT_EQ(w.findings[1].device, 1);
  EXPECT_EQ(w.findings[2].device, 1);
  EXPECT_EQ(w.findings[2].start_ns, 5 * ms);
}

TEST(WarmUp, ATraceWithoutFirstUseWorkSaysSo) {
  TraceBuilder b;
  for (int i = 0; i < 10; ++i) launch(b, "k", 0, i * ms, 5 * us, i + 1);
  api(b, "cudaSetDevice", 20 * ms, 5 * us);
  api(b, "CUPTI buffer flush", 30 * ms, 5 * ms, kNoCorrelation, EventKind::Overhead);
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  EXPECT_TRUE(w.findings.empty());
  ASSERT_FALSE(w.lines.empty());
  EXPECT_EQ(w.lines[0], kNoWarmUp);
  EXPECT_EQ(w.headline, kNoWarmUp);
  EXPECT_EQ(w.host_cost_ns, 0);
}

TEST(WarmUp, ATraceWithoutCudaHasNothingToLookFor) {
  TraceBuilder b;
  host_call(b, 1, 1, "aten::mm", 0, 5 * ms, EventKind::CpuOp);
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.lines.size(), 1u);
  EXPECT_EQ(w.lines[0], "No CUDA calls or GPU work in this recording: no warm-up to look for.");
  EXPECT_EQ(w.headline, "");
}

TEST(WarmUp, SlowFirstKernelComparesOnlyTheSameGridAndBlock) {
  TraceBuilder b;
  shaped_kernel(b, 0, "gemm", 0, 100 * us, 128);  // first run: 100 us against a median of 20 us
  for (int i = 1; i <= 5; ++i) shaped_kernel(b, 0, "gemm", i * ms, (19 + i % 3) * us, 128);
  shaped_kernel(b, 0, "conv", 10 * ms, 500 * us, 256);  // the largest layer first, another block...
  for (int i = 1; i <= 5; ++i) shaped_kernel(b, 0, "conv", 10 * ms + i * ms, 100 * us, 64);  // ...than later ones
  shaped_kernel(b, 0, "tiny", 20 * ms, 3 * us, 32);  // 3x, but 2 us lost: not worth a word
  for (int i = 1; i <= 5; ++i) shaped_kernel(b, 0, "tiny", 20 * ms + i * ms, 1 * us, 32);
  // One grid for any size (a grid-stride kernel): the later runs disagree, so nothing compares.
  shaped_kernel(b, 1, "fill", 30 * ms, 160 * us, 256);
  const TimeNs fills[] = {4, 39, 160, 39, 4, 158};
  for (int i = 0; i < 6; ++i) shaped_kernel(b, 1, "fill", 31 * ms + i * ms, fills[i] * us, 256);
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.findings.size(), 1u);
  const WarmUpFinding& f = w.findings[0];
  EXPECT_EQ(f.cause, WarmUpCause::SlowFirstKernel);
  EXPECT_TRUE(f.on_gpu);
  EXPECT_EQ(f.device, 0);
  EXPECT_EQ(f.pid, 0);
  EXPECT_EQ(f.tid, 7);
  EXPECT_EQ(f.first_call, "gemm");
  EXPECT_EQ(f.spans, (std::vector<Interval>{{0, 100 * us}}));
  EXPECT_EQ(f.cost_ns, 80 * us);  // later runs 20, 21, 19, 20, 21 us: median 20 us
  EXPECT_EQ(w.host_cost_ns, 0);   // GPU time, not the host's
  EXPECT_EQ(w.headline,
            "Warm-up: first runs of 1 kernel on GPU 0 took 80.0 us more than their later runs with the same grid and "
            "block.");
}

namespace {

// Iterations on thread 1 in loop "timed loop", each launching `gpu` of kernel time on GPU 0.
struct Iter {
  TimeNs host_ns;
  TimeNs gpu_ns;
  bool nccl = false;
  TimeNs nccl_ns = 0;
};

Trace loop_trace(const std::vector<Iter>& iters, bool synchronized, bool malloc_in_first = false) {
  TraceBuilder b;
  b.add_range(Range{"timed loop", RangeKind::Phase, 0, 10'000 * ms, 1, 1, -1});
  TimeNs t = 1 * ms;
  std::uint64_t corr = 1;
  for (std::size_t i = 0; i < iters.size(); ++i) {
    const Iter& it = iters[i];
    const TimeNs start = t;
    if (i == 0 && malloc_in_first) api(b, "cudaMalloc", start + 10 * us, 5 * ms);
    const TimeNs launch_at = start + it.host_ns - 20 * us;
    api(b, "cudaLaunchKernel", launch_at, 5 * us, corr);
    kernel(b, 0, 7, "work", launch_at + 10 * us, it.gpu_ns, corr++);
    TimeNs gpu_end = launch_at + 10 * us + it.gpu_ns;
    if (it.nccl) {
      api(b, "cudaLaunchKernel", launch_at + 6 * us, 5 * us, corr);
      kernel(b, 0, 8, "ncclDevKernel_AllReduce_Sum_f32", gpu_end, it.nccl_ns, corr++);
      gpu_end += it.nccl_ns;
    }
    const TimeNs end = synchronized ? gpu_end + 5 * us : start + it.host_ns;
    if (synchronized) api(b, "cudaDeviceSynchronize", launch_at + 15 * us, end - launch_at - 15 * us);
    b.add_range(Range{"iteration " + std::to_string(i), RangeKind::Iteration, start, end, 1, 1, -1});
    t = std::max(end, gpu_end) + 100 * us;
  }
  return build(b);
}

}  // namespace

TEST(WarmUp, AFirstRunBesideACommunicationKernelIsContentionNotWarmUp) {
  TraceBuilder b;
  // The first wgrad ran while an all-reduce spun on the same GPU for a late peer: 121.6 us more than later.
  shaped_kernel(b, 0, "cutlass_wgrad", 0, 141600, 128);
  kernel(b, 0, 9, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0, 500 * us);
  for (int i = 1; i <= 5; ++i) shaped_kernel(b, 0, "cutlass_wgrad", i * ms, 20 * us, 128);
  // The same on GPU 1 with no collective beside it: warm-up.
  shaped_kernel(b, 1, "cutlass_wgrad", 0, 141600, 128);
  for (int i = 1; i <= 5; ++i) shaped_kernel(b, 1, "cutlass_wgrad", i * ms, 20 * us, 128);
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  const auto slow = of_cause(w, WarmUpCause::SlowFirstKernel);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].device, 1);
  EXPECT_EQ(slow[0].cost_ns, 121600);
  EXPECT_EQ(w.headline,
            "Warm-up: first runs of 1 kernel on GPU 1 took 121.6 us more than their later runs with the same grid and "
            "block.");
}

TEST(WarmUp, FirstIterationComparesGpuTimeNotHostLaunchTime) {
  // The first iteration launches 50x slower on the host; its GPU work is the same 4 ms.
  const Trace t = loop_trace({{50 * ms, 4 * ms}, {1 * ms, 4 * ms}, {1 * ms, 4 * ms}, {1 * ms, 4 * ms}}, false);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.iterations.size(), 1u);
  const IterationWarmUp& it = w.iterations[0];
  EXPECT_EQ(it.series, "iterations of \"timed loop\"");
  EXPECT_EQ(it.steady_count, 3u);
  EXPECT_EQ(it.device, 0);
  EXPECT_FALSE(it.synchronized);
  EXPECT_EQ(it.first_gpu_ns, 4 * ms);
  EXPECT_EQ(it.steady_gpu_median_ns, 4 * ms);
  EXPECT_DOUBLE_EQ(it.gpu_ratio, 1.0);
  EXPECT_EQ(it.sync_ratio, 0.0);  // host launch time is never compared
  EXPECT_TRUE(
      has_line(w,
               "Thread 1, iterations of \"timed loop\": the first iteration paid no warm-up. The first one's GPU work "
               "took 4.00 ms against a median of 4.00 ms for the 3 later ones (1.00x); wall time is not "
               "compared: the iterations end before their GPU work does."));
  EXPECT_EQ(w.headline, kNoWarmUp);
}

TEST(WarmUp, SlowerSynchronizedFirstIterationIsWarmUpOnlyWithFirstUseWorkInside) {
  // The first iteration spends 6 ms on the host before launching, against 1 ms later; each waits for its GPU work.
  const std::vector<Iter> iters{{6 * ms, 4 * ms}, {1 * ms, 4 * ms}, {1 * ms, 4 * ms}};
  {
    const Trace t = loop_trace(iters, true, true);  // a 5 ms cudaMalloc in the first iteration
    const WarmUp w = analyze_warmup(t);
    ASSERT_EQ(w.iterations.size(), 1u);
    const IterationWarmUp& it = w.iterations[0];
    EXPECT_TRUE(it.synchronized);
    EXPECT_EQ(it.first_use_ns, 5 * ms);
    EXPECT_GE(it.sync_ratio, 1.5);
    EXPECT_DOUBLE_EQ(it.gpu_ratio, 1.0);
    EXPECT_NE(w.headline.find("the first iteration of thread 1 took"), std::string::npos) << w.headline;
    EXPECT_NE(w.headline.find("in synchronized time"), std::string::npos) << w.headline;
  }
  {
    // As slow, but nothing first-use inside: the host was slow for another reason; no warm-up claimed.
    const Trace t = loop_trace(iters, true);
    const WarmUp w = analyze_warmup(t);
    ASSERT_EQ(w.iterations.size(), 1u);
    EXPECT_GE(w.iterations[0].sync_ratio, 1.5);
    EXPECT_EQ(w.headline, kNoWarmUp);
  }
}

TEST(WarmUp, ALongFirstCollectiveIsNotWarmUp) {
  // The first all-reduce waits 10 ms for a peer rank; the compute is 4 ms in every iteration.
  const Trace t = loop_trace(
      {{1 * ms, 4 * ms, true, 10 * ms}, {1 * ms, 4 * ms, true, 1 * ms}, {1 * ms, 4 * ms, true, 1 * ms}}, true);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.iterations.size(), 1u);
  const IterationWarmUp& it = w.iterations[0];
  EXPECT_TRUE(it.communication);
  EXPECT_EQ(it.first_gpu_ns, 4 * ms);  // NCCL left out
  EXPECT_DOUBLE_EQ(it.gpu_ratio, 1.0);
  EXPECT_EQ(it.sync_ratio, 0.0);  // wall time holds the peer's lateness
  EXPECT_EQ(w.headline, kNoWarmUp);
}

TEST(WarmUp, SlowerFirstGpuWorkIsWarmUp) {
  const Trace t = loop_trace({{1 * ms, 8 * ms}, {1 * ms, 4 * ms}, {1 * ms, 4 * ms}}, false);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.iterations.size(), 1u);
  EXPECT_DOUBLE_EQ(w.iterations[0].gpu_ratio, 2.0);
  EXPECT_EQ(w.headline,
            "Warm-up: the first iteration of thread 1 took 2.0x the median of the later ones in GPU time "
            "(8.00 ms vs 4.00 ms).");
}

TEST(WarmUp, IterationsAreComparedWithinTheirLoop) {
  TraceBuilder b;
  std::uint64_t corr = 1;
  for (int loop = 0; loop < 2; ++loop) {
    const TimeNs base = loop * 100 * ms;
    b.add_range(Range{"loop " + std::to_string(loop), RangeKind::Phase, base, base + 50 * ms, 1, 1, -1});
    for (int i = 0; i < 4; ++i) {
      const TimeNs s = base + i * 10 * ms;
      api(b, "cudaLaunchKernel", s + 10 * us, 5 * us, corr);
      kernel(b, 0, 7, "k", s + 20 * us, (loop == 0 ? 1 : 5) * ms, corr++);  // loop 1 does 5x the work
      b.add_range(Range{"iteration " + std::to_string(i), RangeKind::Iteration, s, s + 1 * ms, 1, 1, -1});
    }
  }
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.iterations.size(), 2u);
  EXPECT_EQ(w.iterations[0].series, "iterations of \"loop 0\"");
  EXPECT_EQ(w.iterations[1].series, "iterations of \"loop 1\"");
  EXPECT_DOUBLE_EQ(w.iterations[1].gpu_ratio, 1.0);  // not 5x against loop 0's iterations
}

TEST(WarmUp, ProfilerStepAnnotationsStandInForIterations) {
  TraceBuilder b;
  for (int i = 0; i < 3; ++i) {
    const TimeNs s = i * 10 * ms;
    host_call(b, 1, 1, "ProfilerStep#" + std::to_string(i + 2), s, (i == 0 ? 5 : 2) * ms, EventKind::Annotation);
    api(b, "cudaLaunchKernel", s + 100 * us, 5 * us, i + 1);
    kernel(b, 0, 7, "k", s + 200 * us, 1 * ms, i + 1);
  }
  host_call(b, 1, 2, "ProfilerStep#9", 0, 1 * ms, EventKind::Annotation);  // another thread, fewer marks
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.iterations.size(), 1u);
  EXPECT_EQ(w.iterations[0].tid, 1);
  EXPECT_EQ(w.iterations[0].first_name, "ProfilerStep#2");
  EXPECT_EQ(w.iterations[0].steady_count, 2u);
  EXPECT_DOUBLE_EQ(w.iterations[0].gpu_ratio, 1.0);
}

TEST(WarmUp, ASlowerFirstRecordedStepAfterUnrecordedStepsIsNotWarmUp) {
  // schedule(wait=1, warmup=1, active=2): steps 0 and 1 ran unrecorded; ProfilerStep#2 took 3 ms, #3 2 ms, each
  // synchronized, with the same GPU work and no first-use call.
  TraceBuilder b;
  for (int i = 0; i < 2; ++i) {
    const TimeNs s = i * 10 * ms;
    host_call(b, 1, 1, "ProfilerStep#" + std::to_string(i + 2), s, (i == 0 ? 3 : 2) * ms, EventKind::Annotation);
    api(b, "cudaLaunchKernel", s + 100 * us, 5 * us, i + 1);
    kernel(b, 0, 7, "k", s + 200 * us, 1 * ms, i + 1);
  }
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  EXPECT_TRUE(
      has_line(w,
               "Profiler steps (the ProfilerStep ranges of thread 1), counting the GPU work any thread of its "
               "process launched inside them: no warm-up in the recorded steps: the recording starts at "
               "ProfilerStep#2, after the profiler's schedule ran 2 steps unrecorded, and no first-use work was "
               "found in it, though it was slower. The first one's GPU work took 1.00 ms against 1.00 ms for "
               "the later one (1.00x); in wall time (each iteration ends after its GPU work) the first took "
               "3.00 ms against 2.00 ms for the later one (1.50x)."))
      << w.lines.back();
  EXPECT_EQ(w.headline, std::string(kNoWarmUp));
}

namespace {

constexpr std::string_view kReserved = "reserved by PyTorch (bytes)";
constexpr std::string_view kDeviceSinceStart = "device memory allocated since start (bytes)";

void samples(TraceBuilder& b, std::int64_t device, std::string_view series,
             const std::vector<std::pair<TimeNs, double>>& points) {
  for (const auto& [t, bytes] : points) b.add_counter_sample(device, series, CounterSample{t, bytes});
}

// A gtv-style recording on GPU 0: build [0, 100) ms with a cudaMalloc, warm-up [100, 200) ms, a timed loop
// [200, 300) ms measured by a synchronized stopwatch, a kernel in each part.
TraceBuilder timed_loop_with_memory() {
  TraceBuilder b;
  api(b, "cudaMalloc", 10 * ms, 2 * ms);
  b.add_range(Range{"build models", RangeKind::Phase, 0, 100 * ms, 1, 1, -1});
  b.add_range(Range{"warm-up", RangeKind::WarmUp, 100 * ms, 200 * ms, 1, 1, -1});
  b.add_range(Range{"timed loop", RangeKind::Phase, 200 * ms, 300 * ms, 1, 1, -1});
  b.add_measurement(Measurement{"timed loop", MeasurementMethod::StopwatchSync, 100 * ms, 200 * ms, 300 * ms, 1, 1});
  launch(b, "k", 0, 50 * ms, 5 * us, 1);
  launch(b, "k", 0, 150 * ms, 5 * us, 2);
  launch(b, "k", 0, 250 * ms, 5 * us, 3);
  return b;
}

std::size_t line_index(const WarmUp& w, std::string_view prefix) {
  for (std::size_t i = 0; i < w.lines.size(); ++i)
    if (w.lines[i].rfind(prefix, 0) == 0) return i;
  return w.lines.size();
}

}  // namespace

TEST(WarmUp, MemoryCountersSayWhatTheAllocatorTookBeforeAndInsideTheTimedLoop) {
  TraceBuilder b = timed_loop_with_memory();
  // PyTorch's reserved bytes: 1 GB while building, 0.2 GB more in warm-up, flat in the loop. CUPTI's series is there
  // too; PyTorch's own count is the one read.
  samples(b, 0, kReserved, {{0, 0.0}, {40 * ms, 1e9}, {150 * ms, 1.2e9}, {200 * ms, 1.2e9}, {250 * ms, 1.2e9}});
  samples(b, 0, kDeviceSinceStart, {{40 * ms, 1.5e9}});
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.memory.size(), 1u);
  const MemoryGrowth& g = w.memory[0];
  EXPECT_EQ(g.device, 0);
  EXPECT_EQ(g.series, kReserved);
  EXPECT_FALSE(g.since_start);
  EXPECT_TRUE(g.has_steady);
  EXPECT_EQ(g.steady_name, "the timed loop");
  EXPECT_DOUBLE_EQ(g.before_growth_bytes, 1.2e9);
  EXPECT_TRUE(g.has_warmup_ranges);
  EXPECT_DOUBLE_EQ(g.warmup_growth_bytes, 0.2e9);
  EXPECT_DOUBLE_EQ(g.steady_growth_bytes, 0.0);
  EXPECT_DOUBLE_EQ(g.peak_bytes, 1.2e9);
  const std::string line =
      "PyTorch's reserved memory on GPU 0 grew by 1.20 GB before the timed loop, from 0 bytes at its first sample to "
      "1.20 GB (200.00 MB of it inside warm-up ranges), and did not grow in the timed loop (counter \"reserved by "
      "PyTorch (bytes)\").";
  EXPECT_TRUE(has_line(w, line)) << ::testing::PrintToString(w.lines);
  // Right after the allocator's calls, which say that it grew; the counter says by how much.
  const std::size_t calls = line_index(w, "Allocator growth:");
  ASSERT_LT(calls + 1, w.lines.size());
  EXPECT_EQ(w.lines[calls + 1], line);
  EXPECT_EQ(w.headline.find("still grew"), std::string::npos);
}

TEST(WarmUp, MemoryThatStillGrowsInTheTimedLoopReachesTheHeadline) {
  TraceBuilder b = timed_loop_with_memory();
  samples(b, 0, kReserved, {{0, 0.0}, {40 * ms, 1e9}, {250 * ms, 1.1e9}});
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.memory.size(), 1u);
  EXPECT_DOUBLE_EQ(w.memory[0].steady_growth_bytes, 0.1e9);
  EXPECT_DOUBLE_EQ(w.memory[0].warmup_growth_bytes, 0.0);
  EXPECT_TRUE(has_line(w,
                       "PyTorch's reserved memory on GPU 0 grew by 1.00 GB before the timed loop, from 0 bytes at its "
                       "first sample to 1.00 GB (none of it inside warm-up ranges), and grew by a further 100.00 MB in "
                       "the timed loop, to 1.10 GB at its highest: the allocator was still growing (counter "
                       "\"reserved by PyTorch (bytes)\")."))
      << ::testing::PrintToString(w.lines);
  EXPECT_NE(w.headline.find("GPU 0's memory still grew by 100.00 MB in the timed loop (counter \"reserved by PyTorch "
                            "(bytes)\")"),
            std::string::npos)
      << w.headline;
}

TEST(WarmUp, CuptisDeviceMemoryCountsFromTheRecordingsStart) {
  TraceBuilder b = timed_loop_with_memory();
  // CUPTI saw 512 MB allocated in the build, none later; an iteration's tensors coming and going in the loop
  // (below 1% of the peak) are not growth worth a headline.
  samples(b, 0, kDeviceSinceStart, {{20 * ms, 512e6}, {260 * ms, 514e6}, {270 * ms, 512e6}});
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.memory.size(), 1u);
  EXPECT_TRUE(w.memory[0].since_start);
  EXPECT_DOUBLE_EQ(w.memory[0].start_bytes, 0.0);
  EXPECT_DOUBLE_EQ(w.memory[0].before_growth_bytes, 512e6);
  EXPECT_DOUBLE_EQ(w.memory[0].steady_growth_bytes, 2e6);
  EXPECT_TRUE(has_line(w,
                       "Device memory allocated on GPU 0 (CUPTI's records) grew by 512.00 MB before the timed loop, "
                       "from 0 bytes at the recording's start to 512.00 MB (none of it inside warm-up ranges), and "
                       "grew by a further 2.00 MB in the timed loop, to 514.00 MB at its highest: the allocator was "
                       "still growing (counter \"device memory allocated since start (bytes)\")."))
      << ::testing::PrintToString(w.lines);
  EXPECT_EQ(w.headline.find("still grew"), std::string::npos);
}

// The warmup scenario measures cold calls inside warm-up ranges among its timed measurements: what they allocate
// is warm-up, and the rest of the timed window is what counts as steady.
TEST(WarmUp, WarmUpRangesInsideTheTimedWindowAreNotSteady) {
  TraceBuilder b = timed_loop_with_memory();
  b.add_range(Range{"first matmul", RangeKind::WarmUp, 240 * ms, 260 * ms, 1, 1, -1});
  samples(b, 0, kReserved, {{0, 0.0}, {40 * ms, 1e9}, {250 * ms, 1.5e9}});
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.memory.size(), 1u);
  EXPECT_TRUE(w.memory[0].warmup_inside_steady);
  EXPECT_DOUBLE_EQ(w.memory[0].warmup_growth_bytes, 0.5e9);
  EXPECT_DOUBLE_EQ(w.memory[0].steady_growth_bytes, 0.0);
  EXPECT_TRUE(has_line(w,
                       "PyTorch's reserved memory on GPU 0 grew by 1.00 GB before the timed loop, from 0 bytes at its "
                       "first sample to 1.00 GB; inside warm-up ranges (before and during the timed loop) it grew by "
                       "500.00 MB; in the rest of the timed loop it did not grow (counter \"reserved by PyTorch "
                       "(bytes)\")."))
      << ::testing::PrintToString(w.lines);
  EXPECT_EQ(w.headline.find("still grew"), std::string::npos);
}

// Profiler steps on thread 1, [0,5) ms and [10,15) ms; thread 1 launches 1 ms of forward work in each, and the
// autograd engine (thread 2) launches the backward: 3 ms in the first step, 1 ms in the second. The steps' GPU time
// is the whole process's: 4 ms against 2 ms (2.00x), and the sentence says it counts every thread's work.
TEST(WarmUp, ProfilerStepsCountTheGpuWorkOfTheirWholeProcess) {
  TraceBuilder b;
  for (int i = 0; i < 2; ++i) {
    const TimeNs s = i * 10 * ms;
    host_call(b, 1, 1, "ProfilerStep#" + std::to_string(i), s, 5 * ms, EventKind::Annotation);
    api(b, "cudaLaunchKernel", s + 100 * us, 5 * us, 2 * i + 1);
    kernel(b, 0, 7, "forward", s + 200 * us, 1 * ms, 2 * i + 1);
    api(b, "cudaLaunchKernel", s + 1300 * us, 5 * us, 2 * i + 2, EventKind::Runtime, 2);
    kernel(b, 0, 7, "backward", s + 1400 * us, (i == 0 ? 3 : 1) * ms, 2 * i + 2);
  }
  const WarmUp w = analyze_warmup(build(b));
  ASSERT_EQ(w.iterations.size(), 1u);
  EXPECT_TRUE(w.iterations[0].whole_process);
  EXPECT_EQ(w.iterations[0].first_gpu_ns, 4 * ms);
  EXPECT_EQ(w.iterations[0].steady_gpu_median_ns, 2 * ms);
  EXPECT_TRUE(has_line(w,
                       "Profiler steps (the ProfilerStep ranges of thread 1), counting the GPU work any thread of its "
                       "process launched inside them: the first iteration's GPU work paid warm-up. The first one's "
                       "GPU work took 4.00 ms against 2.00 ms for the later one (2.00x); in wall time (each iteration "
                       "ends after its GPU work) the first took 5.00 ms against 5.00 ms for the later one (1.00x)."))
      << ::testing::PrintToString(w.lines);
  for (const std::string& line : w.lines) EXPECT_EQ(line.find("Thread 1, "), std::string::npos) << line;
}

TEST(WarmUp, WithoutATimedLoopMemoryIsComparedAfterTheFirstIteration) {
  TraceBuilder b;
  for (int i = 0; i < 3; ++i) {
    const TimeNs s = i * 10 * ms;
    host_call(b, 1, 1, "ProfilerStep#" + std::to_string(i), s, 5 * ms, EventKind::Annotation);
    api(b, "cudaLaunchKernel", s + 100 * us, 5 * us, i + 1);
    kernel(b, 0, 7, "k", s + 200 * us, 1 * ms, i + 1);
  }
  samples(b, 0, kReserved, {{1 * ms, 2e6}, {2 * ms, 22e6}, {12 * ms, 22e6}, {40 * ms, 30e6}});  // 40 ms: after the loop
  samples(b, 1, kReserved, {{1 * ms, 2e6}});  // no GPU 1 in this trace: not a GPU's series
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.memory.size(), 1u);
  EXPECT_EQ(w.memory[0].steady_name, "the profiler steps after the first");
  EXPECT_EQ(w.memory[0].steady_start_ns, 5 * ms);
  EXPECT_EQ(w.memory[0].steady_end_ns, 25 * ms);
  EXPECT_DOUBLE_EQ(w.memory[0].before_growth_bytes, 20e6);
  EXPECT_DOUBLE_EQ(w.memory[0].steady_growth_bytes, 0.0);
  EXPECT_FALSE(w.memory[0].has_warmup_ranges);
  // No first-use calls here, but the counter grew: the no-warm-up sentence would contradict it.
  ASSERT_FALSE(w.lines.empty());
  EXPECT_NE(w.lines[0], kNoWarmUp);
  EXPECT_TRUE(has_line(w,
                       "PyTorch's reserved memory on GPU 0 grew by 20.00 MB before the profiler steps after the first, "
                       "from 2.00 MB at its first sample to 22.00 MB, and did not grow in the profiler steps after the "
                       "first (counter \"reserved by PyTorch (bytes)\")."))
      << ::testing::PrintToString(w.lines);
  EXPECT_NE(w.headline, kNoWarmUp);
}

TEST(WarmUp, ReportCarriesFindingsInTextAndJson) {
  TraceBuilder b;
  api(b, "cudaDeviceGetStreamPriorityRange", 0, 100 * ms);
  api(b, "cudaMalloc", 101 * ms, 1 * ms);
  launch(b, "k", 0, 110 * ms, 5 * us, 1);
  const Trace t = build(b);
  const Report r = analyze(t);
  const std::string text = format_report(r, Format::Text);
  EXPECT_NE(text.find("context creation"), std::string::npos);
  EXPECT_NE(text.find("cudaDeviceGetStreamPriorityRange"), std::string::npos);
  const std::string json = format_report(r, Format::Json);
  for (const char* key :
       {"\"warmup\"", "\"findings\"", "\"cause\"", "\"context_creation\"", "\"allocator_growth\"", "\"spans\"",
        "\"start_ns\"", "\"cost_ns\"", "\"host_cost_ns\"", "\"headline\"", "\"iterations\"", "\"causes\""})
    EXPECT_NE(json.find(key), std::string::npos) << key;
}

}  // namespace gtv::analysis

namespace gtv::analysis {

// Two timed steps [0, 10) and [80, 90) ms; between them a 50 ms cudaSetDevice creates the second GPU's context. It
// lies on the critical path of the span of the measurements, but in neither measurement: without it the span would
// be shorter, no measurement would.
TEST(WarmUp, FirstUseBetweenMeasurementsShortensNoMeasurement) {
  TraceBuilder b;
  for (const TimeNs s : {TimeNs{0}, 80 * ms}) {
    launch(b, "k", 0, s + 1 * ms, 5 * us, std::uint64_t(s + 1), 7 * ms);
    api(b, "cudaDeviceSynchronize", s + 2 * ms, 6 * ms + 100 * us);
    b.add_measurement({"step", MeasurementMethod::StopwatchSync, 10 * ms, s, s + 10 * ms, 1, 1});
  }
  api(b, "cudaSetDevice", 20 * ms, 50 * ms);
  const Trace t = build(b);
  const Report r = analyze(t);
  ASSERT_EQ(r.critical.region.name, "the span of the step");
  const auto& lines = r.critical.lines;
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "First-use calls (warm-up) took 50.0 ms of the critical path of the span of the step, all of it "
                      "between the measurements: no measurement would take less time without them."),
            lines.end())
      << ::testing::PrintToString(lines);
  for (const std::string& line : lines) EXPECT_EQ(line.find("Without first-use calls"), std::string::npos) << line;
  EXPECT_EQ(r.critical.headline.find("first-use"), std::string::npos) << r.critical.headline;
}

}  // namespace gtv::analysis
