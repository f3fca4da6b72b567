#include "trace_shape.h"

#include <cstddef>

#include "fuzz_input.h"

namespace gtv::fuzz {
namespace {

std::string lane_text(const Lane& lane) {
  return std::string(lane.is_gpu() ? "gpu " : "host ") + std::to_string(lane.key.pid) + "/" +
         std::to_string(lane.key.tid) + " (" + std::to_string(lane.events.size()) + " events)";
}

void check_lane(const Lane& lane) {
  std::size_t indexed = 0;
  for (const std::vector<std::uint32_t>& depth : lane.by_depth) {
    for (std::size_t i = 0; i < depth.size(); ++i) {
      require(depth[i] < lane.events.size(), "by_depth index past the lane's events");
      if (i > 0) require(depth[i - 1] < depth[i], "by_depth indices not in start order");
    }
    indexed += depth.size();
  }
  if (indexed != lane.events.size()) invariant_broken("by_depth does not index every event of " + lane_text(lane));
  for (std::size_t i = 1; i < lane.events.size(); ++i)
    require(lane.events[i - 1].start_ns <= lane.events[i].start_ns, "lane events not sorted by start");
}

}  // namespace

void check_model(const Trace& trace) {
  std::size_t events = 0;
  for (const Lane& lane : trace.lanes()) {
    check_lane(lane);
    events += lane.events.size();
  }
  if (events != trace.event_count())
    invariant_broken("event_count() " + std::to_string(trace.event_count()) + " but lanes hold " +
                     std::to_string(events));
}

void check_same_shape(const Trace& original, const Trace& reread, const std::string& how) {
  if (original.event_count() != reread.event_count())
    invariant_broken(how + ": " + std::to_string(original.event_count()) + " events became " +
                     std::to_string(reread.event_count()));
  if (original.lanes().size() != reread.lanes().size())
    invariant_broken(how + ": " + std::to_string(original.lanes().size()) + " lanes became " +
                     std::to_string(reread.lanes().size()));
  for (std::size_t i = 0; i < original.lanes().size(); ++i) {
    const Lane& a = original.lanes()[i];
    const Lane& b = reread.lanes()[i];
    if (a.key != b.key || a.events.size() != b.events.size())
      invariant_broken(how + ": lane " + std::to_string(i) + " " + lane_text(a) + " became " + lane_text(b));
  }
}

}  // namespace gtv::fuzz
