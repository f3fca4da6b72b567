#pragma once
// NVTX push/pop without NVTX in the interface: real calls when the build has the CUDA headers (NVTX v3 is
// header-only), nothing otherwise. Used by HostRecorder so Nsight users see gtv's ranges.
#include <string>

namespace gtv::collect {

[[nodiscard]] bool nvtx_available();
void nvtx_push(const std::string& name);
void nvtx_pop();

}  // namespace gtv::collect
