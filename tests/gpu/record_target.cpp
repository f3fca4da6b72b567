// A small CUDA program for `gtv-cli record` on the GPU machine (tests/gpu/record_gpu_test.py): through the driver
// API (dlopen, so it needs neither nvcc nor the runtime) it sets memory, copies, launches an empty kernel JIT-compiled
// from PTX, and marks its parts with NVTX: "warm-up" around the first launch, then between cuProfilerStart and
// cuProfilerStop one NVTX range "step" around each of N launches, then one launch after it all.
// usage: gtv_record_target [--launches N] [--fork]   (--fork: fork after CUDA is initialised, the child exits)
// Exit 0 on success, 77 without a CUDA driver or GPU, 1 when a CUDA call fails.
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

using CUdeviceptr = unsigned long long;
struct Driver {
  int (*cuInit)(unsigned) = nullptr;
  int (*cuDeviceGet)(int*, int) = nullptr;
  int (*cuDevicePrimaryCtxRetain)(void**, int) = nullptr;
  int (*cuCtxSetCurrent)(void*) = nullptr;
  int (*cuCtxSynchronize)() = nullptr;
  int (*cuModuleLoadData)(void**, const void*) = nullptr;
  int (*cuModuleGetFunction)(void**, void*, const char*) = nullptr;
  int (*cuLaunchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                        void**) = nullptr;
  int (*cuMemAlloc)(CUdeviceptr*, std::size_t) = nullptr;
  int (*cuMemsetD8)(CUdeviceptr, unsigned char, std::size_t) = nullptr;
  int (*cuMemcpyHtoD)(CUdeviceptr, const void*, std::size_t) = nullptr;
  int (*cuProfilerStart)() = nullptr;
  int (*cuProfilerStop)() = nullptr;
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
         load(lib, d.cuCtxSetCurrent, "cuCtxSetCurrent") && load(lib, d.cuCtxSynchronize, "cuCtxSynchronize") &&
         load(lib, d.cuModuleLoadData, "cuModuleLoadData") && load(lib, d.cuModuleGetFunction, "cuModuleGetFunction") &&
         load(lib, d.cuLaunchKernel, "cuLaunchKernel") && load(lib, d.cuMemAlloc, "cuMemAlloc_v2") &&
         load(lib, d.cuMemsetD8, "cuMemsetD8_v2") && load(lib, d.cuMemcpyHtoD, "cuMemcpyHtoD_v2") &&
         load(lib, d.cuProfilerStart, "cuProfilerStart") && load(lib, d.cuProfilerStop, "cuProfilerStop");
}

constexpr const char* kPtx =
    ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry gtv_record_noop()\n{\n  ret;\n}\n";

bool ok(int result, const char* what) {
  if (result != 0) std::fprintf(stderr, "gtv_record_target: %s failed: CUDA error %d\n", what, result);
  return result == 0;
}

}  // namespace

int main(int argc, char** argv) {
  int launches = 3;
  bool fork_child = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--launches") == 0 && i + 1 < argc) launches = std::atoi(argv[++i]);
    if (std::strcmp(argv[i], "--fork") == 0) fork_child = true;
  }
  Driver d;
  if (!load_driver(d) || d.cuInit(0) != 0) {
    std::fprintf(stderr, "gtv_record_target: no CUDA driver or GPU\n");
    return 77;
  }
  int device = 0;
  void* context = nullptr;
  void* module = nullptr;
  void* kernel = nullptr;
  CUdeviceptr memory = 0;
  char host[4096] = {};
  if (!ok(d.cuDeviceGet(&device, 0), "cuDeviceGet") ||
      !ok(d.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain") ||
      !ok(d.cuCtxSetCurrent(context), "cuCtxSetCurrent") ||
      !ok(d.cuModuleLoadData(&module, kPtx), "cuModuleLoadData") ||
      !ok(d.cuModuleGetFunction(&kernel, module, "gtv_record_noop"), "cuModuleGetFunction") ||
      !ok(d.cuMemAlloc(&memory, sizeof host), "cuMemAlloc"))
    return 1;
  const auto launch = [&] {
    return ok(d.cuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr), "launch");
  };
  if (fork_child) {
    const pid_t child = ::fork();
    if (child == 0) std::exit(0);  // runs the exit handlers of the parent's copy: they must neither write nor wait
    int status = 0;
    ::waitpid(child, &status, 0);
  }
  nvtxRangePushA("warm-up");
  bool fine = ok(d.cuMemsetD8(memory, 1, sizeof host), "cuMemsetD8") &&
              ok(d.cuMemcpyHtoD(memory, host, sizeof host), "cuMemcpyHtoD") && launch();
  nvtxRangePop();
  fine = fine && ok(d.cuCtxSynchronize(), "cuCtxSynchronize") && ok(d.cuProfilerStart(), "cuProfilerStart");
  for (int i = 0; fine && i < launches; ++i) {
    nvtxRangePushA("step");
    fine = launch() && ok(d.cuCtxSynchronize(), "cuCtxSynchronize");
    nvtxRangePop();
  }
  fine = fine && ok(d.cuProfilerStop(), "cuProfilerStop") && launch() && ok(d.cuCtxSynchronize(), "cuCtxSynchronize");
  return fine ? 0 : 1;
}
