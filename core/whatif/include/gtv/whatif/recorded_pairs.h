#pragma once
// The pairs of bundled recordings where gtv recorded both a run and its variant: a what-if prediction from the
// first can be set beside the recording of the second. The one table the scored benchmark (bench/whatif), the
// window's What if and the classroom read.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/whatif/change.h"

namespace gtv::whatif {

struct RecordedPair {
  const char* from;     // a recording, relative to resources/traces, without .json.gz: "h200x1/sequential"
  const char* changes;  // the changes, separated by spaces: "placement=0,0,0 streams"
  const char* to;       // the recording of the variant
};

// The pairs the score counts: seven on one H200 (every model on cuda:0), and on two H200s the seed placement
// (models on cuda:0, cuda:1, cuda:0) undone from its recording, and its pageable copies made pinned.
[[nodiscard]] std::span<const RecordedPair> scored_pairs();
// Further pairs the bundled recordings hold, shown and not scored.
[[nodiscard]] std::span<const RecordedPair> further_pairs();
// Pairs recorded by torch.profiler (bench/training/record_training.py on one H200): users' training and inference
// loops, scored apart from gtv's own recordings.
[[nodiscard]] std::span<const RecordedPair> profiler_pairs();

// The variant recorded for `from` (a recording's path relative to resources/traces, without .json.gz, '/'
// separated) with exactly these changes in this order, among all three lists; nullopt when none is.
[[nodiscard]] std::optional<std::string> recorded_variant(std::string_view from, std::span<const Change> changes);

// "h200x1/sequential" from ".../resources/traces/h200x1/sequential.json.gz" (the file's folder and stem), empty
// when the path has no folder.
[[nodiscard]] std::string recording_key(std::string_view path);

// The pair of the recorded run `from` with exactly these changes (as written in the table), scored or further;
// nullptr when none is recorded.
[[nodiscard]] const RecordedPair* find_recorded_pair(std::string_view from, std::string_view changes);
// traces_dir/name.json.gz
[[nodiscard]] std::string recording_path(std::string_view traces_dir, std::string_view name);
// The changes of a pair (or any space-separated list), parsed; the first that does not parse is the error.
[[nodiscard]] Expected<std::vector<Change>> parse_changes(std::string_view text);

}  // namespace gtv::whatif
