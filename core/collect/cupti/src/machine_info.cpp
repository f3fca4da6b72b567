// Machine description for the trace metadata. The driver is reached through dlopen so that gtv-cli still starts
// on machines without one (CI, laptops): then only the CUPTI version is reported.
#include <cupti.h>
#include <dlfcn.h>

#include "cupti_calls.h"
#include "gtv/collect/cupti_source.h"

namespace gtv::collect {
namespace {

using CuInitFn = int (*)(unsigned int);
using CuDriverGetVersionFn = int (*)(int*);
using CuDeviceGetCountFn = int (*)(int*);
using CuDeviceGetFn = int (*)(int*, int);
using CuDeviceGetNameFn = int (*)(char*, int, int);

// CUDA encodes versions as 1000 * major + 10 * minor: 13000 -> "13.0".
std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

template <typename Fn>
Fn symbol(void* library, const char* name) {
  return reinterpret_cast<Fn>(::dlsym(library, name));
}

void add_driver_info(std::map<std::string, std::string>& info) {
  void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda == nullptr) {
    info["cuda_driver"] = "not found";
    return;
  }
  auto cu_init = symbol<CuInitFn>(cuda, "cuInit");
  auto cu_driver_version = symbol<CuDriverGetVersionFn>(cuda, "cuDriverGetVersion");
  auto cu_count = symbol<CuDeviceGetCountFn>(cuda, "cuDeviceGetCount");
  auto cu_device = symbol<CuDeviceGetFn>(cuda, "cuDeviceGet");
  auto cu_name = symbol<CuDeviceGetNameFn>(cuda, "cuDeviceGetName");
  int version = 0;
  if (cu_driver_version != nullptr && cu_driver_version(&version) == 0)
    info["cuda_driver_version"] = cuda_version_text(version);
  int count = 0;
  if (cu_init != nullptr && cu_count != nullptr && cu_init(0) == 0 && cu_count(&count) == 0) {
    info["gpu_count"] = std::to_string(count);
    for (int i = 0; i < count && cu_device != nullptr && cu_name != nullptr; ++i) {
      int device = 0;
      char name[256] = {};
      if (cu_device(&device, i) == 0 && cu_name(name, sizeof name - 1, device) == 0)
        info["gpu" + std::to_string(i)] = name;
    }
  }
  // The library stays loaded: CUDA is in use by the process anyway, and unloading a driver is never safe.
}

}  // namespace

namespace cupti {
bool cuda_driver_present() {
  // Kept loaded on success: the process is about to use CUDA anyway.
  return ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) != nullptr;
}
}  // namespace cupti

std::map<std::string, std::string> cuda_machine_info() {
  std::map<std::string, std::string> info;
  std::uint32_t cupti_version = 0;
  if (cuptiGetVersion(&cupti_version) == CUPTI_SUCCESS) info["cupti_api_version"] = std::to_string(cupti_version);
  add_driver_info(info);
  return info;
}

}  // namespace gtv::collect
