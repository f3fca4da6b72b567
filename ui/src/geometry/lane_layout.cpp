#include "gtv/ui/lane_layout.h"

#include <algorithm>
#include <map>

#include "gtv/analysis/format.h"
#include "gtv/model/ranks.h"

namespace gtv::ui {

GroupKey group_of(const LaneKey& key) { return {key.kind, key.pid}; }

double full_band_px(const std::vector<BandRequest>& bands) {
  double px = 0;
  for (const BandRequest& b : bands) px += b.size.height_px();
  return px;
}

BandLayout fit_bands(const std::vector<BandRequest>& bands, double min_lanes_px, double wanted_lanes_px,
                     double axis_height_px) {
  std::vector<int> granted(bands.size(), 0);
  if (axis_height_px >= std::max(min_lanes_px, wanted_lanes_px) + full_band_px(bands)) {
    for (std::size_t i = 0; i < bands.size(); ++i) granted[i] = bands[i].size.depth_rows;
  } else {
    double left_px = axis_height_px - min_lanes_px;
    const auto take = [&left_px](double px) {
      if (px <= 0 || px > left_px) return false;
      left_px -= px;
      return true;
    };
    std::vector<std::size_t> order(bands.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return bands[a].keep_rank < bands[b].keep_rank; });
    bool lanes_served = false;
    const auto serve_lanes = [&] {
      if (!lanes_served) take(std::max(0.0, wanted_lanes_px - min_lanes_px));  // kept for the lanes if it fits whole
      lanes_served = true;
    };
    for (const std::size_t i : order) {
      const BandRequest& b = bands[i];
      if (b.keep_rank >= kLanesKeepRank) serve_lanes();
      if (!b.sheds_rows) {
        if (take(b.size.height_px())) granted[i] = b.size.depth_rows;
        continue;
      }
      for (int rows = b.size.depth_rows; rows > 0; --rows)
        if (b.size.height_px(rows) <= left_px) {
          take(b.size.height_px(rows));
          granted[i] = rows;
          break;
        }
    }
  }
  BandLayout out;
  for (std::size_t i = 0; i < bands.size(); ++i) {
    if (granted[i] <= 0) continue;
    const BandRequest& b = bands[i];
    BandRow row;
    row.row = b.row;
    row.place = b.place;
    row.depth_rows = granted[i];
    row.depth_px = b.size.depth_px;
    row.height_px = b.size.height_px(granted[i]);
    double& stack_px = b.place == RowPlace::AboveLanes ? out.above_px : out.below_px;
    row.top_px = stack_px;
    stack_px += row.height_px;
    out.rows.push_back(row);
  }
  return out;
}

std::string other_group_label(GroupKey group) {
  return (group.first == LaneKind::GpuStream ? "GPU " : "Process ") + std::to_string(group.second);
}

namespace {

struct GroupPlan {
  GroupKey key;
  std::string label;
  bool has_lanes = false;  // a group of event lanes is headed even when all its rows are hidden
  bool bookkeeping = false;
  std::int64_t rank = -1;
};

// Groups in the order of their first event lane, then groups only other rows name, then the bookkeeping groups.
std::vector<GroupPlan> plan_groups(const std::vector<RowDesc>& rows) {
  std::vector<GroupPlan> groups;
  std::map<GroupKey, std::size_t> index_of;
  const auto find_or_add = [&](const RowDesc& d) -> GroupPlan& {
    const auto [it, added] = index_of.try_emplace(d.group, groups.size());
    if (added) groups.push_back({d.group, d.group_label.empty() ? other_group_label(d.group) : d.group_label});
    return groups[it->second];
  };
  for (const RowDesc& d : rows) {
    if (d.place != RowPlace::Lanes) continue;
    GroupPlan& g = find_or_add(d);
    if (!g.has_lanes) {
      g.bookkeeping = d.bookkeeping;
      g.rank = d.rank;
    }
    g.has_lanes = true;
    g.bookkeeping = g.bookkeeping && d.bookkeeping;
  }
  for (const RowDesc& d : rows) {
    if (d.place == RowPlace::Lanes || is_band(d.place)) continue;
    find_or_add(d).bookkeeping = false;  // it holds recorded ranges or counters
  }
  // Rank by rank; groups of no rank (rows without lanes) after the ranked ones.
  std::stable_sort(groups.begin(), groups.end(), [](const GroupPlan& a, const GroupPlan& b) {
    const auto order = [](const GroupPlan& g) { return g.rank < 0 ? INT64_MAX : g.rank; };
    return order(a) < order(b);
  });
  std::stable_partition(groups.begin(), groups.end(), [](const GroupPlan& g) { return !g.bookkeeping; });
  return groups;
}

}  // namespace

