#include "report/record_names.h"

#include <algorithm>

namespace gtv::analysis::detail {
namespace {

std::uint64_t kernel_key(std::int64_t device, StringId name) {
  return (static_cast<std::uint64_t>(device) << 32) ^ name;
}

}  // namespace

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool FirstKernelRuns::is_first_run(EventRef kernel) {
  return is_first_run(trace_.lane(kernel.lane).device(), trace_.event(kernel));
}

bool FirstKernelRuns::is_first_run(std::int64_t device, const Event& kernel) {
  if (kernel.kind != EventKind::Kernel) return false;
  if (!built_) build();
  const auto it = first_.find(kernel_key(device, kernel.name));
  return it != first_.end() && it->second == kernel.start_ns;
}

void FirstKernelRuns::build() {
  built_ = true;
  for (const Lane& lane : trace_.lanes()) {
    if (!lane.is_gpu()) continue;
    for (const Event& e : lane.events) {
      if (e.kind != EventKind::Kernel) continue;
      auto [it, inserted] = first_.try_emplace(kernel_key(lane.device(), e.name), e.start_ns);
      if (!inserted) it->second = std::min(it->second, e.start_ns);
    }
  }
}

}  // namespace gtv::analysis::detail
