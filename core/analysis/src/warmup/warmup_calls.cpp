// First-use work on the host, recognised from the calls and overhead records that do it. Only work the steady
// state does not pay: a lookup made before every launch counts only when it serves a kernel's first launch.
#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

#include "gtv/analysis/host_blocking.h"
#include "gtv/analysis/intervals.h"
#include "report/record_names.h"
#include "warmup/warmup_parts.h"

namespace gtv::analysis {
namespace {

using detail::FirstKernelRuns;
using detail::is_loading_record;
using detail::starts_with;

// Creating a context takes ~100 ms (125 ms inside cudaDeviceGetStreamPriorityRange on an H200); the same calls
// take microseconds once it exists, so 10 ms separates the two with room on both sides.
constexpr TimeNs kContextCreationMinNs = 10 * kNsPerMs;
// A launch returns in microseconds; one that blocks for a millisecond or more on a kernel's first run waited
// for the driver to load the kernel's module (57 ms for a copy kernel on an H200).
constexpr TimeNs kSlowLaunchMinNs = 1 * kNsPerMs;

// What a name says about warm-up, before looking at durations or at the launch a call serves.
enum class CallClass : std::uint8_t {
  None,
  ContextCall,    // creates a context when it is the first on a device: counts only when long
  FreeOrContext,  // cudaFree: cudaFree(0) creates the context before any launch; later a long one waits
  ModuleLoad,     // loads a module: always first use
  KernelLookup,   // made before every launch: counts only for a kernel's first launch
  LibrarySetup,
  Allocator,
  StreamPool,
  PeerAccess,
  Wait,             // synchronization or copy: long for reasons of its own, never context creation
  LoadingOverhead,  // CUPTI's record of module / lazy function loading
};

bool is_context_call(std::string_view n) {
  static constexpr std::array<std::string_view, 5> kNames{"cudaSetDevice", "cudaInitDevice", "cuInit",
                                                          "cuDevicePrimaryCtxRetain", "cudaGetDeviceCount"};
  return std::find(kNames.begin(), kNames.end(), n) != kNames.end() || starts_with(n, "cuCtxCreate");
}

bool is_kernel_lookup(std::string_view n) {
  return n == "cuKernelGetFunction" || n == "cuLibraryGetKernel" || n == "cuModuleGetFunction" ||
         n == "cuLibraryGetModule";
}

CallClass classify_name(std::string_view n) {
  if (is_kernel_lookup(n)) return CallClass::KernelLookup;
  if (is_context_call(n)) return CallClass::ContextCall;
  if (n == "cudaFree") return CallClass::FreeOrContext;
  WarmUpCause cause{};
  if (warmup_cause_of_call(n, cause)) {
    switch (cause) {
      case WarmUpCause::ModuleLoading:
        return is_loading_record(n) ? CallClass::LoadingOverhead : CallClass::ModuleLoad;
      case WarmUpCause::LibrarySetup:
        return CallClass::LibrarySetup;
      case WarmUpCause::AllocatorGrowth:
        return CallClass::Allocator;
      case WarmUpCause::StreamPool:
        return CallClass::StreamPool;
      case WarmUpCause::PeerAccess:
        return CallClass::PeerAccess;
      default:
        return CallClass::None;
    }
  }
  BlockingKind waits{};
  if (blocking_kind_of_call(n, waits) || is_async_copy_call(n)) return CallClass::Wait;
  return CallClass::None;
}

// The class per interned name, computed once: a million events need only as many string checks as names.
class NameClasses {
 public:
  explicit NameClasses(const Trace& trace) : trace_(trace), table_(trace.strings().size(), kUnknown) {}
  CallClass of(StringId id) {
    if (table_[id] == kUnknown) table_[id] = static_cast<std::uint8_t>(classify_name(trace_.strings().view(id)));
    return static_cast<CallClass>(table_[id]);
  }

