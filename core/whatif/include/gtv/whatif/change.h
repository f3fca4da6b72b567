#pragma once
// A change to a recorded run: what the program would do differently. Each change is a transformation of the
// happens-before graph (or of the own times of its nodes) before replay.
#include <array>
#include <cstddef>
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

// The one table of changes, in the enumeration's order: the parser, the usage and help texts, the window's What if
// dialog and its list of changes to try are derived from it.
struct ChangeInfo {
  ChangeKind kind;
  std::string_view spelling;   // as written on the command line, before any '=': "streams", "no-sync"
  std::string_view parameter;  // what follows '=' ("NAME", "GPU,GPU,..."); empty: the change takes none
  std::string_view words;      // what the change does, as the dialog offers it
  bool bounded;   // its model has a parameter the band's bounds set: replayed with each bound's assumptions
  bool replayed;  // predicted by replaying the changed graph, so it has a predicted run to draw and combines with
                  // the other replayed changes; else predicted apart and given alone
};
inline constexpr std::array<ChangeInfo, 8> kChangeTable{{
    {ChangeKind::Streams, "streams", "", "each model's (or thread's) GPU work on a stream of its own", true, true},
    {ChangeKind::Pinned, "pinned", "", "pageable copies become asynchronous copies from pinned memory", true, true},
    {ChangeKind::Graphs, "graphs", "", "each forward's launches become one CUDA graph launch", true, true},
    {ChangeKind::NoLaunchBlocking, "no-launch-blocking", "",
     "launches no longer wait for their kernels (CUDA_LAUNCH_BLOCKING unset)", true, true},
    {ChangeKind::Processes, "processes", "", "one process per GPU: host threads no longer share a process", true, true},
    {ChangeKind::NoSync, "no-sync", "NAME", "the calls named NAME no longer wait for the GPU", false, true},
    {ChangeKind::Placement, "placement", "GPU,GPU,...", "model i's work runs on the i-th GPU listed", false, true},
    {ChangeKind::BalancedRanks, "balanced-ranks", "",
     "the straggler rank's work before each collective takes the other ranks' median", false, false},
}};
constexpr bool changes_in_enum_order() {
  for (std::size_t i = 0; i < kChangeTable.size(); ++i)
    if (static_cast<std::size_t>(kChangeTable[i].kind) != i) return false;
  return true;
}
static_assert(changes_in_enum_order(), "kChangeTable follows ChangeKind's order");
[[nodiscard]] constexpr const ChangeInfo& info(ChangeKind kind) { return kChangeTable[static_cast<std::size_t>(kind)]; }

struct Change {
  ChangeKind kind = ChangeKind::Streams;
  std::string name;                        // NoSync: the call ("cudaDeviceSynchronize")
  std::vector<int> placement;              // Placement: a GPU per model, in model order
  [[nodiscard]] std::string text() const;  // as written on the command line: "placement=0,1,0"
};

// "streams", "pinned", ..., "no-sync=NAME", "placement=0,1,0" (kChangeTable's spellings). An error is one line
// naming what was wrong.
[[nodiscard]] Expected<Change> parse_change(std::string_view text);
// Changes that cannot be combined (the same change twice, two placements, a change that is not replayed with any
// other).
[[nodiscard]] Expected<Ok> check_compatible(std::span<const Change> changes);

// Lists of the accepted spellings for usage and help texts, from kChangeTable: the changes without a parameter,
// then those with one ("no-sync=NAME").
enum class ChangeList : std::uint8_t {
  All,       // every change: "streams, ..., balanced-ranks, no-sync=NAME, placement=GPU,GPU,..."
  Replayed,  // the replayed ones, then the others marked "(given alone)"
  Drawn,     // only the replayed ones (those with a predicted run to draw)
};
[[nodiscard]] std::string_view change_names(ChangeList list = ChangeList::All);
// The changes without a parameter, in the table's order (those a dialog can offer as checkboxes).
[[nodiscard]] std::vector<Change> parameterless_changes();

}  // namespace gtv::whatif
