// Machine description from the CUDA driver, reached through dlopen so that gtv-cli still starts on machines
// without one (CI, laptops): then only the CUPTI version is reported and no device is listed.
#include <cupti.h>
#include <dlfcn.h>

#include <string>

#include "cupti_calls.h"
#include "gtv/collect/cupti_source.h"

namespace gtv::collect {
namespace {

// CUdevice_attribute values (cuda.h), fixed by the driver ABI.
constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrComputeMajor = 75;
constexpr int kAttrComputeMinor = 76;

struct DriverApi {
  int (*init)(unsigned int) = nullptr;
  int (*driver_version)(int*) = nullptr;
  int (*device_count)(int*) = nullptr;
  int (*device_get)(int*, int) = nullptr;
  int (*device_name)(char*, int, int) = nullptr;
  int (*device_memory)(std::size_t*, int) = nullptr;
  int (*device_attribute)(int*, int, int) = nullptr;
  [[nodiscard]] bool complete() const {
    return init && driver_version && device_count && device_get && device_name && device_memory && device_attribute;
  }
};

template <typename Fn>
void bind(void* library, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(::dlsym(library, name));
}

// The driver's entry points, loaded once; nullopt without a driver. The library stays loaded: the process
// uses CUDA anyway, and unloading a driver is never safe.
const DriverApi* driver_api() {
  static const std::optional<DriverApi> api = []() -> std::optional<DriverApi> {
    void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (cuda == nullptr) return std::nullopt;
    DriverApi d;
    bind(cuda, d.init, "cuInit");
    bind(cuda, d.driver_version, "cuDriverGetVersion");
    bind(cuda, d.device_count, "cuDeviceGetCount");
    bind(cuda, d.device_get, "cuDeviceGet");
    bind(cuda, d.device_name, "cuDeviceGetName");
    bind(cuda, d.device_memory, "cuDeviceTotalMem_v2");
    bind(cuda, d.device_attribute, "cuDeviceGetAttribute");
    if (!d.complete()) return std::nullopt;
    return d;
  }();
  return api ? &*api : nullptr;
}

// CUDA encodes versions as 1000 * major + 10 * minor: 13000 -> "13.0".
std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

// The NVIDIA driver's own version ("580.159.04"), from NVML; empty without it.
std::string nvidia_driver_version() {
  void* nvml = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (nvml == nullptr) return {};
  int (*init)() = nullptr;
  int (*get_version)(char*, unsigned int) = nullptr;
  int (*shutdown)() = nullptr;
  bind(nvml, init, "nvmlInit_v2");
  bind(nvml, get_version, "nvmlSystemGetDriverVersion");
  bind(nvml, shutdown, "nvmlShutdown");
  std::string version;
  if (init && get_version && shutdown && init() == 0) {
    char text[96] = {};
    if (get_version(text, sizeof text - 1) == 0) version = text;
    (void)shutdown();
  }
  ::dlclose(nvml);
  return version;
}

// The CUDA runtime this process already loaded (LibTorch's libcudart), if any: never loads one itself.
std::string cuda_runtime_version() {
  int (*get_version)(int*) = nullptr;
  bind(RTLD_DEFAULT, get_version, "cudaRuntimeGetVersion");
  int version = 0;
  if (get_version == nullptr || get_version(&version) != 0) return {};
  return cuda_version_text(version);
}

}  // namespace

namespace cupti {
bool cuda_driver_present() { return driver_api() != nullptr; }
}  // namespace cupti

std::vector<DeviceInfo> cuda_devices() {
  std::vector<DeviceInfo> devices;
  const DriverApi* d = driver_api();
  int count = 0;
  if (d == nullptr || d->init(0) != 0 || d->device_count(&count) != 0) return devices;
  for (int i = 0; i < count; ++i) {
    int device = 0;
    if (d->device_get(&device, i) != 0) continue;
    DeviceInfo info;
    info.index = i;
    char name[256] = {};
    if (d->device_name(name, sizeof name - 1, device) == 0) info.name = name;
    std::size_t bytes = 0;
    if (d->device_memory(&bytes, device) == 0) info.total_memory_bytes = static_cast<std::int64_t>(bytes);
    (void)d->device_attribute(&info.compute_major, kAttrComputeMajor, device);
    (void)d->device_attribute(&info.compute_minor, kAttrComputeMinor, device);
    (void)d->device_attribute(&info.sm_count, kAttrMultiprocessorCount, device);
    devices.push_back(std::move(info));
  }
  return devices;
}

std::map<std::string, std::string> cuda_machine_info() {
  std::map<std::string, std::string> info;
  std::uint32_t cupti_version = 0;
  if (cuptiGetVersion(&cupti_version) == CUPTI_SUCCESS) info["cupti_api_version"] = std::to_string(cupti_version);
  const DriverApi* d = driver_api();
  if (d == nullptr) {
    info["cuda_driver"] = "not found";
    return info;
  }
  int version = 0;
  if (d->driver_version(&version) == 0) info["cuda_driver_version"] = cuda_version_text(version);
  if (std::string driver = nvidia_driver_version(); !driver.empty()) info["nvidia_driver"] = driver;
  if (std::string runtime = cuda_runtime_version(); !runtime.empty()) info["cuda_runtime_version"] = runtime;
  const std::vector<DeviceInfo> devices = cuda_devices();
  info["gpu_count"] = std::to_string(devices.size());
  for (const DeviceInfo& device : devices) info["gpu" + std::to_string(device.index)] = device.name;
  return info;
}

}  // namespace gtv::collect