LaneLayout::LaneLayout(const std::vector<RowDesc>& rows, const LaneViewState& state, const LayoutOptions& options)
    : options_(options) {
  for (const RowDesc& d : rows)
    if (d.lane) row_of_lane_.resize(std::max(row_of_lane_.size(), std::size_t{*d.lane} + 1), -1);
  const auto shown = [&](const RowDesc& d) { return !is_band(d.place) && state.hidden_rows.count(d.id) == 0; };
  for (const GroupPlan& g : plan_groups(rows)) {
    // A group of rows alone (no lanes) whose rows are all hidden has nothing to head.
    const bool shows_a_row =
        std::any_of(rows.begin(), rows.end(), [&](const RowDesc& d) { return d.group == g.key && shown(d); });
    if ((!g.has_lanes && !shows_a_row) || state.hidden_groups.count(g.key) != 0) continue;
    const bool collapsed = state.collapsed_groups.count(g.key) != 0;
    add_header(g.key, g.label, collapsed);
    if (collapsed) continue;
    for (const RowPlace place : {RowPlace::Top, RowPlace::Lanes, RowPlace::Bottom})
      for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].group == g.key && rows[i].place == place && shown(rows[i])) add_row(i, rows[i], state);
  }
  total_px_ = y_px_;
}

void LaneLayout::add_header(GroupKey group, const std::string& label, bool collapsed) {
  LaneRow header;
  header.kind = group.first == LaneKind::GpuStream ? RowKind::DeviceHeader : RowKind::ProcessHeader;
  header.group = group;
  header.top_px = y_px_;
  header.height_px = options_.header_px;
  header.collapsed = collapsed;
  header.label = label;
  rows_.push_back(std::move(header));
  y_px_ += options_.header_px;
}

void LaneLayout::add_row(std::size_t index, const RowDesc& desc, const LaneViewState& state) {
  LaneRow row;
  row.kind = RowKind::Row;
  row.group = desc.group;
  row.row = index;
  row.lane = desc.lane;
  row.can_collapse = desc.can_collapse;
  row.collapsed = desc.can_collapse && state.collapsed_rows.count(desc.id) != 0;
  row.depth_rows = row.collapsed ? 1 : std::max(1, desc.depth_rows);
  if (const auto it = state.shown_depths.find(desc.id); it != state.shown_depths.end())
    row.depth_rows = std::clamp(it->second, 1, row.depth_rows);
  row.top_px = y_px_;
  row.height_px = row.depth_rows * options_.depth_px + options_.lane_gap_px;
  row.label = desc.label;
  if (desc.lane) row_of_lane_[*desc.lane] = static_cast<int>(rows_.size());
  rows_.push_back(std::move(row));
  y_px_ += rows_.back().height_px;
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
  if (r.kind != RowKind::Row || y_px < r.top_px) return -1;
  const double within = y_px - r.top_px;
  const int depth = static_cast<int>(within / options_.depth_px);
  return depth < r.depth_rows ? depth : -1;
}

double LaneLayout::depth_top_px(int row, int depth) const {
  return rows_[static_cast<std::size_t>(row)].top_px + depth * options_.depth_px;
}

// Stops at the first event a program's own work would make, so real lanes cost a few events each.
bool holds_only_profiler_records(const Trace& trace, const Lane& lane) {
  if (lane.is_gpu() || lane.events.empty()) return false;
  for (const Event& e : lane.events) {
    if (e.kind == EventKind::Overhead || e.kind == EventKind::Instant) continue;
    if (e.kind == EventKind::Other && e.detail < trace.strings().size() && trace.strings().view(e.detail) == "Trace")
      continue;
    return false;
  }
  return true;
}

