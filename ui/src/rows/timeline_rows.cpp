#include <map>
#include <set>
#include <utility>

#include "gtv/ui/band_rows.h"
#include "gtv/ui/collective_row.h"
#include "gtv/ui/communication_row.h"
#include "gtv/ui/counter_row.h"
#include "gtv/ui/critical_path_row.h"
#include "gtv/ui/event_lane_row.h"
#include "gtv/ui/overlay_data.h"
#include "gtv/ui/range_row.h"
#include "gtv/ui/timeline_row.h"
#include "gtv/whatif/predicted_run.h"

namespace gtv::ui {
namespace {

void add_event_lane_rows(const Trace& trace, TimelineRows& rows) {
  const std::vector<LaneDesc> lanes = lane_descs(trace);
  std::vector<std::string> labels = group_labels(trace);
  for (LaneIndex i = 0; i < lanes.size(); ++i)
    rows.push_back(std::make_shared<EventLaneRow>(trace, i, lanes[i], std::move(labels[i])));
}

void add_range_rows(const Trace& trace, const WorkOwners* owners, TimelineRows& rows) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<const Range*>> by_thread;
  for (const Range& r : trace.ranges()) by_thread[{r.pid, r.tid}].push_back(&r);
  const bool predicted = whatif::is_predicted_run(trace);
  for (const auto& [thread, ranges] : by_thread) {
    auto row = std::make_shared<RangeRow>(thread.first, thread.second, ranges, owners);
    if (predicted) row->set_predicted();
    rows.push_back(std::move(row));
  }
}

// Kineto writes a GPU's counters with the device index as pid: a pid that names a GPU and no host process is that
// GPU's; any other is a process's.
void add_counter_rows(const Trace& trace, TimelineRows& rows) {
  std::set<std::int64_t> host_pids;
  std::set<std::int64_t> devices;
  for (const Lane& lane : trace.lanes()) (lane.is_gpu() ? devices : host_pids).insert(lane.key.pid);
  for (const CounterSeries& series : trace.counters()) {
    const bool gpu = devices.count(series.pid) != 0 && host_pids.count(series.pid) == 0;
    rows.push_back(
        std::make_shared<CounterRow>(series, GroupKey{gpu ? LaneKind::GpuStream : LaneKind::HostThread, series.pid}));
  }
}

void add_communication_rows(const OverlayData& overlays, TimelineRows& rows) {
  for (const CommunicationSpans& spans : overlays.communication)
    rows.push_back(std::make_shared<CommunicationRow>(spans));
}

void add_collective_rows(const OverlayData& overlays, TimelineRows& rows) {
  for (const RankCollectives& rank : overlays.collectives) rows.push_back(std::make_shared<CollectiveRow>(rank));
}

void add_critical_path_row(const OverlayData& overlays, TimelineRows& rows) {
  if (!overlays.critical_path.empty()) rows.push_back(std::make_shared<CriticalPathRow>(overlays.critical_path));
}

}  // namespace

TimelineRows make_timeline_rows(const Trace& trace, const OverlayData& overlays) {
  TimelineRows rows;
  add_event_lane_rows(trace, rows);
  add_range_rows(trace, overlays.owners.get(), rows);
  add_counter_rows(trace, rows);
  add_communication_rows(overlays, rows);
  add_collective_rows(overlays, rows);
  add_critical_path_row(overlays, rows);
  add_band_rows(overlays, rows);
  return rows;
}

TimelineRows make_timeline_rows(const Trace& trace) {
  TimelineRows rows;
  add_event_lane_rows(trace, rows);
  add_range_rows(trace, nullptr, rows);
  add_counter_rows(trace, rows);
  return rows;
}

std::vector<RowDesc> row_descs(const TimelineRows& rows) {
  std::vector<RowDesc> out;
  out.reserve(rows.size());
  for (const auto& row : rows) out.push_back(row->desc());
  return out;
}

}  // namespace gtv::ui
