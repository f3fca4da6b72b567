#pragma once
// CuptiSource: CUPTI activity tracing for one process, delivered to an ActivitySink. No CUPTI type appears in
// this header, so code that records (core/experiments, gtv-cli) needs no CUDA headers.
//
// Use:   TraceRecorder rec; CuptiSource cupti;
//        if (Status s = cupti.start({}, rec); !s) rec.add_note("CUPTI unavailable: " + s.error().message);
//        ... run the workload ...;  synchronize every device;  (void)cupti.stop();  rec.finish();
// start() never aborts the process: without a GPU, without a driver, or when another profiler
// (torch.profiler, nsys, compute-sanitizer) already holds CUPTI, it returns an Error and the run can go on
// untraced. CUPTI allows one activity client per process, so there is at most one started CuptiSource.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/collect/activity_sink.h"
#include "gtv/collect/capture_gate.h"
#include "gtv/collect/trace_recorder.h"

namespace gtv::collect {

// Edges of a capture range, watched live through CUPTI's callback API while the program runs: a window of gate
// opens at the end of each cuProfilerStart (cudaProfilerStart calls it) and closes at the start of cuProfilerStop;
// with nvtx set, the program's NVTX range calls open and close it as the watch says (the NVTX calls reach CUPTI
// only with NVTX_INJECTION64_PATH pointing at libcupti). Nothing is watched while gate is nullptr.
struct CaptureWatch {
  CaptureGate* gate = nullptr;
  bool profiler_api = false;
  NvtxRangeWatch* nvtx = nullptr;
};

struct CuptiOptions {
  // Keep API calls that fire tens of thousands of times and say nothing (cudaGetDevice, cudaSetDevice,
  // cudaGetLastError, cudaStreamIsCapturing, cudaDeviceGetAttribute, and their driver twins). Off: 63k of 82k
  // records of the seed run were cudaGetDevice.
  bool all_api = false;
  bool driver_api = true;  // CUPTI_ACTIVITY_KIND_DRIVER
  bool markers = true;     // NVTX ranges as MARKER records (needs NVTX_INJECTION64_PATH=<libcupti.so>)
  bool memory = true;      // MEMORY2: allocations and frees
  bool overhead = true;    // OVERHEAD: CUPTI and driver overhead
  std::size_t buffer_bytes = std::size_t{8} << 20;  // per CUPTI buffer (4-8 MB recommended; at least 1 MB)
  // Point NVTX_INJECTION64_PATH at the loaded libcupti when it is unset, so the workload's NVTX ranges reach
  // CUPTI as MARKER records. Only works if nothing in the process called NVTX before start(); untested on
  // GPUs, hence off. (gtv's own ranges need none of this: they are recorded directly.)
  bool inject_nvtx = false;
  // Hand the driver's device list (cuda_devices(), which calls cuInit) to the sink in start(). Off inside a CUDA
  // injection's InitializeInjection, which runs within the program's cuInit: the caller describes them later.
  bool describe_devices = true;
  CaptureWatch capture;
};

class CuptiSource {
 public:
  CuptiSource();
  ~CuptiSource();  // stops (flushing) if still started
  CuptiSource(const CuptiSource&) = delete;
  CuptiSource& operator=(const CuptiSource&) = delete;

  // Subscribes, registers buffer callbacks, enables the activity kinds. sink must outlive stop(). On failure
  // everything enabled so far is switched off again and the Error says why in one line.
  [[nodiscard]] Status start(const CuptiOptions& options, ActivitySink& sink);
  // Does not synchronize: the caller synchronizes the devices first. Then flushes every buffer
  // (cuptiActivityFlushAll forced), delivers the records, disables the kinds. Harmless when not started.
  Status stop();
  [[nodiscard]] bool started() const { return started_; }

  // Records delivered to the sink since start(), and records CUPTI reported as dropped.
  [[nodiscard]] std::size_t records_delivered() const;
  [[nodiscard]] std::size_t records_dropped() const;
  // Time spent inside CUPTI's buffer callbacks (walking, converting, handing records to the sink; steady clock),
  // and how many buffers that was, since start().
  [[nodiscard]] std::int64_t buffer_handling_ns() const;
  [[nodiscard]] std::int64_t buffers_handled() const;

 private:
  bool started_ = false;
  std::size_t last_delivered_ = 0;  // counts of the last finished session
  std::size_t last_dropped_ = 0;
  std::int64_t last_buffer_ns_ = 0;
  std::int64_t last_buffers_ = 0;
};

// start() for a recording that must go on without CUPTI when it is unavailable: on failure the recorder's
// notes get "CUPTI unavailable: <why>; ran untraced (host ranges and measurements only)". True if tracing.
bool start_or_note(CuptiSource& source, const CuptiOptions& options, TraceRecorder& recorder);

// What the machine has, for the trace metadata: "cupti_api_version", "cuda_driver_version" (e.g. "13.0"),
// "gpu_count", "gpu<N>" (device name); "cuda_driver" = "not found" without a driver. Reads the driver through
// dlopen("libcuda.so.1"), so it works (reporting less) on machines with no driver. Keys that cannot be read are
// left out. The CUDA runtime and LibTorch versions are the experiments' to add (they link those libraries).
[[nodiscard]] std::map<std::string, std::string> cuda_machine_info();

// The GPUs the driver sees (name, memory, compute capability, SMs), in CUDA ordinal order (the device ids
// CUPTI uses); empty without a driver or GPU. start() also hands these to the sink, since CUPTI emits DEVICE
// records only for devices it sees initialised while tracing.
[[nodiscard]] std::vector<DeviceInfo> cuda_devices();

}  // namespace gtv::collect