 private:
  static constexpr std::uint8_t kUnknown = 0xff;
  const Trace& trace_;
  std::vector<std::uint8_t> table_;
};

// Start of each process's first launch: before it, a long unexplained call is the context being created.
std::map<std::int64_t, TimeNs> first_launch_per_process(const Trace& trace, const detail::LaneLaunches& launches) {
  std::map<std::int64_t, TimeNs> out;
  for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
    if (launches.all[l].empty()) continue;
    const TimeNs start = trace.lane(l).events[launches.all[l].front().index].start_ns;
    auto [it, inserted] = out.try_emplace(trace.lane(l).key.pid, start);
    if (!inserted) it->second = std::min(it->second, start);
  }
  return out;
}

// Kineto writes CUPTI's overhead records (its loading records among them) under this pid, apart from every
// process: such a record may belong to any process whose call it lies in.
constexpr std::int64_t kKinetoOverheadPid = -1;

// Module loading each process did, on any of its threads (CUPTI's loading records, cuLibraryLoadData...), merged:
// a long call that overlaps it was waiting for that load, not creating a context.
class ProcessLoading {
 public:
  ProcessLoading(const Trace& trace, NameClasses& names) {
    for (const Lane& lane : trace.lanes()) {
      if (lane.is_gpu()) continue;
      for (const Event& e : lane.events) {
        const CallClass c = names.of(e.name);
        if (c == CallClass::LoadingOverhead || c == CallClass::ModuleLoad)
          by_pid_[lane.key.pid].push_back({e.start_ns, e.end_ns()});
      }
    }
    for (auto& [pid, spans] : by_pid_) merge_in_place(spans);
  }
  // Whether loading covered at least half of [start_ns, end_ns) on another thread of the process, or a loading
  // record began inside it: a call that holds CUPTI's "Runtime Triggered Module Loading" record (a
  // cudaFuncGetAttributes of 38 ms at the start of a PyTorch recording) loaded a module in a context that existed.
  [[nodiscard]] bool explains(std::int64_t pid, TimeNs start_ns, TimeNs end_ns) const {
    if (end_ns <= start_ns) return false;
    std::vector<Interval> spans;
    const std::array<std::int64_t, 2> pids{pid, kKinetoOverheadPid};
    for (std::size_t i = 0; i < (pid == kKinetoOverheadPid ? 1U : 2U); ++i) {
      const auto it = by_pid_.find(pids[i]);
      if (it == by_pid_.end()) continue;
      for (const Interval& iv : it->second)
        if (iv.start_ns >= start_ns && iv.start_ns < end_ns) return true;
      spans.insert(spans.end(), it->second.begin(), it->second.end());
    }
    return 2 * length_within_ns(merged(std::move(spans)), start_ns, end_ns) >= end_ns - start_ns;
  }

 private:
  std::map<std::int64_t, std::vector<Interval>> by_pid_;
};

// Walks one host lane in start order and feeds first-use calls to a grower.
class LaneWalk {
 public:
  LaneWalk(const Trace& trace, LaneIndex lane, const detail::LaneLaunches& launches, NameClasses& names,
           FirstKernelRuns& first_runs, TimeNs first_launch_ns, const ProcessLoading& loading)
      : trace_(trace),
        loading_(loading),
        lane_(trace.lane(lane)),
        all_(launches.all[lane]),
        kernels_(launches.kernels[lane]),
        names_(names),
        first_runs_(first_runs),
        first_launch_ns_(first_launch_ns),
        grower_(lane_.key.pid, lane_.key.tid, false) {}

  void run(std::vector<WarmUpFinding>& out) {
    for (std::uint32_t i = 0; i < lane_.events.size(); ++i) visit(i);
    grower_.close_all(out);
  }

 private:
  void visit(std::uint32_t i) {
    const Event& e = lane_.events[i];
    const bool api = e.kind == EventKind::Runtime || e.kind == EventKind::Driver;
    if (!api && e.kind != EventKind::Overhead) return;
    while (next_all_ < all_.size() && all_[next_all_].index < i) ++next_all_;
    while (next_kernel_ < kernels_.size() && kernels_[next_kernel_].index < i) ++next_kernel_;
    const CallClass c = names_.of(e.name);
    if (e.kind == EventKind::Overhead) {
      if (c == CallClass::LoadingOverhead) add(WarmUpCause::ModuleLoading, e, device_of(e));
      return;
    }
    if (auto cause = cause_of_api_call(i, e, c)) add(*cause, e, device_of(e));
  }

  std::optional<WarmUpCause> cause_of_api_call(std::uint32_t i, const Event& e, CallClass c) {
    switch (c) {
      case CallClass::ContextCall:
        if (e.duration_ns >= kContextCreationMinNs) return WarmUpCause::ContextCreation;
        return std::nullopt;
      case CallClass::FreeOrContext:
        return long_call_before_first_launch(e);
      case CallClass::ModuleLoad:
        return WarmUpCause::ModuleLoading;
      case CallClass::KernelLookup:
        if (const auto k = served_kernel(e); k && first_runs_.is_first_run(*k)) return WarmUpCause::ModuleLoading;
        return std::nullopt;
      case CallClass::LibrarySetup:
        return WarmUpCause::LibrarySetup;
      case CallClass::Allocator:
        // A workspace allocation right after a library's set-up calls belongs to that set-up.
        if (grower_.open_near(WarmUpCause::LibrarySetup, device_of(e), e.start_ns)) return WarmUpCause::LibrarySetup;
        return WarmUpCause::AllocatorGrowth;
      case CallClass::StreamPool:
        return WarmUpCause::StreamPool;
      case CallClass::PeerAccess:
        return WarmUpCause::PeerAccess;
      case CallClass::Wait:
      case CallClass::LoadingOverhead:
        return std::nullopt;
      case CallClass::None:
        break;
    }
    if (e.duration_ns >= kSlowLaunchMinNs && is_kernel_launch(i) && launch_loaded_module(i, e))
      return WarmUpCause::ModuleLoading;
    return long_call_before_first_launch(e);
  }

  // A long call before the process's first launch creates the context, unless module loading on another thread
  // covers it: then it waited for that load (counting it as context creation too would count the time twice).
  [[nodiscard]] std::optional<WarmUpCause> long_call_before_first_launch(const Event& e) const {
    if (e.duration_ns < kContextCreationMinNs || e.start_ns >= first_launch_ns_) return std::nullopt;
    if (loading_.explains(lane_.key.pid, e.start_ns, e.end_ns())) return WarmUpCause::ModuleLoading;
    return WarmUpCause::ContextCreation;
  }

