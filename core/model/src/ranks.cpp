#include "gtv/model/ranks.h"

#include <algorithm>

namespace gtv {

const RankInfo* rank_of_device(const TraceMetadata& metadata, std::int64_t device) {
  for (const RankInfo& r : metadata.ranks)
    if (std::find(r.devices.begin(), r.devices.end(), device) != r.devices.end()) return &r;
  return nullptr;
}

const RankInfo* rank_of_pid(const TraceMetadata& metadata, std::int64_t pid) {
  for (const RankInfo& r : metadata.ranks)
    if (std::find(r.pids.begin(), r.pids.end(), pid) != r.pids.end()) return &r;
  return nullptr;
}

const RankInfo* rank_of_lane(const TraceMetadata& metadata, const Lane& lane) {
  return lane.is_gpu() ? rank_of_device(metadata, lane.device()) : rank_of_pid(metadata, lane.key.pid);
}

std::int64_t local_device(const TraceMetadata& metadata, std::int64_t device) {
  if (const RankInfo* r = rank_of_device(metadata, device)) {
    const auto at = std::find(r->devices.begin(), r->devices.end(), device) - r->devices.begin();
    if (static_cast<std::size_t>(at) < r->local_devices.size()) return r->local_devices[static_cast<std::size_t>(at)];
  }
  return device;
}

std::string gpu_label(const TraceMetadata& metadata, std::int64_t device) {
  const RankInfo* r = rank_of_device(metadata, device);
  const std::string gpu = "GPU " + std::to_string(local_device(metadata, device));
  return r == nullptr ? gpu : "rank " + std::to_string(r->rank) + " · " + gpu;
}

std::string rank_prefix(const TraceMetadata& metadata, const Lane& lane) {
  const RankInfo* r = rank_of_lane(metadata, lane);
  return r == nullptr ? std::string() : "rank " + std::to_string(r->rank) + " · ";
}

}  // namespace gtv
