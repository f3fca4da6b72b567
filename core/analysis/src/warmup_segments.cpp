// Recognises one-time set-up work from the API calls that do it and groups the calls into segments.
#include <algorithm>
#include <array>
#include <optional>
#include <unordered_map>

#include "gtv/analysis/host_blocking.h"
#include "gtv/analysis/warmup.h"

namespace gtv::analysis {
namespace {

// Context creation hides in the first runtime call on a device and takes ~100 ms; 10 ms separates it from the
// same calls once the context exists (microseconds).
constexpr TimeNs kContextCreationMinNs = 10 * kNsPerMs;
// A launch this slow for a kernel's first run is the driver loading its module lazily.
constexpr TimeNs kSlowFirstLaunchMinNs = 1 * kNsPerMs;
// Calls of one cause closer than this form one segment.
constexpr TimeNs kSegmentGapNs = 1 * kNsPerMs;

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool is_context_call(std::string_view name) {
  static constexpr std::array<std::string_view, 8> kNames{
      "cudaSetDevice", "cudaFree",       "cudaGetDeviceCount",       "cudaInitDevice",
      "cuInit",        "cuCtxCreate",    "cuCtxCreate_v2",           "cuDevicePrimaryCtxRetain"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

bool is_launch_call(std::string_view name) { return starts_with(name, "cudaLaunch") || starts_with(name, "cuLaunch"); }

// The cause for an Overhead event: CUPTI reports lazy function/module loading as overhead; buffer requests and
// instrumentation are the tracer's own cost, not warm-up.
bool is_lazy_loading_overhead(std::string_view name) {
  return name.find("Lazy") != std::string_view::npos || name.find("Module Load") != std::string_view::npos ||
         name.find("Function Load") != std::string_view::npos;
}

struct Classified {
  WarmUpCause cause;
  const Event* event;
};

// Caches the name-based cause per interned name: a million events need only a few thousand string checks.
class NameCauses {
 public:
  explicit NameCauses(const Trace& trace) : trace_(trace), table_(trace.strings().size(), kUnknown) {}
  std::optional<WarmUpCause> of(StringId id) {
    if (table_[id] == kUnknown) {
      WarmUpCause cause{};
      table_[id] = warmup_cause_of_call(trace_.strings().view(id), cause) ? static_cast<std::int8_t>(cause) : kNone;
    }
    if (table_[id] == kNone) return std::nullopt;
    return static_cast<WarmUpCause>(table_[id]);
  }

 private:
  static constexpr std::int8_t kUnknown = -2, kNone = -1;
  const Trace& trace_;
  std::vector<std::int8_t> table_;
};

// First start of each kernel name per device, built only when a slow launch needs it.
class FirstKernelRuns {
 public:
  explicit FirstKernelRuns(const Trace& trace) : trace_(trace) {}
  bool is_first_run(EventRef kernel_ref) {
    if (!built_) build();
    const Event& k = trace_.event(kernel_ref);
    const auto it = first_.find(key(trace_.lane(kernel_ref.lane).device(), k.name));
    return it != first_.end() && it->second == k.start_ns;
  }

 private:
  static std::uint64_t key(std::int64_t device, StringId name) {
    return (static_cast<std::uint64_t>(device) << 32) ^ name;
  }
  void build() {
    built_ = true;
    for (const Lane& lane : trace_.lanes()) {
      if (!lane.is_gpu()) continue;
      for (const Event& e : lane.events) {
        if (e.kind != EventKind::Kernel) continue;
        auto [it, inserted] = first_.try_emplace(key(lane.device(), e.name), e.start_ns);
        if (!inserted) it->second = std::min(it->second, e.start_ns);
      }
    }
  }
  const Trace& trace_;
  bool built_ = false;
  std::unordered_map<std::uint64_t, TimeNs> first_;
};

struct LaneClassifier {
  const Trace& trace;
  NameCauses& names;
  FirstKernelRuns& first_runs;

  std::optional<WarmUpCause> classify(const Event& e, EventRef ref, bool first_api_call_of_process) {
    if (e.kind == EventKind::Overhead)
      return is_lazy_loading_overhead(trace.name(e)) ? std::optional(WarmUpCause::LazyModuleLoading) : std::nullopt;
    if (e.kind != EventKind::Runtime && e.kind != EventKind::Driver) return std::nullopt;
    const std::string_view name = trace.name(e);
    const bool long_call = e.duration_ns >= kContextCreationMinNs;
    // A long first call is context creation, unless it is a wait or copy that is long for its own reasons.
    BlockingKind waits{};
    if (long_call && first_api_call_of_process && !blocking_kind_of_call(name, waits) && !is_async_copy_call(name))
      return WarmUpCause::ContextCreation;
    if (long_call && is_context_call(name)) return WarmUpCause::ContextCreation;
    if (is_context_call(name)) return std::nullopt;  // short: the context already existed
    if (auto cause = names.of(e.name)) return cause;
    if (e.duration_ns >= kSlowFirstLaunchMinNs && is_launch_call(name)) {
      if (auto flow = trace.flow_of(ref); flow && flow->from == ref && first_runs.is_first_run(flow->to))
        return WarmUpCause::LazyModuleLoading;
    }
    return std::nullopt;
  }
};

// Grows segments per cause on one lane; events arrive in start order.
struct SegmentGrower {
  std::array<std::optional<WarmUpSegment>, kWarmUpCauseCount> open;
  std::vector<WarmUpSegment>& out;

  void add(WarmUpCause cause, const Event& e, std::string_view name, const LaneKey& key) {
    // A workspace allocation right after cuBLAS looked up its entry points belongs to the cuBLAS set-up.
    auto& cublas = open[static_cast<std::size_t>(WarmUpCause::CublasSetup)];
    if (cause == WarmUpCause::AllocatorGrowth && cublas && e.start_ns - cublas->end_ns <= kSegmentGapNs)
      cause = WarmUpCause::CublasSetup;
    auto& seg = open[static_cast<std::size_t>(cause)];
    if (seg && e.start_ns - seg->end_ns > kSegmentGapNs) close(cause);
    if (!seg) {
      seg = WarmUpSegment{cause, key.pid, key.tid, e.start_ns, e.start_ns, 0, 0, std::string(name)};
    }
    if (e.end_ns() > seg->end_ns) seg->time_ns += e.end_ns() - std::max(seg->end_ns, e.start_ns);
    seg->end_ns = std::max(seg->end_ns, e.end_ns());
    ++seg->call_count;
  }
  void close(WarmUpCause cause) {
    auto& seg = open[static_cast<std::size_t>(cause)];
    if (seg) out.push_back(std::move(*seg));
    seg.reset();
  }
  void close_all() {
    for (int c = 0; c < kWarmUpCauseCount; ++c) close(static_cast<WarmUpCause>(c));
  }
};

}  // namespace

bool warmup_cause_of_call(std::string_view n, WarmUpCause& cause) {
  auto is = [&](WarmUpCause c) { return cause = c, true; };
  if (starts_with(n, "cuLibraryLoad") || n == "cuLibraryGetKernel" || n == "cuLibraryGetModule" ||
      n == "cuKernelGetFunction" || starts_with(n, "cuModuleLoad") || n == "cuModuleGetFunction")
    return is(WarmUpCause::LazyModuleLoading);
  if (starts_with(n, "cuGetProcAddress") || starts_with(n, "cudaGetDriverEntryPoint") ||
      starts_with(n, "cublasCreate") || starts_with(n, "cublasLtCreate"))
    return is(WarmUpCause::CublasSetup);
  if (starts_with(n, "cudaMalloc") || starts_with(n, "cuMemAlloc") || n == "cudaHostAlloc" ||
      starts_with(n, "cuMemHostAlloc") || n == "cuMemCreate" || n == "cuMemMap" || starts_with(n, "cuMemAddressReserve"))
    return is(WarmUpCause::AllocatorGrowth);
  if (starts_with(n, "cudaStreamCreate") || starts_with(n, "cuStreamCreate")) return is(WarmUpCause::StreamPool);
  if (n == "cudaDeviceEnablePeerAccess" || n == "cuCtxEnablePeerAccess") return is(WarmUpCause::PeerAccess);
  return false;
}

std::vector<WarmUpSegment> find_warmup_segments(const Trace& trace) {
  std::vector<WarmUpSegment> out;
  NameCauses names(trace);
  FirstKernelRuns first_runs(trace);
  LaneClassifier classifier{trace, names, first_runs};
  std::unordered_map<std::int64_t, TimeNs> first_api_start;  // per process: start of its first API call
  for (const Lane& lane : trace.lanes()) {
    if (lane.is_gpu()) continue;
    for (const Event& e : lane.events) {
      if (e.kind != EventKind::Runtime && e.kind != EventKind::Driver) continue;
      auto [it, inserted] = first_api_start.try_emplace(lane.key.pid, e.start_ns);
      if (!inserted) it->second = std::min(it->second, e.start_ns);
      break;  // events are in start order: the lane's first API call is its earliest
    }
  }
  for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
    const Lane& lane = trace.lane(l);
    if (lane.is_gpu()) continue;
    SegmentGrower grower{{}, out};
    const TimeNs first_start = first_api_start.count(lane.key.pid) ? first_api_start[lane.key.pid] : -1;
    for (std::uint32_t i = 0; i < lane.events.size(); ++i) {
      const Event& e = lane.events[i];
      const auto cause = classifier.classify(e, EventRef{l, i}, e.start_ns == first_start);
      if (cause) grower.add(*cause, e, trace.name(e), lane.key);
    }
    grower.close_all();
  }
  std::sort(out.begin(), out.end(), [](const WarmUpSegment& a, const WarmUpSegment& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    if (a.pid != b.pid) return a.pid < b.pid;
    if (a.tid != b.tid) return a.tid < b.tid;
    return a.cause < b.cause;
  });
  return out;
}

}  // namespace gtv::analysis
