// What the recordings lack, on a made-up trace run through gtv-cli: NCCL kernels beside computation, copies beside
// kernels on other streams, memsets, two host threads launching at once, two GPUs overlapping. The trace is
// written as a file with gtv's writer and compared like any bundled recording.
#include <gtest/gtest.h>

#include <filesystem>

#include "compare_file.h"
#include "gtv/io/trace_file.h"
#include "gtv/model/trace_builder.h"
#include "oracle.h"

namespace gtv::oracle {
namespace {

class Maker {
 public:
  void gpu(std::int64_t device, std::int64_t stream, std::string_view name, TimeNs start_ns, TimeNs duration_ns,
           EventKind kind, std::uint64_t correlation) {
    const Event e = event(name, start_ns, duration_ns, kind, correlation);
    const LaneIndex lane = b_.lane(gpu_lane_key(device, stream));
    if (kind == EventKind::Kernel) b_.add_kernel(lane, e, KernelDetail{});
    if (kind == EventKind::Memcpy) b_.add_memcpy(lane, e, MemcpyDetail{1 << 20, CopyKind::HostToDevice});
    if (kind == EventKind::Memset) b_.add_memset(lane, e, MemsetDetail{});
  }
  void launch(std::int64_t tid, std::string_view name, TimeNs start_ns, TimeNs duration_ns, std::uint64_t correlation) {
    b_.add_event(b_.lane(host_lane_key(1, tid)), event(name, start_ns, duration_ns, EventKind::Runtime, correlation));
  }
  TraceBuilder& builder() { return b_; }

 private:
  Event event(std::string_view name, TimeNs start_ns, TimeNs duration_ns, EventKind kind, std::uint64_t correlation) {
    Event e;
    e.name = b_.intern(name);
    e.start_ns = start_ns;
    e.duration_ns = duration_ns;
    e.kind = kind;
    e.correlation_id = correlation;
    return e;
  }
  TraceBuilder b_;
};

// Times in microseconds, written as ns. Thread 10 drives GPU 0, thread 11 GPU 1; their launches overlap.
Trace busy_two_gpu_run() {
  Maker m;
  constexpr TimeNs kUs = 1000;
  std::uint64_t id = 1;
  for (int step = 0; step < 4; ++step) {
    const TimeNs t = step * 1000 * kUs;
    m.launch(10, "cudaLaunchKernel", t + 10 * kUs, 8 * kUs, id);
    m.gpu(0, 7, "gemm", t + 30 * kUs, 500 * kUs, EventKind::Kernel, id++);
    m.launch(10, "cudaMemcpyAsync", t + 20 * kUs, 6 * kUs, id);
    m.gpu(0, 8, "Memcpy HtoD (Pinned -> Device)", t + 100 * kUs, 300 * kUs, EventKind::Memcpy, id++);
    m.launch(10, "cudaMemsetAsync", t + 28 * kUs, 4 * kUs, id);
    m.gpu(0, 8, "Memset (Device)", t + 450 * kUs, 20 * kUs, EventKind::Memset, id++);
    m.launch(10, "ncclKernel launch", t + 35 * kUs, 5 * kUs, id);
    m.gpu(0, 9, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", t + 400 * kUs, 350 * kUs, EventKind::Kernel, id++);
    m.launch(11, "cudaLaunchKernel", t + 12 * kUs, 9 * kUs, id);
    m.gpu(1, 7, "gemm", t + 50 * kUs, 300 * kUs, EventKind::Kernel, id++);
    m.launch(11, "cudaLaunchKernel", t + 25 * kUs, 5 * kUs, id);
    m.gpu(1, 9, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", t + 380 * kUs, 360 * kUs, EventKind::Kernel, id++);
  }
  m.builder().add_measurement(
      {"timed loop", MeasurementMethod::StopwatchNoSync, 3000 * kUs, 1000 * kUs, 3900 * kUs, 1, 10});
  Expected<Trace> t = m.builder().build();
  if (!t) throw std::runtime_error(t.error().message);
  return std::move(t).value();
}

TEST(OracleSynthetic, CommunicationCopiesAndLaunchingThreadsAgreeWithAnalyze) {
  const std::string path = testing::TempDir() + "oracle_synthetic_two_gpus.json";
  {
    const Trace made = busy_two_gpu_run();
    ASSERT_TRUE(io::write_trace(made, path).ok());
  }
  const Expected<Trace> trace = io::read_trace(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  // The trace has what the test is for, as the oracle sees it.
  const Oracle o(*trace);
  const Numbers& n = o.numbers();
  ASSERT_EQ(n.communication.size(), 2u);
  EXPECT_GT(n.communication[0].overlap_ns, 0);
  EXPECT_GT(n.communication[0].exposed_ns, 0);
  EXPECT_GT(o.stream_overlap_within(0, n.trace_start_ns, n.trace_end_ns).copy_compute_overlap_ns, 0);
  EXPECT_GT(o.host_launch_within(n.trace_start_ns, n.trace_end_ns).concurrent_ns, 0);
  EXPECT_GT(n.whole.overlap_ns, 0);
  ASSERT_EQ(n.measurements.size(), 1u);
  EXPECT_TRUE(n.measurements[0].by_flows);
  EXPECT_GT(compare_file(path), 100u);
  // std::filesystem::remove(path);
}

}  // namespace
}  // namespace gtv::oracle
