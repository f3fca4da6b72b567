#include "gtv/model/trace.h"

#include <algorithm>
#include <numeric>

namespace gtv {
namespace {

bool ref_less(EventRef a, EventRef b) { return a.lane != b.lane ? a.lane < b.lane : a.index < b.index; }

}  // namespace

void Trace::index_lanes() {
  lane_by_key_.resize(lanes_.size());
  std::iota(lane_by_key_.begin(), lane_by_key_.end(), LaneIndex{0});
  std::sort(lane_by_key_.begin(), lane_by_key_.end(),
            [&](LaneIndex a, LaneIndex b) { return lanes_[a].key < lanes_[b].key; });
}

std::optional<LaneIndex> Trace::find_lane(const LaneKey& key) const {
  auto it = std::lower_bound(lane_by_key_.begin(), lane_by_key_.end(), key,
                             [&](LaneIndex i, const LaneKey& k) { return lanes_[i].key < k; });
  if (it != lane_by_key_.end() && lanes_[*it].key == key) return *it;
  return std::nullopt;
}

std::optional<Flow> Trace::flow_of(EventRef ref) const {
  auto search = [&](const std::vector<std::uint32_t>& order, auto endpoint) -> std::optional<Flow> {
    auto it = std::lower_bound(order.begin(), order.end(), ref,
                               [&](std::uint32_t f, EventRef r) { return ref_less(endpoint(flows_[f]), r); });
    if (it != order.end() && endpoint(flows_[*it]) == ref) return flows_[*it];
    return std::nullopt;
  };
  if (auto f = search(flow_by_from_, [](const Flow& flow) { return flow.from; })) return f;
  return search(flow_by_to_, [](const Flow& flow) { return flow.to; });
}

std::vector<Flow> Trace::flows_from(EventRef ref) const {
  std::vector<Flow> out;
  auto it = std::lower_bound(flow_by_from_.begin(), flow_by_from_.end(), ref,
                             [&](std::uint32_t f, EventRef r) { return ref_less(flows_[f].from, r); });
  for (; it != flow_by_from_.end() && flows_[*it].from == ref; ++it) out.push_back(flows_[*it]);
  return out;
}

std::optional<Flow> Trace::backward_link_of(EventRef ref) const {
  // Linear: one link per autograd op at most, searched once per selection.
  for (const Flow& link : backward_links_)
    if (link.from == ref || link.to == ref) return link;
  return std::nullopt;
}

std::vector<Flow> Trace::dependencies_of(EventRef ref) const {
  std::vector<Flow> out;
  auto collect = [&](const std::vector<std::uint32_t>& order, auto endpoint) {
    auto it = std::lower_bound(order.begin(), order.end(), ref,
                               [&](std::uint32_t d, EventRef r) { return ref_less(endpoint(dependencies_[d]), r); });
    for (; it != order.end() && endpoint(dependencies_[*it]) == ref; ++it) out.push_back(dependencies_[*it]);
  };
  collect(dependency_by_from_, [](const Flow& link) { return link.from; });
  collect(dependency_by_to_, [](const Flow& link) { return link.to; });
  return out;
}

const DeviceInfo* Trace::device(std::int32_t index) const {
  // Sorted by index and unique (TraceBuilder::build).
  auto it = std::lower_bound(devices_.begin(), devices_.end(), index,
                             [](const DeviceInfo& d, std::int32_t i) { return d.index < i; });
  return it != devices_.end() && it->index == index ? &*it : nullptr;
}

const KernelDetail* Trace::kernel_detail(const Event& e) const {
  return e.kind == EventKind::Kernel && e.detail < kernels_.size() ? &kernels_[e.detail] : nullptr;
}
const MemcpyDetail* Trace::memcpy_detail(const Event& e) const {
  return e.kind == EventKind::Memcpy && e.detail < memcpys_.size() ? &memcpys_[e.detail] : nullptr;
}
const MemsetDetail* Trace::memset_detail(const Event& e) const {
  return e.kind == EventKind::Memset && e.detail < memsets_.size() ? &memsets_[e.detail] : nullptr;
}

void Trace::index_ranks() {
  rank_by_device_.clear();
  rank_by_pid_.clear();
  for (std::uint32_t r = 0; r < metadata_.ranks.size(); ++r) {
    const RankInfo& info = metadata_.ranks[r];
    for (std::size_t d = 0; d < info.devices.size(); ++d)
      rank_by_device_.push_back(
          {info.devices[d], r, d < info.local_devices.size() ? info.local_devices[d] : info.devices[d]});
    for (const std::int64_t pid : info.pids) rank_by_pid_.push_back({pid, r, 0});
  }
  for (auto* entries : {&rank_by_device_, &rank_by_pid_})
    std::stable_sort(entries->begin(), entries->end(),
                     [](const RankEntry& a, const RankEntry& b) { return a.id < b.id; });
}

const Trace::RankEntry* Trace::find_rank_entry(const std::vector<RankEntry>& entries, std::int64_t id) {
  const auto it =
      std::lower_bound(entries.begin(), entries.end(), id, [](const RankEntry& e, std::int64_t v) { return e.id < v; });
  return it != entries.end() && it->id == id ? &*it : nullptr;
}

const RankInfo* Trace::rank_of_device(std::int64_t device) const {
  const RankEntry* e = find_rank_entry(rank_by_device_, device);
  return e == nullptr ? nullptr : &metadata_.ranks[e->rank];
}

const RankInfo* Trace::rank_of_pid(std::int64_t pid) const {
  const RankEntry* e = find_rank_entry(rank_by_pid_, pid);
  return e == nullptr ? nullptr : &metadata_.ranks[e->rank];
}

std::int64_t Trace::local_device(std::int64_t device) const {
  const RankEntry* e = find_rank_entry(rank_by_device_, device);
  return e == nullptr ? device : e->local_device;
}

std::optional<std::int64_t> Trace::external_id(const Event& e) const {
  if (e.args >= arg_sets_.size() || arg_sets_[e.args].external_id == kNoExternalId) return std::nullopt;
  return arg_sets_[e.args].external_id;
}

std::vector<EventArg> Trace::extra_args(const Event& e) const {
  std::vector<EventArg> out;
  if (e.args >= arg_sets_.size()) return out;
  if (arg_sets_[e.args].shape >= arg_shapes_.size()) return out;
  const ArgShape& set = arg_shapes_[arg_sets_[e.args].shape];
  out.reserve(set.count);
  std::uint64_t offset = set.text_offset;
  for (std::uint32_t i = set.first; i < set.first + set.count; ++i) {
    const ArgEntry& entry = arg_entries_[i];
    out.push_back({strings_.view(entry.key), std::string_view(arg_text_).substr(offset, entry.value_bytes)});
    offset += entry.value_bytes;
  }
  return out;
}

std::string_view Trace::category(const Event& e) const {
  if (e.kind == EventKind::Other && e.detail != kNoDetail) return strings_.view(e.detail);
  return kineto_category(e.kind);
}

}  // namespace gtv
