#pragma once
// CUPTI's copy and memory kinds as numbers (CUpti_ActivityMemcpyKind, CUpti_ActivityMemoryKind), and what the model
// calls them: the one table for the CUPTI converter (core/collect/cupti, which checks these numbers against
// cupti.h) and the Nsight Systems reader (core/io, whose exports hold the same numbers in copyKind, srcKind, dstKind
// and memKind, named by ENUM_CUDA_MEMCPY_OPER and ENUM_CUDA_MEM_KIND).
#include <cstdint>

#include "gtv/model/event.h"

namespace gtv::cupti_kind {

// CUpti_ActivityMemcpyKind
inline constexpr std::int64_t kHtoD = 1;
inline constexpr std::int64_t kDtoH = 2;
inline constexpr std::int64_t kHtoA = 3;
inline constexpr std::int64_t kAtoH = 4;
inline constexpr std::int64_t kAtoA = 5;
inline constexpr std::int64_t kAtoD = 6;
inline constexpr std::int64_t kDtoA = 7;
inline constexpr std::int64_t kDtoD = 8;
inline constexpr std::int64_t kHtoH = 9;
inline constexpr std::int64_t kPtoP = 10;

// CUpti_ActivityMemoryKind
inline constexpr std::int64_t kPageable = 1;
inline constexpr std::int64_t kPinned = 2;
inline constexpr std::int64_t kDevice = 3;
inline constexpr std::int64_t kArray = 4;
inline constexpr std::int64_t kManaged = 5;
inline constexpr std::int64_t kDeviceStatic = 6;
inline constexpr std::int64_t kManagedStatic = 7;

}  // namespace gtv::cupti_kind

namespace gtv {

// Unknown for any number CUPTI does not define (a newer CUPTI's kind, a corrupt export).
[[nodiscard]] CopyKind copy_kind_from_cupti(std::int64_t cupti_memcpy_kind);
[[nodiscard]] MemoryKind memory_kind_from_cupti(std::int64_t cupti_memory_kind);

}  // namespace gtv
