#include "call_names.h"

#include "gtv/model/kineto_names.h"

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

SyncScope sync_scope(std::string_view n) {
  switch (cuda_call(n)) {
    case CudaCall::DeviceSynchronize:
      return SyncScope::Device;
    case CudaCall::StreamSynchronize:
      return SyncScope::Stream;
    default:
      return SyncScope::None;
  }
}

bool is_waiting_range(std::string_view name) { return kineto::is_data_loader_next(name); }

}  // namespace gtv::causal::detail
