// End to end on a real GPU (ctest label "gpu"): CuptiSource traces driver-API work on device 0 into a Trace.
// The work uses the driver API through dlopen, so this binary needs neither nvcc nor the runtime library; on a
// machine without a driver every test is skipped.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <vector>

#include "gtv/collect/cupti_source.h"
#include "gtv/collect/host_recorder.h"
#include "gtv/collect/thread_id.h"

namespace gtv::collect {
namespace {

using CUdeviceptr = unsigned long long;
struct Driver {
  int (*cuInit)(unsigned) = nullptr;
  int (*cuDeviceGet)(int*, int) = nullptr;
  int (*cuDevicePrimaryCtxRetain)(void**, int) = nullptr;
  int (*cuDevicePrimaryCtxRelease)(int) = nullptr;
  int (*cuCtxSetCurrent)(void*) = nullptr;
  int (*cuCtxSynchronize)() = nullptr;
  int (*cuMemAlloc)(CUdeviceptr*, std::size_t) = nullptr;
  int (*cuMemFree)(CUdeviceptr) = nullptr;
  int (*cuMemAllocHost)(void**, std::size_t) = nullptr;
  int (*cuMemFreeHost)(void*) = nullptr;
  int (*cuMemsetD8)(CUdeviceptr, unsigned char, std::size_t) = nullptr;
  int (*cuMemcpyDtoH)(void*, CUdeviceptr, std::size_t) = nullptr;
  int (*cuMemcpyHtoD)(CUdeviceptr, const void*, std::size_t) = nullptr;
};

template <typename Fn>
bool load(void* lib, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(::dlsym(lib, name));
  return fn != nullptr;
}

bool load_driver(Driver& d) {
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return false;
  return load(lib, d.cuInit, "cuInit") && load(lib, d.cuDeviceGet, "cuDeviceGet") &&
         load(lib, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
         load(lib, d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") &&
         load(lib, d.cuCtxSetCurrent, "cuCtxSetCurrent") && load(lib, d.cuCtxSynchronize, "cuCtxSynchronize") &&
         load(lib, d.cuMemAlloc, "cuMemAlloc_v2") && load(lib, d.cuMemFree, "cuMemFree_v2") &&
         load(lib, d.cuMemAllocHost, "cuMemAllocHost_v2") && load(lib, d.cuMemFreeHost, "cuMemFreeHost") &&
         load(lib, d.cuMemsetD8, "cuMemsetD8_v2") && load(lib, d.cuMemcpyDtoH, "cuMemcpyDtoH_v2") &&
         load(lib, d.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
}

constexpr std::size_t kBytes = std::size_t{1} << 20;

// Memset, a copy to pageable memory, a copy from pinned memory, then a context synchronize.
void run_work(const Driver& d) {
  int device = 0;
  void* context = nullptr;
  ASSERT_EQ(d.cuDeviceGet(&device, 0), 0);
  ASSERT_EQ(d.cuDevicePrimaryCtxRetain(&context, device), 0);
  ASSERT_EQ(d.cuCtxSetCurrent(context), 0);
  CUdeviceptr dev = 0;
  void* pinned = nullptr;
  std::vector<unsigned char> pageable(kBytes, 1);
  ASSERT_EQ(d.cuMemAlloc(&dev, kBytes), 0);
  ASSERT_EQ(d.cuMemAllocHost(&pinned, kBytes), 0);
  ASSERT_EQ(d.cuMemsetD8(dev, 7, kBytes), 0);
  ASSERT_EQ(d.cuMemcpyDtoH(pageable.data(), dev, kBytes), 0);
  ASSERT_EQ(d.cuMemcpyHtoD(dev, pinned, kBytes), 0);
  ASSERT_EQ(d.cuCtxSynchronize(), 0);
  EXPECT_EQ(pageable[kBytes - 1], 7);
  (void)d.cuMemFree(dev);
  (void)d.cuMemFreeHost(pinned);
  (void)d.cuDevicePrimaryCtxRelease(device);
}

const Event* find_event(const Trace& trace, std::string_view name, const Lane** lane_out = nullptr) {
  for (const Lane& lane : trace.lanes())
    for (const Event& e : lane.events)
      if (trace.name(e) == name) {
        if (lane_out) *lane_out = &lane;
        return &e;
      }
  return nullptr;
}

// First in this file on purpose: NVTX reads NVTX_INJECTION64_PATH once, at the process's first NVTX call.
// Checks that CuptiOptions::inject_nvtx, set from inside the program, brings the workload's NVTX ranges in.
TEST(CuptiGpu, NvtxRangesReachCuptiWhenInjectedFromInside) {
  Driver d;
  if (!load_driver(d) || d.cuInit(0) != 0) GTEST_SKIP() << "no CUDA driver or GPU";
  TraceRecorder recorder;
  HostRecorder host(recorder, true);
  CuptiSource cupti;
  CuptiOptions options;
  options.inject_nvtx = true;
  Status started = cupti.start(options, recorder);
  ASSERT_TRUE(started.ok()) << started.error().message;
  {
    auto r = host.scope("gtv range", RangeKind::Phase);  // domain "gtv": recorded as a Range only
    nvtxRangePushA("user range");
    run_work(d);
    nvtxRangePop();
  }
  ASSERT_TRUE(cupti.stop().ok());
  Expected<Trace> built = recorder.finish();
  ASSERT_TRUE(built.ok()) << built.error().message;
  const Lane* lane = nullptr;
  const Event* user = find_event(*built, "user range", &lane);
  ASSERT_NE(user, nullptr) << "no MARKER record: NVTX injection from inside the process did not take effect";
  EXPECT_EQ(user->kind, EventKind::Annotation);
  EXPECT_EQ(lane->key, host_lane_key(current_pid(), current_tid()));
  EXPECT_EQ(find_event(*built, "gtv range"), nullptr);
  EXPECT_EQ(built->ranges().size(), 1u);
}

TEST(CuptiGpu, DriverWorkOnDeviceZeroIsTracedWithDetailsLanesAndFlows) {
  Driver d;
  if (!load_driver(d) || d.cuInit(0) != 0) GTEST_SKIP() << "no CUDA driver or GPU";
  TraceRecorder recorder;
  HostRecorder host(recorder, true);
  CuptiSource cupti;
  Status started = cupti.start(CuptiOptions{}, recorder);
  ASSERT_TRUE(started.ok()) << started.error().message;
  const UnixNs before = unix_now_ns();
  {
    auto r = host.scope("work", RangeKind::Phase, 0);
    run_work(d);
  }
  const UnixNs after = unix_now_ns();
  ASSERT_TRUE(cupti.stop().ok());
  EXPECT_GT(cupti.records_delivered(), 0u);
  EXPECT_EQ(cupti.records_dropped(), 0u);
  Expected<Trace> built = recorder.finish();
  ASSERT_TRUE(built.ok()) << built.error().message;
  const Trace& trace = *built;

  const Lane* copy_lane = nullptr;
  const Event* dtoh = find_event(trace, "Memcpy DtoH (Device -> Pageable)", &copy_lane);
  ASSERT_NE(dtoh, nullptr);
  EXPECT_TRUE(copy_lane->is_gpu());
  EXPECT_EQ(copy_lane->device(), 0);
  EXPECT_EQ(trace.memcpy_detail(*dtoh)->bytes, static_cast<std::int64_t>(kBytes));
  const Event* htod = find_event(trace, "Memcpy HtoD (Pinned -> Device)");
  ASSERT_NE(htod, nullptr);
  const Event* memset = find_event(trace, "Memset (Device)");
  ASSERT_NE(memset, nullptr);
  EXPECT_EQ(trace.memset_detail(*memset)->bytes, static_cast<std::int64_t>(kBytes));
  // CUPTI's clock is the host's CLOCK_REALTIME: GPU work lies inside the host interval around it.
  EXPECT_LE(before - trace.metadata().origin_unix_ns, memset->start_ns);
  EXPECT_LE(htod->end_ns(), after - trace.metadata().origin_unix_ns);

  const Lane* api_lane = nullptr;
  const Event* api = find_event(trace, "cuMemcpyDtoH_v2", &api_lane);
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api_lane->key, host_lane_key(current_pid(), current_tid()));  // CUPTI's thread id mapped to gettid
  EXPECT_EQ(api->kind, EventKind::Driver);
  bool joined = false;
  for (const Flow& f : trace.flows()) joined |= &trace.event(f.to) == dtoh && &trace.event(f.from) == api;
  EXPECT_TRUE(joined);
  const Lane* sync_lane = nullptr;
  const Event* sync = find_event(trace, "Context Sync", &sync_lane);
  ASSERT_NE(sync, nullptr) << "no SYNCHRONIZATION record for cuCtxSynchronize";
  EXPECT_EQ(sync->kind, EventKind::Sync);
  EXPECT_EQ(sync_lane, api_lane);  // placed on the lane of the call that waited
  ASSERT_FALSE(trace.devices().empty());
  EXPECT_FALSE(trace.devices()[0].name.empty());
  EXPECT_EQ(trace.metadata().dropped_records, 0);
  ASSERT_EQ(trace.ranges().size(), 1u);
}

TEST(CuptiGpu, MachineInfoNamesTheGpus) {
  Driver d;
  if (!load_driver(d)) GTEST_SKIP() << "no CUDA driver";
  const auto info = cuda_machine_info();
  ASSERT_TRUE(info.contains("cuda_driver_version"));
  ASSERT_TRUE(info.contains("gpu_count"));
  EXPECT_GE(std::stoi(info.at("gpu_count")), 1);
  EXPECT_FALSE(info.at("gpu0").empty());
  const std::vector<DeviceInfo> devices = cuda_devices();
  ASSERT_EQ(std::to_string(devices.size()), info.at("gpu_count"));
  EXPECT_EQ(devices[0].name, info.at("gpu0"));
  EXPECT_GT(devices[0].sm_count, 0);
  EXPECT_GT(devices[0].total_memory_bytes, 0);
  EXPECT_GT(devices[0].compute_major, 0);
}

}  // namespace
}  // namespace gtv::collect
