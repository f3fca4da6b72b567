#pragma once
// The CUPTI callbacks that move a capture range's gate while the program runs: cuProfilerStart/Stop (driver API)
// and the NVTX range calls (NVTX domain). The apply_* functions are pure: they read the callback data they are
// given and make no CUPTI call, so tests drive them with synthetic callback data.
#include <cupti.h>

#include <cstdint>
#include <vector>

#include "gtv/collect/cupti_source.h"

namespace gtv::collect::cupti {

// The callbacks to enable for a watch, as (domain, callback id).
struct CallbackId {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
};
[[nodiscard]] std::vector<CallbackId> capture_callbacks(const CaptureWatch& watch);

// A driver API callback: the end of cuProfilerStart opens the gate at now_ns, the start of cuProfilerStop closes it.
void apply_driver_call(const CaptureWatch& watch, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site, UnixNs now_ns);
// An NVTX callback from thread tid: range pushes, pops, starts and ends of the watched name (ASCII messages; a
// registered-string message is not a name match).
void apply_nvtx_call(const CaptureWatch& watch, CUpti_CallbackId cbid, const CUpti_NvtxData& data, std::int64_t tid,
                     UnixNs now_ns);

}  // namespace gtv::collect::cupti
