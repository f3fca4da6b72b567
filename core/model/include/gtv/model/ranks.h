#pragma once
// The ranks of a run merged from per-rank files (TraceMetadata::ranks): which rank a GPU, a host process or a lane
// belongs to, and how to name a GPU so that a reader knows whose it is.
#include <cstdint>
#include <string>

#include "gtv/model/lane.h"
#include "gtv/model/records.h"
#include "gtv/model/trace.h"

namespace gtv {

// nullptr when the trace holds no ranks or none has that GPU / process. Trace::rank_of_device and rank_of_pid
// answer in O(log n); the metadata versions scan (for a sentence or two, not per lane).
[[nodiscard]] const RankInfo* rank_of_device(const TraceMetadata& metadata, std::int64_t device);
[[nodiscard]] const RankInfo* rank_of_lane(const Trace& trace, const Lane& lane);

// The device id the rank's own file gave a GPU of the merged trace (the id itself outside merged runs).
[[nodiscard]] std::int64_t local_device(const TraceMetadata& metadata, std::int64_t device);

// "GPU 1"; in a merged run "rank 1 · GPU 1", with the GPU numbered as its rank numbered it.
[[nodiscard]] std::string gpu_label(const Trace& trace, std::int64_t device);
[[nodiscard]] std::string gpu_label(const TraceMetadata& metadata, std::int64_t device);
// "rank 1 · " for a lane of a merged run, else empty.
[[nodiscard]] std::string rank_prefix(const Trace& trace, const Lane& lane);

}  // namespace gtv
