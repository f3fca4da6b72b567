#include "nsys/nsys_schema.h"

#include <algorithm>

namespace gtv::io::nsys {

CopyKind copy_kind_from_cupti(std::int64_t kind) {
  switch (kind) {
    case 1:  // HTOD
    case 3:  // HTOA
      return CopyKind::HostToDevice;
    case 2:  // DTOH
    case 4:  // ATOH
      return CopyKind::DeviceToHost;
    case 5:  // ATOA
    case 6:  // ATOD
    case 7:  // DTOA
    case 8:  // DTOD
      return CopyKind::DeviceToDevice;
    case 9:
      return CopyKind::HostToHost;
    case 10:
      return CopyKind::PeerToPeer;
    default:
      return CopyKind::Unknown;
  }
}

MemoryKind memory_kind_from_cupti(std::int64_t kind) {
  switch (kind) {
    case 1:
      return MemoryKind::Pageable;
    case 2:
      return MemoryKind::Pinned;
    case 3:  // DEVICE
    case 4:  // ARRAY
    case 6:  // DEVICE_STATIC
      return MemoryKind::Device;
    case 5:  // MANAGED
    case 7:  // MANAGED_STATIC
      return MemoryKind::Managed;
    default:
      return MemoryKind::Unknown;
  }
}

std::string_view runtime_call_name(std::string_view name) {
  const std::size_t suffix = name.rfind("_v");
  if (name.substr(0, 4) != "cuda" || suffix == std::string_view::npos || suffix + 2 == name.size()) return name;
  const std::string_view digits = name.substr(suffix + 2);
  const bool version = std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  return version ? name.substr(0, suffix) : name;
}

}  // namespace gtv::io::nsys
