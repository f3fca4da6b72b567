#include <map>
#include <set>
#include <utility>

#include "gtv/ui/collective_row.h"
#include "gtv/ui/communication_row.h"
#include "gtv/ui/counter_row.h"
#include "gtv/ui/critical_path_row.h"
#include "gtv/ui/event_lane_row.h"
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

}  // namespace

TimelineRows make_timeline_rows(const Trace& trace, const WorkOwners* owners,
                                const std::vector<CommunicationSpans>* communication,
                                const CriticalPathSpans* critical_path,
                                const std::vector<RankCollectives>* collectives) {
  TimelineRows rows;
  add_event_lane_rows(trace, rows);
  add_range_rows(trace, owners, rows);
  add_counter_rows(trace, rows);
  if (communication != nullptr)
    for (const CommunicationSpans& spans : *communication) rows.push_back(std::make_shared<CommunicationRow>(spans));
  if (collectives != nullptr)
    for (const RankCollectives& rank : *collectives) rows.push_back(std::make_shared<CollectiveRow>(rank));
  if (critical_path != nullptr && !critical_path->empty())
    rows.push_back(std::make_shared<CriticalPathRow>(*critical_path));
  return rows;
}

std::vector<RowDesc> row_descs(const TimelineRows& rows) {
  std::vector<RowDesc> out;
  out.reserve(rows.size());
  for (const auto& row : rows) out.push_back(row->desc());
  return out;
}

}  // namespace gtv::ui
