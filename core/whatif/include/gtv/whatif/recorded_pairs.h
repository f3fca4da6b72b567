#pragma once
// The pairs of bundled recordings of one machine where gtv recorded both a run and a variant of it: the truth a
// prediction is checked against. gtv-bench-whatif scores the predictions on them and the classroom's exercises
// reveal the variant after the class has guessed.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/whatif/change.h"

namespace gtv::whatif {

struct RecordedPair {
  std::string_view from;     // the recorded run, relative to the traces folder without .json.gz: "h200x1/sequential"
  std::string_view changes;  // as on the command line, separated by spaces: "placement=0,0,0 streams"
  std::string_view to;       // the recording of the variant
};

// The nine pairs the scored table counts (its targets are out of these).
[[nodiscard]] std::span<const RecordedPair> scored_pairs();
// Further pairs the bundled recordings hold: shown beside the scored ones, not counted.
[[nodiscard]] std::span<const RecordedPair> further_pairs();
// The pair of the recorded run `from` with exactly these changes, scored or further; nullptr when none is recorded.
[[nodiscard]] const RecordedPair* find_recorded_pair(std::string_view from, std::string_view changes);
// traces_dir/name.json.gz
[[nodiscard]] std::string recording_path(std::string_view traces_dir, std::string_view name);
// The changes of a pair (or any space-separated list), parsed; the first that does not parse is the error.
[[nodiscard]] Expected<std::vector<Change>> parse_changes(std::string_view text);

}  // namespace gtv::whatif
