#include "cupti_calls.h"

#include <dlfcn.h>

#include <array>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "capture_callbacks.h"
#include "gtv/collect/thread_id.h"

namespace gtv::collect::cupti {
namespace {

struct EnabledState {
  std::mutex mutex;
  std::vector<CUpti_ActivityKind> kinds;
  CUpti_SubscriberHandle subscriber = nullptr;
};

EnabledState& enabled_state() {
  static EnabledState state;
  return state;
}

// The subscriber's callback: only the calls a capture range watches are enabled (none without one). userdata is
// the session's CaptureWatch.
void CUPTIAPI capture_callback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* watch = static_cast<const CaptureWatch*>(userdata);
  std::uint64_t now_ns = 0;
  if (watch == nullptr || data == nullptr || cuptiGetTimestamp(&now_ns) != CUPTI_SUCCESS) return;
  const auto now = static_cast<UnixNs>(now_ns);
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
    apply_driver_call(*watch, cbid, static_cast<const CUpti_CallbackData*>(data)->callbackSite, now);
  else if (domain == CUPTI_CB_DOMAIN_NVTX)
    apply_nvtx_call(*watch, cbid, *static_cast<const CUpti_NvtxData*>(data), current_tid(), now);
}

struct KindSpec {
  CUpti_ActivityKind kind;
  const char* name;
  bool required;
};

std::vector<KindSpec> kinds_for(const CuptiOptions& o) {
  std::vector<KindSpec> kinds = {
      {CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE", false},
      {CUPTI_ACTIVITY_KIND_CONTEXT, "CONTEXT", false},
      {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", true},
      {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", true},
      {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", false},
      {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", true},
      {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", true},
      {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", false},
      {CUPTI_ACTIVITY_KIND_CUDA_EVENT, "CUDA_EVENT", false},  // what event waits wait for
  };
  if (o.driver_api) kinds.push_back({CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", false});
  if (o.overhead) kinds.push_back({CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD", false});
  if (o.memory) kinds.push_back({CUPTI_ACTIVITY_KIND_MEMORY2, "MEMORY2", false});
  if (o.markers) kinds.push_back({CUPTI_ACTIVITY_KIND_MARKER, "MARKER", false});
  return kinds;
}

// API calls that fire constantly and tell nothing about the timeline (63k of 82k records in the seed run were
// cudaGetDevice). Context creation stays visible through the driver calls inside cudaSetDevice.
constexpr std::array kNoisyRuntimeApi = {
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,          CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,       CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000, CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000,
};
constexpr std::array kNoisyDriverApi = {
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,           CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice_v2,         CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuStreamIsCapturing,       CUPTI_DRIVER_TRACE_CBID_cuStreamIsCapturing_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo,    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v2, CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v3, CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v3_ptsz,
};

void switch_off_noisy_api(const CuptiOptions& o) {
  if (o.all_api) return;
  // Best effort: an id this CUPTI does not know only means it never reports that call.
  for (auto cbid : kNoisyRuntimeApi) (void)cuptiActivityEnableRuntimeApi(cbid, 0);
  if (o.driver_api)
    for (auto cbid : kNoisyDriverApi) (void)cuptiActivityEnableDriverApi(cbid, 0);
}

}  // namespace

std::string describe_failure(const char* call, CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown CUPTI error";
  std::string message = std::string(call) + " failed: " + text;
  switch (result) {
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      message += " (another profiler holds CUPTI: torch.profiler, Nsight Systems, compute-sanitizer?)";
      break;
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_INVALID_DEVICE:
    case CUPTI_ERROR_NOT_SUPPORTED:
      message += " (no usable GPU or CUDA driver)";
      break;
    case CUPTI_ERROR_UNKNOWN:
      message += " (no usable GPU, or another profiler holds CUPTI?)";
      break;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      message += " (tracing needs more privileges here)";
      break;
    default:
      break;
  }
  return message;
}

// The state is only swapped under the mutex: no CUPTI call is made while it is held (a CUPTI call may deliver
// buffers, and the rule is never to call CUPTI with a lock of ours held).
Status enable_tracing(const CuptiOptions& options, CUpti_BuffersCallbackRequestFunc requested,
                      CUpti_BuffersCallbackCompleteFunc completed, ActivitySink& sink) {
  EnabledState& state = enabled_state();
  CUpti_SubscriberHandle subscriber = nullptr;
  // Never freed: CUPTI may still call back with it while another thread unsubscribes. One small copy per start.
  auto* watch = new CaptureWatch(options.capture);
  if (CUptiResult r = cuptiSubscribe(&subscriber, capture_callback, watch); r != CUPTI_SUCCESS)
    return Error{describe_failure("cuptiSubscribe", r)};
  {
    std::lock_guard lock(state.mutex);
    state.subscriber = subscriber;
  }
  for (const CallbackId& id : capture_callbacks(options.capture)) {
    if (CUptiResult r = cuptiEnableCallback(1, subscriber, id.domain, id.cbid); r != CUPTI_SUCCESS)
      return Error{describe_failure("cuptiEnableCallback (capture range)", r)};
  }
  if (CUptiResult r = cuptiActivityRegisterCallbacks(requested, completed); r != CUPTI_SUCCESS)
    return Error{describe_failure("cuptiActivityRegisterCallbacks", r)};
  for (const KindSpec& k : kinds_for(options)) {
    const CUptiResult r = cuptiActivityEnable(k.kind);
    if (r == CUPTI_SUCCESS) {
      std::lock_guard lock(state.mutex);
      state.kinds.push_back(k.kind);
      continue;
    }
    const std::string what = "cuptiActivityEnable(" + std::string(k.name) + ")";
    if (k.required) return Error{describe_failure(what.c_str(), r)};
    sink.on_note("CUPTI: " + describe_failure(what.c_str(), r) + "; recorded without it");
  }
  switch_off_noisy_api(options);
  return ok_status();
}

void disable_kinds() {
  EnabledState& state = enabled_state();
  std::vector<CUpti_ActivityKind> kinds;
  {
    std::lock_guard lock(state.mutex);
    kinds.swap(state.kinds);
  }
  for (CUpti_ActivityKind kind : kinds) (void)cuptiActivityDisable(kind);
}

void unsubscribe() {
  EnabledState& state = enabled_state();
  CUpti_SubscriberHandle subscriber = nullptr;
  {
    std::lock_guard lock(state.mutex);
    std::swap(subscriber, state.subscriber);
  }
  if (subscriber != nullptr) (void)cuptiUnsubscribe(subscriber);
}

std::string inject_nvtx() {
  constexpr const char* kVariable = "NVTX_INJECTION64_PATH";
  if (const char* existing = std::getenv(kVariable)) return std::string("NVTX injection already set to ") + existing;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) == 0 || info.dli_fname == nullptr)
    return "NVTX injection not set: the path of libcupti is unknown";
  if (::setenv(kVariable, info.dli_fname, 0) != 0) return "NVTX injection not set: setenv failed";
  return std::string("NVTX injection set to ") + info.dli_fname + " (takes effect only before the first NVTX call)";
}

Status flush_all() {
  if (CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); r != CUPTI_SUCCESS)
    return Error{describe_failure("cuptiActivityFlushAll", r)};
  return ok_status();
}

ApiNamer cached_api_namer() {
  struct Cache {
    std::mutex mutex;
    std::unordered_map<std::uint64_t, std::string> names;  // (domain << 32 | cbid) -> name
  };
  auto cache = std::make_shared<Cache>();
  return [cache](ApiKind api, std::uint32_t cbid) -> std::string {
    const auto domain = api == ApiKind::Runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    const std::uint64_t key = (static_cast<std::uint64_t>(domain) << 32) | cbid;
    {
      std::lock_guard lock(cache->mutex);
      if (auto it = cache->names.find(key); it != cache->names.end()) return it->second;
    }
    const char* raw = nullptr;
    std::string name = cuptiGetCallbackName(domain, cbid, &raw) == CUPTI_SUCCESS && raw != nullptr
                           ? api_name_from_callback_name(raw)
                           : fallback_api_name(api, cbid);
    std::lock_guard lock(cache->mutex);
    return cache->names.try_emplace(key, std::move(name)).first->second;
  };
}

}  // namespace gtv::collect::cupti
