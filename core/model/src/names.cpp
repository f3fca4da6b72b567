// Text forms of the model's enums: the words used in files, reports and the UI.
#include <array>

#include "gtv/model/event.h"
#include "gtv/model/kineto_names.h"
#include "gtv/model/records.h"

namespace gtv {
namespace {

template <typename Enum, std::size_t N>
Enum from_table(const std::array<std::string_view, N>& table, std::string_view text, Enum fallback) {
  for (std::size_t i = 0; i < N; ++i)
    if (table[i] == text) return static_cast<Enum>(i);
  return fallback;
}

constexpr std::array<std::string_view, kEventKindCount> kKindNames = {
    "kernel", "memcpy", "memset", "runtime", "driver", "sync", "cpu_op", "annotation", "overhead", "instant", "other"};
constexpr std::array<std::string_view, kEventKindCount> kKinetoCategories = {
    kineto::kCategoryKernel,
    kineto::kCategoryGpuMemcpy,
    kineto::kCategoryGpuMemset,
    kineto::kCategoryCudaRuntime,
    kineto::kCategoryCudaDriver,
    kineto::kCategoryCudaSync,
    kineto::kCategoryCpuOp,
    kineto::kCategoryUserAnnotation,
    kineto::kCategoryOverhead,
    kineto::kCategoryInstant,
    "other",
};
constexpr std::array<std::string_view, 6> kCopyKinds = {"Unknown", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP"};
constexpr std::array<std::string_view, 5> kMemoryKinds = {"Unknown", "Pageable", "Pinned", "Device", "Managed"};
constexpr std::array<std::string_view, 6> kRangeKinds = {"scenario", "phase", "warmup", "iteration", "forward", "user"};
constexpr std::array<std::string_view, 4> kMethods = {"stopwatch", "stopwatch+sync", "cuda-events", "other"};

}  // namespace

std::string_view to_string(EventKind kind) { return kKindNames[static_cast<std::size_t>(kind)]; }
std::string_view kineto_category(EventKind kind) { return kKinetoCategories[static_cast<std::size_t>(kind)]; }
bool is_gpu_activity(EventKind kind) {
  return kind == EventKind::Kernel || kind == EventKind::Memcpy || kind == EventKind::Memset;
}

std::string_view to_string(CopyKind kind) { return kCopyKinds[static_cast<std::size_t>(kind)]; }
std::string_view to_string(MemoryKind kind) { return kMemoryKinds[static_cast<std::size_t>(kind)]; }
CopyKind copy_kind_from_string(std::string_view text) { return from_table(kCopyKinds, text, CopyKind::Unknown); }
MemoryKind memory_kind_from_string(std::string_view text) {
  return from_table(kMemoryKinds, text, MemoryKind::Unknown);
}

std::string_view to_string(RangeKind kind) { return kRangeKinds[static_cast<std::size_t>(kind)]; }
RangeKind range_kind_from_string(std::string_view text) { return from_table(kRangeKinds, text, RangeKind::User); }

std::string_view to_string(MeasurementMethod method) { return kMethods[static_cast<std::size_t>(method)]; }
MeasurementMethod measurement_method_from_string(std::string_view text) {
  return from_table(kMethods, text, MeasurementMethod::Other);
}

}  // namespace gtv
