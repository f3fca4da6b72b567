#include "gtv/ui/lane_layout.h"

#include <algorithm>

namespace gtv::ui {

GroupKey group_of(const LaneKey& key) { return {key.kind, key.pid}; }

LaneLayout::LaneLayout(const std::vector<LaneDesc>& lanes, const std::vector<std::string>& group_labels,
                       const LaneViewState& state, const LayoutOptions& options)
    : row_of_lane_(lanes.size(), -1), options_(options) {
  double y = 0;
  bool have_group = false;
  GroupKey current{};
  for (LaneIndex i = 0; i < lanes.size(); ++i) {
    const GroupKey group = group_of(lanes[i].key);
    const bool group_collapsed = state.collapsed_groups.count(group) != 0;
    if (!have_group || group != current) {
      have_group = true;
      current = group;
      LaneRow header;
      header.kind = group.first == LaneKind::GpuStream ? RowKind::DeviceHeader : RowKind::ProcessHeader;
      header.group = group;
      header.top_px = y;
      header.height_px = options.header_px;
      header.collapsed = group_collapsed;
      header.label = i < group_labels.size() ? group_labels[i] : std::string();
      rows_.push_back(std::move(header));
      y += options.header_px;
    }
    if (group_collapsed || state.hidden_lanes.count(i) != 0) continue;
    LaneRow row;
    row.kind = RowKind::Lane;
    row.group = group;
    row.lane = i;
    row.collapsed = state.collapsed_lanes.count(i) != 0;
    row.depth_rows = row.collapsed ? 1 : std::max(1, lanes[i].depth_count);
    row.top_px = y;
    row.height_px = row.depth_rows * options.depth_px + options.lane_gap_px;
    row.label = lanes[i].name;
    row_of_lane_[i] = static_cast<int>(rows_.size());
    rows_.push_back(std::move(row));
    y += rows_.back().height_px;
  }
  total_px_ = y;
}

int LaneLayout::row_at(double y_px) const {
  if (rows_.empty() || y_px < 0 || y_px >= total_px_) return -1;
  auto it = std::upper_bound(rows_.begin(), rows_.end(), y_px, [](double y, const LaneRow& r) { return y < r.top_px; });
  return static_cast<int>(it - rows_.begin()) - 1;
}

int LaneLayout::row_of_lane(LaneIndex lane) const { return lane < row_of_lane_.size() ? row_of_lane_[lane] : -1; }

int LaneLayout::depth_at(int row, double y_px) const {
  if (row < 0 || static_cast<std::size_t>(row) >= rows_.size()) return -1;
  const LaneRow& r = rows_[static_cast<std::size_t>(row)];
  if (r.kind != RowKind::Lane || y_px < r.top_px) return -1;
  const double within = y_px - r.top_px;
  const int depth = static_cast<int>(within / options_.depth_px);
  return depth < r.depth_rows ? depth : -1;
}

double LaneLayout::depth_top_px(int row, int depth) const {
  return rows_[static_cast<std::size_t>(row)].top_px + depth * options_.depth_px;
}

std::vector<LaneDesc> lane_descs(const Trace& trace) {
  std::vector<LaneDesc> out;
  out.reserve(trace.lanes().size());
  for (const Lane& lane : trace.lanes()) out.push_back({lane.key, lane.name, lane.depth_count()});
  return out;
}

std::vector<std::string> group_labels(const Trace& trace) {
  std::vector<std::string> out;
  for (const Lane& lane : trace.lanes()) {
    if (lane.is_gpu()) {
      std::string label = "GPU " + std::to_string(lane.device());
      if (const DeviceInfo* d = trace.device(static_cast<std::int32_t>(lane.device())); d && !d->name.empty())
        label += "  " + d->name;
      out.push_back(std::move(label));
      continue;
    }
    std::string label = "Process " + std::to_string(lane.key.pid);
    for (const ProcessInfo& p : trace.processes())
      if (p.pid == lane.key.pid && !p.name.empty()) label += "  " + p.name;
    out.push_back(std::move(label));
  }
  return out;
}

}  // namespace gtv::ui
