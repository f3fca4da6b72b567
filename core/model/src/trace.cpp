#include "gtv/model/trace.h"

#include <algorithm>

namespace gtv {
namespace {

bool ref_less(EventRef a, EventRef b) { return a.lane != b.lane ? a.lane < b.lane : a.index < b.index; }

}  // namespace

std::optional<LaneIndex> Trace::find_lane(const LaneKey& key) const {
  for (LaneIndex i = 0; i < lanes_.size(); ++i)
    if (lanes_[i].key == key) return i;
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

const DeviceInfo* Trace::device(std::int32_t index) const {
  for (const auto& d : devices_)
    if (d.index == index) return &d;
  return nullptr;
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

std::string_view Trace::category(const Event& e) const {
  if (e.kind == EventKind::Other && e.detail != kNoDetail) return strings_.view(e.detail);
  return kineto_category(e.kind);
}

}  // namespace gtv
