#pragma once
// What a trace holds besides lanes of events: flows, ranges, measurements, devices, processes, counters and
// metadata. All are plain values.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gtv/model/lane.h"

namespace gtv {

// Where one event sits: lane and index in that lane's events.
struct EventRef {
  LaneIndex lane = 0;
  std::uint32_t index = 0;
  friend bool operator==(const EventRef&, const EventRef&) = default;
};

// A link between two events: a launch on a host lane joined to the GPU activity it caused (CUPTI correlation id,
// Kineto "ac2g" flow), a forward op to its backward op, or GPU work to what waited for it.
enum class FlowKind : std::uint8_t {
  LaunchToGpu,        // host API call -> its GPU work (Trace::flows)
  ForwardToBackward,  // a forward op -> its backward op (Kineto "fwdbwd", Trace::backward_links)
  Dependency,         // the GPU work a synchronization waited for -> the GPU work held by a stream wait, or the
                      // host Sync event that blocked (Trace::dependencies; the rule is in trace_builder.h)
};

struct Flow {
  std::uint64_t correlation_id = 0;  // ForwardToBackward: the id of the file's flow; Dependency: the correlation
                                     // id of the waiting call (cudaStreamWaitEvent, ...), 0 if unknown
  EventRef from;                     // host API call (cudaLaunchKernel, cudaMemcpyAsync); the forward op; the
                                     // GPU work waited for
  EventRef to;                       // kernel, memcpy or memset; the backward op; the waiting GPU work or Sync
  FlowKind kind = FlowKind::LaunchToGpu;
  friend bool operator==(const Flow&, const Flow&) = default;
};

enum class RangeKind : std::uint8_t { Scenario, Phase, WarmUp, Iteration, Forward, User };
[[nodiscard]] std::string_view to_string(RangeKind kind);               // "scenario", "phase", "warmup", ...
[[nodiscard]] RangeKind range_kind_from_string(std::string_view text);  // unknown text -> User

// A named interval recorded by the host: scenario, phase, warm-up, iteration, model forward.
struct Range {
  std::string name;
  RangeKind kind = RangeKind::User;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::int32_t device = -1;  // the GPU the range is about (model forward on cuda:1), -1 if none
  friend bool operator==(const Range&, const Range&) = default;
};

enum class MeasurementMethod : std::uint8_t { StopwatchNoSync, StopwatchSync, CudaEvents, Other };
[[nodiscard]] std::string_view to_string(MeasurementMethod method);  // "stopwatch", "stopwatch+sync", "cuda-events"
[[nodiscard]] MeasurementMethod measurement_method_from_string(std::string_view text);

// What a timing method reported for a piece of work, and the host interval it ran over, so the truth (what the
// GPUs did meanwhile) can be set beside it.
struct Measurement {
  std::string name;  // "timed loop"
  MeasurementMethod method = MeasurementMethod::Other;
  TimeNs reported_ns = 0;  // the number the method gave
  TimeNs host_start_ns = 0;
  TimeNs host_end_ns = 0;
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  friend bool operator==(const Measurement&, const Measurement&) = default;
};

struct DeviceInfo {
  std::int32_t index = 0;
  std::string name;  // "NVIDIA H200"
  std::int64_t total_memory_bytes = 0;
  std::int32_t compute_major = 0;
  std::int32_t compute_minor = 0;
  std::int32_t sm_count = 0;
  friend bool operator==(const DeviceInfo&, const DeviceInfo&) = default;
};

struct ProcessInfo {
  std::int64_t pid = 0;
  std::string name;  // from process_name metadata
  std::int64_t sort_index = 0;
  std::vector<std::string> labels;
  friend bool operator==(const ProcessInfo&, const ProcessInfo&) = default;
};

struct CounterSample {
  TimeNs time_ns = 0;
  double value = 0;
  friend bool operator==(const CounterSample&, const CounterSample&) = default;
};

// "C" events: one series per (pid, name, series key).
struct CounterSeries {
  std::int64_t pid = 0;
  std::string name;
  std::vector<CounterSample> samples;  // sorted by time
  friend bool operator==(const CounterSeries&, const CounterSeries&) = default;
};

// The torch.distributed process that recorded a trace (Kineto's top-level "distributedInfo"); rank -1 when the
// trace does not say.
struct DistributedInfo {
  std::int64_t rank = -1;
  std::int64_t world_size = 0;
  std::string backend;  // "nccl", "gloo"
  friend bool operator==(const DistributedInfo&, const DistributedInfo&) = default;
};

// One rank of a run merged from per-rank files: which host processes and GPUs of the trace are its, and how its
// times were moved onto the run's clock. Device ids are the merged trace's; local_devices[i] is devices[i] as the
// rank's own file numbered it (ranks that each see their GPU as cuda:0 get distinct ids in the merge).
struct RankInfo {
  std::int64_t rank = 0;
  std::string source;                       // the file (or label) the rank came from
  std::vector<std::int64_t> pids;           // host processes
  std::vector<std::int64_t> devices;        // GPUs, ids in the merged trace
  std::vector<std::int64_t> local_devices;  // the same GPUs, ids in the rank's file
  TimeNs shift_ns = 0;                      // added to the file's times: origin difference plus clock_offset_ns
  TimeNs clock_offset_ns = 0;               // the alignment's correction on top of the wall clock
  friend bool operator==(const RankInfo&, const RankInfo&) = default;
};

// How the ranks' clocks were put on one time axis, in words and numbers.
struct ClockAlignment {
  std::string method;       // "wall clock", "collectives", "manual"; empty for a trace of one rank
  std::string basis;        // one sentence: what the alignment rests on
  TimeNs residual_ns = -1;  // after alignment, the largest gap between the ends of one matched collective on two
                            // ranks (-1: no collectives to check with)
  std::int64_t collectives_checked = 0;
  friend bool operator==(const ClockAlignment&, const ClockAlignment&) = default;
};

// What recording cost the process it was injected into (gtv-cli record), as the recorder measured it on itself.
// CUPTI's buffers are handled on CUPTI's own thread, so buffer_handling_ns is CPU time spent beside the program,
// not necessarily time the program waited; startup_ns and exit_ns ran on the program's thread, in its way.
struct RecorderCost {
  std::int64_t pid = 0;           // the process (its host pid in this trace)
  TimeNs startup_ns = 0;          // InitializeInjection: CUPTI subscription, activity kinds, driver queries
  TimeNs buffer_handling_ns = 0;  // inside CUPTI's buffer callbacks: walking, converting, storing the records
  TimeNs exit_ns = 0;             // at exit: the final flush (building and writing the file not counted)
  TimeNs traced_ns = 0;           // from the end of start-up to the start of the exit flush: the window of the above
  std::int64_t buffers = 0;       // CUPTI buffers handled
  std::int64_t records = 0;       // CUPTI records converted
  std::int64_t records_kept = 0;  // of those, inside the capture range and under the event limit
  friend bool operator==(const RecorderCost&, const RecorderCost&) = default;
};

struct TraceMetadata {
  std::string source_tool;                     // "gtv 0.1.0", "PyTorch Profiler (Kineto)", "Chrome trace"
  TimeNs origin_unix_ns = 0;                   // absolute time of relative 0
  std::string scenario;                        // gtv recordings: scenario name
  std::map<std::string, std::string> config;   // models, hidden, batch, iters, devices ...
  std::map<std::string, std::string> machine;  // gpu names, driver, cuda, libtorch versions, host name
  std::int64_t dropped_records = 0;            // CUPTI records lost
  std::vector<std::string> notes;              // "CUPTI unavailable: run untraced", "ran on the CPU"
  DistributedInfo distributed;                 // one rank's file: its rank; a merged run: rank -1, world size
  std::vector<RankInfo> ranks;                 // a run merged from per-rank files, by rank; empty otherwise
  ClockAlignment clock;                        // how ranks were aligned (merged runs)
  std::vector<RecorderCost> recorder_costs;    // one per process recorded by gtv-cli record; empty otherwise
  friend bool operator==(const TraceMetadata&, const TraceMetadata&) = default;
};

}  // namespace gtv
