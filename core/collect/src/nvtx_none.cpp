// Builds without the CUDA headers: NVTX ranges are not emitted.
#include "gtv/collect/nvtx.h"

namespace gtv::collect {

bool nvtx_available() { return false; }
void nvtx_push(const std::string& /*name*/) {}
void nvtx_pop() {}

}  // namespace gtv::collect
