#pragma once
// A change to a recorded run: what the program would do differently. Each change is a transformation of the
// happens-before graph (or of the own times of its nodes) before replay.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/base/expected.h"

namespace gtv::whatif {

enum class ChangeKind : std::uint8_t {
  Streams,           // each model's (else each launching thread's) GPU work on its own stream
  Pinned,            // pageable copies become asynchronous copies from pinned memory
  Graphs,            // each forward's launches become one CUDA graph launch
  NoLaunchBlocking,  // launches no longer wait for their work (CUDA_LAUNCH_BLOCKING unset)
  Processes,         // one process per GPU: the host threads no longer share a process's locks
  NoSync,            // the calls named `name` no longer wait for the GPU
  Placement,         // model i's work runs on GPU placement[i]
  BalancedRanks,     // the straggler rank's work before each collective takes the other ranks' median
};

struct Change {
  ChangeKind kind = ChangeKind::Streams;
  std::string name;                        // NoSync: the call ("cudaDeviceSynchronize")
  std::vector<int> placement;              // Placement: a GPU per model, in model order
  [[nodiscard]] std::string text() const;  // as written on the command line: "placement=0,1,0"
};

// "streams", "pinned", "graphs", "no-launch-blocking", "processes", "balanced-ranks", "no-sync=NAME",
// "placement=0,1,0". An
// error is one line naming what was wrong.
[[nodiscard]] Expected<Change> parse_change(std::string_view text);
// Changes that cannot be combined (the same change twice, two placements, balanced-ranks with any other).
[[nodiscard]] Expected<Ok> check_compatible(std::span<const Change> changes);
// The accepted spellings, for usage texts.
[[nodiscard]] std::string_view change_names();

}  // namespace gtv::whatif