namespace {

// Per host process: whether all its lanes hold only the profiler's records.
std::map<std::int64_t, bool> bookkeeping_processes(const Trace& trace) {
  std::map<std::int64_t, bool> out;
  for (const Lane& lane : trace.lanes()) {
    if (lane.is_gpu()) continue;
    const bool only = holds_only_profiler_records(trace, lane);
    const auto [it, added] = out.try_emplace(lane.key.pid, only);
    if (!added) it->second = it->second && only;
  }
  return out;
}

// A thread the file leaves unnamed ("thread 2492592128") that holds only the profiler's records is named by what it
// is: CUPTI's buffer thread when its records are CUPTI's.
std::string lane_name(const Trace& trace, const Lane& lane) {
  if (lane.is_gpu() || (!lane.name.empty() && lane.name != "thread " + std::to_string(lane.key.tid)) ||
      !holds_only_profiler_records(trace, lane))
    return lane.name;
  const bool cupti = std::all_of(lane.events.begin(), lane.events.end(), [&](const Event& e) {
    return e.kind != EventKind::Overhead || trace.strings().view(e.name).starts_with("CUPTI");
  });
  return (cupti ? "CUPTI thread " : "profiler thread ") + std::to_string(lane.key.tid);
}

}  // namespace

std::vector<LaneDesc> lane_descs(const Trace& trace) {
  const std::map<std::int64_t, bool> bookkeeping = bookkeeping_processes(trace);
  std::vector<LaneDesc> out;
  out.reserve(trace.lanes().size());
  for (const Lane& lane : trace.lanes()) {
    const RankInfo* rank = rank_of_lane(trace, lane);
    out.push_back({lane.key, lane_name(trace, lane), lane.depth_count(), !lane.is_gpu() && bookkeeping.at(lane.key.pid),
                   rank == nullptr ? -1 : rank->rank});
  }
  return out;
}

namespace {

std::string counted(std::size_t n, const char* one, const char* many) {
  return analysis::grouped_count(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::map<GroupKey, std::string> group_summaries(const Trace& trace) {
  struct Counts {
    std::size_t lanes = 0, events = 0, kernels = 0, copies = 0, memsets = 0;
  };
  std::map<GroupKey, Counts> counts;
  for (const Lane& lane : trace.lanes()) {
    Counts& c = counts[group_of(lane.key)];
    ++c.lanes;
    c.events += lane.events.size();
    if (!lane.is_gpu()) continue;
    for (const Event& e : lane.events) {
      c.kernels += e.kind == EventKind::Kernel ? 1 : 0;
      c.copies += e.kind == EventKind::Memcpy ? 1 : 0;
      c.memsets += e.kind == EventKind::Memset ? 1 : 0;
    }
  }
  std::map<GroupKey, std::string> out;
  for (const auto& [group, c] : counts) {
    std::string text;
    const auto add = [&](std::size_t n, const char* one, const char* many) {
      if (n > 0) text += (text.empty() ? "" : " \u00b7 ") + counted(n, one, many);
    };
    if (group.first == LaneKind::GpuStream) {
      add(c.lanes, "stream", "streams");
      add(c.kernels, "kernel", "kernels");
      add(c.copies, "copy", "copies");
      add(c.memsets, "memset", "memsets");
    } else {
      add(c.lanes, "thread", "threads");
      add(c.events, "event", "events");
    }
    out.emplace(group, std::move(text));
  }
  return out;
}

std::vector<std::string> group_labels(const Trace& trace) {
  const std::map<std::int64_t, bool> bookkeeping = bookkeeping_processes(trace);
  std::map<std::int64_t, const std::string*> process_names;
  for (const ProcessInfo& p : trace.processes())
    if (!p.name.empty()) process_names.try_emplace(p.pid, &p.name);
  std::vector<std::string> out;
  for (const Lane& lane : trace.lanes()) {
    if (lane.is_gpu()) {
      std::string label = gpu_label(trace, lane.device());
      if (const DeviceInfo* d = trace.device(static_cast<std::int32_t>(lane.device())); d && !d->name.empty())
        label += "  " + d->name;
      out.push_back(std::move(label));
      continue;
    }
    // Process names of a merged run start with their rank already ("rank 1 · python3").
    const std::string rank = rank_prefix(trace, lane);
    std::string label = rank + "Process " + std::to_string(lane.key.pid);
    if (const auto it = process_names.find(lane.key.pid); it != process_names.end())
      label += "  " + (it->second->starts_with(rank) ? it->second->substr(rank.size()) : *it->second);
    if (bookkeeping.at(lane.key.pid)) label += "  (profiler's own records)";
    out.push_back(std::move(label));
  }
  return out;
}

double label_column_px(double wanted_px, double view_width_px, double font_scale) {
  const double min_px = kMinLabelColumnPx * font_scale;
  const double max_px = std::max(min_px, kMaxLabelColumnShare * view_width_px);
  return std::clamp(wanted_px * font_scale, min_px, max_px);
}

}  // namespace gtv::ui
