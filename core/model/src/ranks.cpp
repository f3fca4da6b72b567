#include "gtv/model/ranks.h"

#include <algorithm>

namespace gtv {
namespace {

std::string label_of(const RankInfo* rank, std::int64_t local) {
  const std::string gpu = "GPU " + std::to_string(local);
  return rank == nullptr ? gpu : "rank " + std::to_string(rank->rank) + " · " + gpu;
}

}  // namespace

const RankInfo* rank_of_device(const TraceMetadata& metadata, std::int64_t device) {
  for (const RankInfo& r : metadata.ranks)
    if (std::find(r.devices.begin(), r.devices.end(), device) != r.devices.end()) return &r;
  return nullptr;
}

const RankInfo* rank_of_lane(const Trace& trace, const Lane& lane) {
  return lane.is_gpu() ? trace.rank_of_device(lane.device()) : trace.rank_of_pid(lane.key.pid);
}

std::int64_t local_device(const TraceMetadata& metadata, std::int64_t device) {
  if (const RankInfo* r = rank_of_device(metadata, device)) {
    const auto at = std::find(r->devices.begin(), r->devices.end(), device) - r->devices.begin();
    if (static_cast<std::size_t>(at) < r->local_devices.size()) return r->local_devices[static_cast<std::size_t>(at)];
  }
  return device;
}

std::string gpu_label(const Trace& trace, std::int64_t device) {
  return label_of(trace.rank_of_device(device), trace.local_device(device));
}

std::string gpu_label(const TraceMetadata& metadata, std::int64_t device) {
  return label_of(rank_of_device(metadata, device), local_device(metadata, device));
}

std::string rank_prefix(const Trace& trace, const Lane& lane) {
  const RankInfo* r = rank_of_lane(trace, lane);
  return r == nullptr ? std::string() : "rank " + std::to_string(r->rank) + " · ";
}

}  // namespace gtv
