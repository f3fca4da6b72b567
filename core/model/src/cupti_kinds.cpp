#include "gtv/model/cupti_kinds.h"

namespace gtv {

CopyKind copy_kind_from_cupti(std::int64_t kind) {
  using namespace cupti_kind;
  switch (kind) {
    case kHtoD:
    case kHtoA:
      return CopyKind::HostToDevice;
    case kDtoH:
    case kAtoH:
      return CopyKind::DeviceToHost;
    case kAtoA:
    case kAtoD:
    case kDtoA:
    case kDtoD:
      return CopyKind::DeviceToDevice;
    case kHtoH:
      return CopyKind::HostToHost;
    case kPtoP:
      return CopyKind::PeerToPeer;
    default:
      return CopyKind::Unknown;
  }
}

MemoryKind memory_kind_from_cupti(std::int64_t kind) {
  using namespace cupti_kind;
  switch (kind) {
    case kPageable:
      return MemoryKind::Pageable;
    case kPinned:
      return MemoryKind::Pinned;
    case kDevice:
    case kArray:
    case kDeviceStatic:
      return MemoryKind::Device;
    case kManaged:
    case kManagedStatic:
      return MemoryKind::Managed;
    default:
      return MemoryKind::Unknown;
  }
}

}  // namespace gtv
