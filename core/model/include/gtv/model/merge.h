#pragma once
// Merging traces into one: the worker processes of one recording (one host, one clock) or the ranks of a
// torch.distributed run (one file per rank, see rank_merge.h). Every time of a part moves by its shift; host pids
// and GPU ids go through the part's maps (identity where a map says nothing); correlation ids, which every
// process numbers from 1, are moved apart so that launch-to-kernel flows stay within their part. Flows, backward
// links, dependencies, args and External ids are carried over; counter series of the same (pid, name) in several
// parts are summed (two processes counting memory on one GPU, each from its own start).
#include <map>
#include <span>
#include <string>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/model/trace.h"

namespace gtv {

struct MergePart {
  const Trace* trace = nullptr;
  std::string label;    // "worker 1 (cuda:1)", "rank 1": prefix of the part's notes and measurements, and a label
                        // of its processes
  TimeNs shift_ns = 0;  // added to every time of the part
  std::map<std::int64_t, std::int64_t> pid_map;     // host pid -> merged pid
  std::map<std::int64_t, std::int64_t> device_map;  // GPU id -> merged GPU id; when given, the properties of GPUs
                                                    // it leaves out (listed, never used) are dropped
  // Non-empty: lane and process names start with it ("rank 1 · "); GPU lanes then also name their GPU as the
  // part numbered it ("rank 1 · GPU 0 · stream 7").
  std::string name_prefix;
};

// The merged trace's metadata is `metadata` (its origin included) with the machine of the first part where it has
// none, every part's notes (prefixed with its label, if it has one) after its own, and the parts' dropped records
// added. extra_ranges are added as they are.
[[nodiscard]] Expected<Trace> merge_traces(std::span<const MergePart> parts, TraceMetadata metadata,
                                           std::span<const Range> extra_ranges = {});

}  // namespace gtv
