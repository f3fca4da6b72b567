#pragma once
// The oracle: the headline numbers of `gtv-cli analyze`, computed again the slow, plain way from the trace's events
// alone. It reads only the model (gtv_model) and shares no code with core/analysis or core/causal, so a bug in an
// analysis cannot hide in both. Definitions follow docs/cli.md ("analyze", "JSON keys"); each is written out below
// next to the number.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "coverage.h"
#include "gtv/model/trace.h"

namespace gtv::oracle {

// One GPU (a device index of the GPU lanes). Whole-trace numbers are inside [trace start, trace end]; region
// numbers inside the region of interest.
struct GpuNumbers {
  std::int64_t device = 0;
  std::size_t stream_count = 0;    // GPU lanes of the device
  std::size_t activity_count = 0;  // kernels, copies and memsets, any length
  std::size_t kernel_count = 0;
  TimeNs kernel_ns = 0;  // plain sum of kernel durations
  TimeNs busy_ns = 0;    // time at least one of its streams ran something
  TimeNs region_busy_ns = 0;
};

struct StreamNumbers {
  std::int64_t device = 0;
  std::int64_t stream = 0;
  std::size_t activity_count = 0;
  TimeNs busy_ns = 0;
};

// Across GPUs inside a window.
struct ConcurrencyNumbers {
  std::size_t gpu_count = 0;  // GPUs busy for some time inside the window
  TimeNs any_busy_ns = 0;     // at least one GPU busy
  TimeNs overlap_ns = 0;      // two or more GPUs busy
  TimeNs sum_busy_ns = 0;
  TimeNs ideal_ns = 0;  // the busiest GPU's busy time
  double effective_parallelism = 0;
  double overlap_share = 0;
};

// What one stopwatch really measured.
struct MeasurementNumbers {
  std::string name;
  std::string method;  // "stopwatch", "stopwatch+sync", "cuda-events", ...
  TimeNs reported_ns = 0;
  TimeNs host_start_ns = 0;
  TimeNs host_end_ns = 0;
  bool by_flows = false;
  std::size_t gpu_activity_count = 0;
  TimeNs gpu_busy_ns = 0;
  TimeNs truth_ns = 0;
  TimeNs error_ns = 0;
  double relative_error = 0;
};

struct CommunicationNumbers {
  std::int64_t device = 0;
  std::size_t communication_kernels = 0;
  TimeNs communication_ns = 0;
  TimeNs computation_ns = 0;
  TimeNs memory_ns = 0;
  TimeNs overlap_ns = 0;
  TimeNs exposed_ns = 0;
  double overlap_ratio = 0;
};

// The streams of one GPU inside a window: how much they ran at once, and copies beside kernels.
struct StreamOverlapNumbers {
  std::size_t stream_count = 0;        // streams busy for some time inside the window
  TimeNs busy_ns = 0;                  // at least one stream busy
  TimeNs stream_busy_sum_ns = 0;       // each stream's busy time, summed
  TimeNs multi_stream_ns = 0;          // two or more streams busy
  int max_busy_streams = 0;            // most streams busy at one instant
  double stream_parallelism = 0;       // stream_busy_sum / busy
  double multi_stream_share = 0;       // multi_stream / busy
  TimeNs kernel_busy_ns = 0;           // a kernel running
  TimeNs copy_busy_ns = 0;             // a copy running (memsets are neither)
  TimeNs copy_compute_overlap_ns = 0;  // a copy and a kernel running at once
};

// Host threads inside calls that launched GPU work (calls with a launch link to a kernel, copy or memset).
struct HostLaunchNumbers {
  std::size_t thread_count = 0;  // threads inside such a call for some time inside the window
  std::size_t process_count = 0;
  TimeNs launching_ns = 0;   // at least one thread inside one
  TimeNs concurrent_ns = 0;  // two or more threads at once
  int max_threads = 0;
};

struct Numbers {
  // The whole trace: the program's time, first to last recorded activity (no profiler markers: instants and
  // Kineto's span of the profile). The file's extent, markers included, apart.
  TimeNs trace_start_ns = 0;
  TimeNs trace_end_ns = 0;
  TimeNs file_start_ns = 0;
  TimeNs file_end_ns = 0;
  bool region_from_measurements = false;
  TimeNs region_start_ns = 0;
  TimeNs region_end_ns = 0;
  std::vector<GpuNumbers> gpus;  // by device
  std::vector<StreamNumbers> streams;
  ConcurrencyNumbers whole;
  ConcurrencyNumbers region;
  std::vector<MeasurementNumbers> measurements;     // in the trace's order
  std::vector<CommunicationNumbers> communication;  // GPUs that ran communication kernels, by device
  [[nodiscard]] TimeNs region_ns() const { return region_end_ns - region_start_ns; }
};

class Oracle {
 public:
  explicit Oracle(const Trace& trace);
  [[nodiscard]] const Numbers& numbers() const { return numbers_; }
  // Busy time of one GPU inside [start_ns, end_ns); 0 for a device without GPU work.
  [[nodiscard]] TimeNs busy_within(std::int64_t device, TimeNs start_ns, TimeNs end_ns) const;
  [[nodiscard]] StreamOverlapNumbers stream_overlap_within(std::int64_t device, TimeNs start_ns, TimeNs end_ns) const;
  [[nodiscard]] HostLaunchNumbers host_launch_within(TimeNs start_ns, TimeNs end_ns) const;

 private:
  void measure_gpus();
  void measure_concurrency();
  void measure_extent();
  void measure_timing();
  void measure_communication();
  void collect_launching_calls();

  const Trace& trace_;
  Numbers numbers_;
  std::map<std::int64_t, Coverage> streams_of_;  // per GPU, one group per stream
  std::map<std::int64_t, Coverage> kinds_of_;    // per GPU, group 0 kernels, 1 copies
  std::vector<std::int64_t> launching_pids_;     // per launching thread (the group of launching_)
  Coverage launching_{{}, 0};                    // launching calls, one group per host thread
};

}  // namespace gtv::oracle
