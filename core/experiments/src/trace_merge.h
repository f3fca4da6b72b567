#pragma once
// Merging the traces of several processes of one host into one (gtv/model/merge.h): they share the clock
// (CLOCK_REALTIME), so times only move to the earliest origin; host lanes keep their OS pids; correlation ids are
// moved apart and counter series of one GPU summed, as the model's merge does.
#include <string>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/model/trace.h"

namespace gtv::exp {

struct MergePart {
  const Trace* trace = nullptr;
  std::string label;  // "worker 1 (cuda:1)": process label and prefix of its notes
};

// The merged trace's metadata: scenario and config from the caller, machine from the first part, notes of every
// part (prefixed with its label) after extra_notes, dropped records summed. extra_ranges are added as they are.
[[nodiscard]] Expected<Trace> merge_traces(const std::vector<MergePart>& parts, TraceMetadata metadata,
                                           const std::vector<Range>& extra_ranges, TimeNs origin_unix_ns);

}  // namespace gtv::exp
