#pragma once
// Did the streams of one GPU run at the same time? Per GPU, a sweep over its streams' busy intervals: the time
// two or more streams were busy, stream parallelism (the sum of per-stream busy time over the GPU's busy time:
// 1.00 when one stream ran at a time), and the time a copy ran while a kernel ran (copy/compute overlap). On the
// host, the time two or more threads were inside calls that launched GPU work at once.
#include <cstdint>
#include <vector>

#include "gtv/analysis/intervals.h"
#include "gtv/model/trace.h"

namespace gtv::analysis {

// How many streams of one GPU were busy from start_ns to end_ns.
struct StreamLevelStep {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int busy_streams = 0;
  friend bool operator==(const StreamLevelStep&, const StreamLevelStep&) = default;
};

struct GpuStreamOverlap {
  std::int64_t device = 0;
  std::size_t stream_count = 0;        // streams with busy time in the window
  std::int64_t busiest_stream = -1;    // the stream with the most busy time in the window
  TimeNs busy_ns = 0;                  // union of the GPU's kernels, copies and memsets
  TimeNs stream_busy_sum_ns = 0;       // sum over streams of each stream's busy time
  TimeNs multi_stream_ns = 0;          // time with 2+ streams busy
  int max_busy_streams = 0;            // most streams busy at one instant
  double stream_parallelism = 0;       // stream_busy_sum / busy; 1.0 = one stream at a time; 0 without busy time
  double multi_stream_share = 0;       // multi_stream / busy
  TimeNs kernel_busy_ns = 0;           // union of the GPU's kernels
  TimeNs copy_busy_ns = 0;             // union of the GPU's copies (memsets are neither copy nor kernel here)
  TimeNs copy_compute_overlap_ns = 0;  // a copy and a kernel both running
  std::size_t step_count = 0;          // steps of stream_level_steps for this GPU and window
  // Communication kernels (NCCL) run while they wait for peer ranks, spinning on the GPU: beside the figures
  // above, the same without them. communication_busy_ns: union of the GPU's communication kernels (0: none).
  TimeNs communication_busy_ns = 0;
  TimeNs computation_busy_ns = 0;             // union of everything else on the GPU
  TimeNs computation_stream_busy_sum_ns = 0;  // sum over streams of each stream's busy time without them
  double computation_stream_parallelism = 0;  // computation_stream_busy_sum / computation_busy
};

struct HostLaunchOverlap {
  std::size_t thread_count = 0;   // host threads with a launching call in the window
  std::size_t process_count = 0;  // processes of those threads
  TimeNs launching_ns = 0;        // union over threads of the time inside launching calls
  TimeNs concurrent_ns = 0;       // time with 2+ threads inside launching calls
  int max_threads = 0;            // most threads inside launching calls at one instant
};

struct StreamOverlap {
  TimeNs window_start_ns = 0;
  TimeNs window_end_ns = 0;
  std::vector<GpuStreamOverlap> gpus;  // by device; only GPUs busy in the window
  HostLaunchOverlap host;
  // Across GPUs, computation alone (communication kernels left out): the sum of each GPU's computation busy time
  // and their union; all 0 when no GPU ran communication kernels (then nothing differs).
  TimeNs computation_sum_busy_ns = 0;
  TimeNs computation_any_busy_ns = 0;
  std::size_t computation_gpu_count = 0;
  bool communication = false;  // some GPU ran communication kernels in the window
  [[nodiscard]] bool has_communication() const { return communication; }
  [[nodiscard]] double computation_effective_parallelism() const;
  [[nodiscard]] const GpuStreamOverlap* gpu(std::int64_t device) const;
};

// Each GPU stream's busy, kernel and copy intervals and each host thread's launching calls, merged once, so
// several windows can be measured without reading the trace again.
struct StreamActivity {
  struct Stream {
    std::int64_t device = 0;
    std::int64_t stream = 0;
    std::vector<Interval> busy;         // kernels, copies and memsets
    std::vector<Interval> kernels;      // kernels only
    std::vector<Interval> copies;       // copies only
    std::vector<Interval> computation;  // everything but communication kernels
    bool communication = false;         // ran a communication kernel
  };
  struct Thread {
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    std::vector<Interval> launching;  // host API calls with a launch flow to GPU work
  };
  std::vector<Stream> streams;  // by device, then stream
  std::vector<Thread> threads;  // by pid, then tid; only threads that launched GPU work
};

[[nodiscard]] StreamActivity collect_stream_activity(const Trace& trace);
// Inside [start_ns, end_ns): every interval is clipped to the window.
[[nodiscard]] StreamOverlap stream_overlap_within(const StreamActivity& activity, TimeNs start_ns, TimeNs end_ns);
// Over the whole trace span.
[[nodiscard]] StreamOverlap analyze_stream_overlap(const Trace& trace);
// How many streams of `device` were busy at each instant of [start_ns, end_ns), from its first busy instant there to
// its last; neighbours always differ in busy_streams.
[[nodiscard]] std::vector<StreamLevelStep> stream_level_steps(const StreamActivity& activity, std::int64_t device,
                                                              TimeNs start_ns, TimeNs end_ns);

// The streams of a trace's one GPU, busy step by step over the whole trace (the timeline's busy strip counts streams
// when there is one GPU: whether they overlapped is the question it can answer).
struct SingleGpuStreams {
  std::int64_t device = -1;
  int streams = 0;  // streams of that GPU with busy time
  std::vector<StreamLevelStep> steps;
};
// Kept for a single GPU of up to this many GPU events: about 24 bytes a step and at most two steps an event, so
// the report never holds more than about 100 MB of them (a trace of 10 million kernels would take hundreds).
inline constexpr std::size_t kMaxStreamStepEvents = 2'000'000;
// Empty (no steps) unless the trace's busy time is on exactly one GPU (`gpu_count`) of at most kMaxStreamStepEvents
// GPU events.
[[nodiscard]] SingleGpuStreams single_gpu_streams(const Trace& trace, const StreamActivity& activity,
                                                  std::size_t gpu_count);

}  // namespace gtv::analysis
