#pragma once
// Warm-up: what the first iteration cost against the steady ones, and which one-time set-up work (context
// creation, lazy module loading, cuBLAS set-up, allocator growth, stream pool, peer access) took the time,
// recognised from the API calls that do it (see docs and gpu-facts.md for the signatures).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/model/trace.h"

namespace gtv::analysis {

enum class WarmUpCause : std::uint8_t {
  ContextCreation,
  LazyModuleLoading,
  CublasSetup,
  AllocatorGrowth,
  StreamPool,
  PeerAccess,
};
inline constexpr int kWarmUpCauseCount = 6;
[[nodiscard]] std::string_view to_string(WarmUpCause cause);  // "context creation", "lazy module loading", ...

// A run of calls of one cause on one host thread, with gaps below 1 ms between them.
struct WarmUpSegment {
  WarmUpCause cause = WarmUpCause::ContextCreation;
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  TimeNs time_ns = 0;  // union of the calls' durations (nested calls count once)
  std::size_t call_count = 0;
  std::string first_call;  // name of the first call, e.g. "cudaSetDevice"
};

struct WarmUpCauseTotal {
  WarmUpCause cause = WarmUpCause::ContextCreation;
  std::size_t call_count = 0;
  std::size_t segment_count = 0;
  TimeNs time_ns = 0;
};

enum class WarmUpBasis : std::uint8_t { Ranges, KernelNames };

// First iteration against the steady ones, for one device (-1: ranges not tied to a device).
struct DeviceWarmUp {
  std::int64_t device = -1;
  WarmUpBasis basis = WarmUpBasis::Ranges;
  std::string range_name;       // name of the first iteration range (Ranges basis)
  TimeNs first_ns = 0;          // first iteration (Ranges) or first occurrences of repeated kernels (KernelNames)
  TimeNs steady_mean_ns = 0;    // mean of the later iterations / later occurrences
  std::size_t steady_count = 0; // iterations (or repeated kernel names) behind the mean
  TimeNs cold_start_ns = 0;     // first - steady mean (0 or more; what warm-up cost)
  TimeNs warmup_range_ns = 0;   // total of WarmUp ranges for this device
  double slowdown = 0;          // first / steady mean, 0 if unknown
};

struct WarmUp {
  std::vector<DeviceWarmUp> devices;      // by device
  std::vector<WarmUpSegment> segments;    // by start
  std::vector<WarmUpCauseTotal> causes;   // only causes seen, in enum order
  TimeNs segment_time_ns = 0;             // union of all segments' call time
  std::vector<std::string> findings;      // plain words
  std::string headline;  // the one finding worth a verdict line (a slow first iteration or the costliest set-up
                         // cause); empty when warm-up cost nothing notable
};

// The cause recognised from an API name alone, if any (context creation also needs the call to be long).
[[nodiscard]] bool warmup_cause_of_call(std::string_view api_name, WarmUpCause& cause);

[[nodiscard]] WarmUp analyze_warmup(const Trace& trace);

// Parts, exposed for tests.
[[nodiscard]] std::vector<WarmUpSegment> find_warmup_segments(const Trace& trace);
[[nodiscard]] std::vector<DeviceWarmUp> device_warmup(const Trace& trace);

}  // namespace gtv::analysis
