// NVTX v3 (header-only): pushes gtv's ranges into the "gtv" domain, so Nsight shows them and gtv's own CUPTI
// MARKER handling can tell them from the workload's ranges (which it keeps as annotations).
#include <nvtx3/nvToolsExt.h>

#include "gtv/collect/names.h"
#include "gtv/collect/nvtx.h"

namespace gtv::collect {
namespace {

nvtxDomainHandle_t gtv_domain() {
  static const nvtxDomainHandle_t domain = nvtxDomainCreateA(std::string(kGtvNvtxDomain).c_str());
  return domain;
}

}  // namespace

bool nvtx_available() { return true; }

void nvtx_push(const std::string& name) {
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = name.c_str();
  nvtxDomainRangePushEx(gtv_domain(), &attributes);
}

void nvtx_pop() { nvtxDomainRangePop(gtv_domain()); }

}  // namespace gtv::collect
