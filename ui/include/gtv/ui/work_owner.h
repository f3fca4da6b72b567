#pragma once
// Who launched each piece of GPU work: the innermost model forward range (RangeKind::Forward), else the innermost
// user annotation (record_function, NVTX), around the host launch on the launching thread. Kernels of models that
// share a GPU look alike by name; coloured by their owner they tell apart at a glance. Computed once per trace,
// in the loader's worker thread, with no Qt so it is unit tested.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/model/trace.h"
#include "gtv/ui/palette.h"

namespace gtv::ui {

inline constexpr std::uint16_t kNoOwner = 0xffff;

// An owner is a range name in one process: where two processes launch work under the same name (two workers each
// with their "model 0"), each is its own owner, named with its process ("pid 1234 \u00b7 model 0 forward").
struct WorkOwners {
  std::vector<std::string> names;        // per owner index: "model 0 forward", or with its pid as above
  std::vector<Rgb> colors;               // per owner index: distinct within the trace, stable for a name
  std::vector<std::string> range_names;  // per owner index: the range's own name, "model 0 forward"
  std::vector<std::int64_t> pids;        // per owner index: the process that launched the work
  // Per lane, per event index: the owner index, or kNoOwner. Empty for host lanes and lanes with no owned work.
  std::vector<std::vector<std::uint16_t>> of_event;
  std::size_t gpu_events = 0;    // GPU activities (kernels, copies, memsets)
  std::size_t owned_events = 0;  // of those, the ones with an owner

  [[nodiscard]] std::uint16_t owner_of(LaneIndex lane, std::uint32_t index) const {
    if (lane >= of_event.size() || index >= of_event[lane].size()) return kNoOwner;
    return of_event[lane][index];
  }
  // The owner of a range `name` in process `pid` (kNoOwner: it owns no GPU work).
  [[nodiscard]] std::uint16_t find(std::int64_t pid, std::string_view name) const;
  // Owners are worth colouring by when they own most of the GPU work.
  [[nodiscard]] bool own_most_gpu_work() const { return !names.empty() && owned_events * 2 > gpu_events; }
};

// O(n log n) over ranges, annotations and flows: ranges are sorted per thread and found by binary search.
[[nodiscard]] WorkOwners work_owners(const Trace& trace);

}  // namespace gtv::ui
