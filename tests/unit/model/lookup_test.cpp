// Lookups by key (lanes, processes, devices) give what a search over every entry gives.
#include <gtest/gtest.h>

#include <optional>

#include "gtv/model/trace_builder.h"

namespace gtv {
namespace {

std::optional<LaneIndex> search_lane(const Trace& t, const LaneKey& key) {
  for (LaneIndex i = 0; i < t.lanes().size(); ++i)
    if (t.lanes()[i].key == key) return i;
  return std::nullopt;
}

DeviceInfo device(std::int32_t index, std::string name) {
  DeviceInfo d;
  d.index = index;
  d.name = std::move(name);
  return d;
}

}  // namespace

TEST(Lookup, FindLaneMatchesASearchOverAllLanes) {
  TraceBuilder b;
  const LaneKey keys[] = {host_lane_key(7, 1), gpu_lane_key(1, 7), host_lane_key(3, 9), gpu_lane_key(0, 13),
                          host_lane_key(7, 0), gpu_lane_key(1, 3), host_lane_key(-5, 2)};
  std::int64_t sort = 10;
  for (const LaneKey& k : keys) b.set_lane_sort_index(b.lane(k), --sort);  // display order differs from key order
  const Trace t = std::move(b.build().value());
  for (const LaneKey& k : keys) {
    ASSERT_TRUE(t.find_lane(k).has_value());
    EXPECT_EQ(t.find_lane(k), search_lane(t, k));
    EXPECT_EQ(t.lane(*t.find_lane(k)).key, k);
  }
  EXPECT_FALSE(t.find_lane(host_lane_key(1, 7)).has_value());  // the GPU lane's numbers, as a host lane
  EXPECT_FALSE(t.find_lane(gpu_lane_key(2, 7)).has_value());
  EXPECT_FALSE(TraceBuilder().build().value().find_lane(host_lane_key(0, 0)).has_value());
}

TEST(Lookup, ProcessIsCreatedOnceAndUpdatedInPlace) {
  TraceBuilder b;
  b.process(30).name = "thirty";
  b.process(10).name = "ten";
  b.process(30).sort_index = 4;
  b.process(20);
  b.process(10).labels = {"rank 0"};
  const Trace t = std::move(b.build().value());
  ASSERT_EQ(t.processes().size(), 3u);
  EXPECT_EQ(t.processes()[0].pid, 10);
  EXPECT_EQ(t.processes()[0].name, "ten");
  EXPECT_EQ(t.processes()[0].labels, std::vector<std::string>{"rank 0"});
  EXPECT_EQ(t.processes()[1].pid, 20);
  EXPECT_EQ(t.processes()[2].name, "thirty");
  EXPECT_EQ(t.processes()[2].sort_index, 4);
}

TEST(Lookup, AddDeviceReplacesTheEntryOfTheSameIndex) {
  TraceBuilder b;
  b.add_device(device(2, "old two"));
  b.add_device(device(0, "zero"));
  b.add_device(device(2, "two"));
  b.add_device(device(-1, "minus one"));
  const Trace t = std::move(b.build().value());
  ASSERT_EQ(t.devices().size(), 3u);
  EXPECT_EQ(t.devices()[0].name, "minus one");
  EXPECT_EQ(t.devices()[2].name, "two");
  for (std::int32_t i : {-1, 0, 2}) {
    ASSERT_NE(t.device(i), nullptr) << i;
    EXPECT_EQ(t.device(i)->index, i);
  }
  EXPECT_EQ(t.device(2)->name, "two");
  EXPECT_EQ(t.device(1), nullptr);
  EXPECT_EQ(t.device(3), nullptr);
}

}  // namespace gtv