  [[nodiscard]] bool is_kernel_launch(std::uint32_t i) const {
    return next_kernel_ < kernels_.size() && kernels_[next_kernel_].index == i;
  }

  // A slow launch waited for module loading when it launched the kernel's first run on its device, or when
  // CUPTI recorded lazy loading inside it.
  bool launch_loaded_module(std::uint32_t i, const Event& e) {
    if (first_runs_.is_first_run(kernels_[next_kernel_].to)) return true;
    for (std::uint32_t j = i + 1; j < lane_.events.size() && lane_.events[j].start_ns < e.end_ns(); ++j)
      if (lane_.events[j].kind == EventKind::Overhead && names_.of(lane_.events[j].name) == CallClass::LoadingOverhead)
        return true;
    return false;
  }

  // The kernel a lookup serves: the launch it is nested in, else the next kernel launch on this thread.
  [[nodiscard]] std::optional<EventRef> served_kernel(const Event& e) const {
    if (next_kernel_ > 0 && lane_.events[kernels_[next_kernel_ - 1].index].end_ns() >= e.end_ns())
      return kernels_[next_kernel_ - 1].to;
    if (next_kernel_ < kernels_.size()) return kernels_[next_kernel_].to;
    return std::nullopt;
  }

  // The GPU a call was for: that of the launch it is nested in, else of the next launch on this thread.
  [[nodiscard]] std::int64_t device_of(const Event& e) const {
    if (next_all_ > 0 && lane_.events[all_[next_all_ - 1].index].end_ns() >= e.end_ns())
      return trace_.lane(all_[next_all_ - 1].to.lane).device();
    if (next_all_ < all_.size()) return trace_.lane(all_[next_all_].to.lane).device();
    return -1;
  }

  void add(WarmUpCause cause, const Event& e, std::int64_t device) {
    grower_.add(cause, device, e.start_ns, e.end_ns(), trace_.name(e));
  }

  const Trace& trace_;
  const ProcessLoading& loading_;
  const Lane& lane_;
  const std::vector<detail::LaunchLink>& all_;
  const std::vector<detail::LaunchLink>& kernels_;
  NameClasses& names_;
  FirstKernelRuns& first_runs_;
  TimeNs first_launch_ns_;
  detail::FindingGrower grower_;
  std::size_t next_all_ = 0;     // first launch at or after the current event
  std::size_t next_kernel_ = 0;  // first kernel launch at or after the current event
};

}  // namespace

bool warmup_cause_of_call(std::string_view n, WarmUpCause& cause) {
  auto is = [&](WarmUpCause c) { return cause = c, true; };
  if (is_module_load_call(n) || is_loading_record(n)) return is(WarmUpCause::ModuleLoading);
  if (starts_with(n, "cuGetProcAddress") || starts_with(n, "cudaGetDriverEntryPoint") ||
      starts_with(n, "cublasCreate") || starts_with(n, "cublasLtCreate") || starts_with(n, "cudnnCreate"))
    return is(WarmUpCause::LibrarySetup);
  // Stream-ordered allocations (cudaMallocAsync) come from a pool on every iteration: steady, not growth.
  if ((starts_with(n, "cudaMalloc") && !starts_with(n, "cudaMallocAsync") && !starts_with(n, "cudaMallocFromPool")) ||
      (starts_with(n, "cuMemAlloc") && !starts_with(n, "cuMemAllocAsync") && !starts_with(n, "cuMemAllocFromPool")) ||
      n == "cudaHostAlloc" || starts_with(n, "cuMemHostAlloc") || n == "cuMemCreate" || n == "cuMemMap" ||
      starts_with(n, "cuMemAddressReserve"))
    return is(WarmUpCause::AllocatorGrowth);
  if (starts_with(n, "cudaStreamCreate") || starts_with(n, "cuStreamCreate")) return is(WarmUpCause::StreamPool);
  if (n == "cudaDeviceEnablePeerAccess" || n == "cuCtxEnablePeerAccess") return is(WarmUpCause::PeerAccess);
  return false;
}

namespace detail {

std::vector<WarmUpFinding> find_first_use_calls(const Trace& trace, const LaneLaunches& launches) {
  std::vector<WarmUpFinding> out;
  NameClasses names(trace);
  FirstKernelRuns first_runs(trace);
  const ProcessLoading loading(trace, names);
  const auto first_launch = first_launch_per_process(trace, launches);
  for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
    const Lane& lane = trace.lane(l);
    if (lane.is_gpu()) continue;
    const auto it = first_launch.find(lane.key.pid);
    const TimeNs first_launch_ns = it == first_launch.end() ? std::numeric_limits<TimeNs>::max() : it->second;
    LaneWalk(trace, l, launches, names, first_runs, first_launch_ns, loading).run(out);
  }
  return out;
}

}  // namespace detail
}  // namespace gtv::analysis
