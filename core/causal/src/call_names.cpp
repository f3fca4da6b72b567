#include "call_names.h"

namespace gtv::causal::detail {

CallWait call_wait(std::string_view n) {
  switch (cuda_call(n)) {
    case CudaCall::StreamSynchronize:
    case CudaCall::DeviceSynchronize:
    case CudaCall::EventSynchronize:
      return CallWait::Explicit;
    case CudaCall::Query:
      return CallWait::NonBlocking;
    case CudaCall::SyncCopy:
    case CudaCall::Free:
      return CallWait::Implicit;
    case CudaCall::AsyncCopy:
      return CallWait::AsyncCopy;
    case CudaCall::Other:
    case CudaCall::KernelLaunch:
    case CudaCall::OtherLaunch:
      break;
  }
  return CallWait::None;
}

bool is_launch_call(std::string_view n) { return launches_work(cuda_call(n)); }

bool is_waiting_range(std::string_view name) {
  // A prefix first: this is asked of every op of every thread.
  constexpr std::string_view kPrefix = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter";
  return name.substr(0, kPrefix.size()) == kPrefix && name.find(".__next__") != std::string_view::npos;
}

}  // namespace gtv::causal::detail
