#include "capture_callbacks.h"

#include <generated_nvtx_meta.h>

#include <string_view>

namespace gtv::collect::cupti {
namespace {

std::string_view text(const char* message) {
  return message != nullptr ? std::string_view(message) : std::string_view();
}

std::string_view text(const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr || attributes->messageType != NVTX_MESSAGE_TYPE_ASCII) return {};
  return text(attributes->message.ascii);
}

void move_gate(const CaptureWatch& watch, NvtxRangeWatch::Change change, UnixNs now_ns) {
  if (change == NvtxRangeWatch::Change::Opened) watch.gate->open(now_ns);
  if (change == NvtxRangeWatch::Change::Closed) watch.gate->close(now_ns);
}

template <typename Params>
const Params& params(const CUpti_NvtxData& data) {
  return *static_cast<const Params*>(data.functionParams);
}

// The id a range start returned; 0 (no range) when CUPTI does not pass it.
std::uint64_t returned_id(const CUpti_NvtxData& data) {
  return data.functionReturnValue != nullptr ? *static_cast<const nvtxRangeId_t*>(data.functionReturnValue) : 0;
}

}  // namespace

std::vector<CallbackId> capture_callbacks(const CaptureWatch& watch) {
  std::vector<CallbackId> ids;
  if (watch.gate == nullptr) return ids;
  if (watch.profiler_api) {
    ids.push_back({CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart});
    ids.push_back({CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop});
  }
  if (watch.nvtx != nullptr) {
    for (CUpti_CallbackId cbid :
         {CUPTI_CBID_NVTX_nvtxRangePushA, CUPTI_CBID_NVTX_nvtxRangePushEx, CUPTI_CBID_NVTX_nvtxRangePop,
          CUPTI_CBID_NVTX_nvtxRangeStartA, CUPTI_CBID_NVTX_nvtxRangeStartEx, CUPTI_CBID_NVTX_nvtxRangeEnd,
          CUPTI_CBID_NVTX_nvtxDomainRangePushEx, CUPTI_CBID_NVTX_nvtxDomainRangePop,
          CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, CUPTI_CBID_NVTX_nvtxDomainRangeEnd})
      ids.push_back({CUPTI_CB_DOMAIN_NVTX, cbid});
  }
  return ids;
}

void apply_driver_call(const CaptureWatch& watch, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site, UnixNs now_ns) {
  if (watch.gate == nullptr || !watch.profiler_api) return;
  if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart && site == CUPTI_API_EXIT) watch.gate->open(now_ns);
  if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop && site == CUPTI_API_ENTER) watch.gate->close(now_ns);
}

void apply_nvtx_call(const CaptureWatch& watch, CUpti_CallbackId cbid, const CUpti_NvtxData& data, std::int64_t tid,
                     UnixNs now_ns) {
  if (watch.gate == nullptr || watch.nvtx == nullptr) return;
  NvtxRangeWatch& nvtx = *watch.nvtx;
  const bool has_params = data.functionParams != nullptr;
  NvtxRangeWatch::Change change = NvtxRangeWatch::Change::None;
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
      if (has_params) change = nvtx.push(tid, text(params<nvtxRangePushA_params>(data).message));
      break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      if (has_params) change = nvtx.push(tid, text(params<nvtxRangePushEx_params>(data).eventAttrib));
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
      if (has_params) change = nvtx.push(tid, text(params<nvtxDomainRangePushEx_params>(data).core.eventAttrib));
      break;
    case CUPTI_CBID_NVTX_nvtxRangePop:
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
      change = nvtx.pop(tid);
      break;
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
      if (has_params) change = nvtx.start(returned_id(data), text(params<nvtxRangeStartA_params>(data).message));
      break;
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
      if (has_params) change = nvtx.start(returned_id(data), text(params<nvtxRangeStartEx_params>(data).eventAttrib));
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx:
      if (has_params)
        change = nvtx.start(returned_id(data), text(params<nvtxDomainRangeStartEx_params>(data).core.eventAttrib));
      break;
    case CUPTI_CBID_NVTX_nvtxRangeEnd:
      if (has_params) change = nvtx.end(params<nvtxRangeEnd_params>(data).id);
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
      if (has_params) change = nvtx.end(params<nvtxDomainRangeEnd_params>(data).core.id);
      break;
    default:
      break;
  }
  move_gate(watch, change, now_ns);
}

}  // namespace gtv::collect::cupti
