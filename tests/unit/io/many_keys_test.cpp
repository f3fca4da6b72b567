// Processes, threads, devices and lanes found by key while reading: the same results as a search, on small inputs
// (string pids, process_name metadata, repeated deviceProperties ids, gtv.lanes).
#include <gtest/gtest.h>

#include "gtv/io/trace_file.h"

namespace gtv::io {
namespace {

Trace read_ok(std::string_view text) {
  Expected<Trace> t = read_trace_from_memory(text, "keys.json");
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? std::move(*t) : Trace();
}

const ProcessInfo* process(const Trace& t, std::int64_t pid) {
  for (const ProcessInfo& p : t.processes())
    if (p.pid == pid) return &p;
  return nullptr;
}

}  // namespace

TEST(ManyKeys, StringPidsAndProcessNames) {
  const Trace t = read_ok(R"({"traceEvents": [)"
                          R"({"ph": "X", "name": "a", "pid": "alpha", "tid": 1, "ts": 1, "dur": 1},)"
                          R"({"ph": "X", "name": "b", "pid": "beta", "tid": "main", "ts": 2, "dur": 1},)"
                          R"({"ph": "X", "name": "c", "pid": "alpha", "tid": 1, "ts": 3, "dur": 1},)"
                          R"({"ph": "M", "name": "process_name", "pid": 7, "args": {"name": "seven"}},)"
                          R"({"ph": "M", "name": "process_sort_index", "pid": 7, "args": {"sort_index": 3}},)"
                          R"({"ph": "M", "name": "process_name", "pid": 5, "args": {"name": "five"}},)"
                          R"({"ph": "M", "name": "process_name", "pid": 7, "args": {"name": "seven again"}},)"
                          R"({"ph": "X", "name": "d", "pid": 7, "tid": 2, "ts": 4, "dur": 1}]})");
  ASSERT_EQ(t.processes().size(), 4u);
  ASSERT_NE(process(t, 7), nullptr);
  EXPECT_EQ(process(t, 7)->name, "seven again");
  EXPECT_EQ(process(t, 7)->sort_index, 3);
  EXPECT_EQ(process(t, 5)->name, "five");
  int named = 0;
  for (const ProcessInfo& p : t.processes()) named += p.name == "alpha" || p.name == "beta";
  EXPECT_EQ(named, 2);
  EXPECT_EQ(t.lanes().size(), 3u);  // alpha/1, beta/main, 7/2
  EXPECT_EQ(t.event_count(), 4u);
}

TEST(ManyKeys, RepeatedDeviceIdsKeepTheLastEntry) {
  const Trace t = read_ok(R"({"deviceProperties": [{"id": 1, "name": "first one"}, {"id": 0, "name": "zero"},)"
                          R"( {"id": 1, "name": "one"}], "traceEvents": []})");
  ASSERT_EQ(t.devices().size(), 2u);
  EXPECT_EQ(t.devices()[0].name, "zero");
  EXPECT_EQ(t.devices()[1].name, "one");
  ASSERT_NE(t.device(1), nullptr);
  EXPECT_EQ(t.device(1)->name, "one");
}

TEST(ManyKeys, GtvLanesNameTheirLanes) {
  const Trace t = read_ok(R"({"gtv": {"format_version": 1, "lanes": [)"
                          R"({"kind": "host", "pid": 1, "tid": 1, "name": "main", "sort_index": 2},)"
                          R"({"kind": "gpu", "pid": 0, "tid": 7, "name": "compute", "sort_index": 0},)"
                          R"({"kind": "host", "pid": 1, "tid": 2, "name": "worker", "sort_index": 1}]},)"
                          R"( "traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})");
  ASSERT_EQ(t.lanes().size(), 3u);
  EXPECT_EQ(t.lanes()[0].name, "worker");  // sort index 1 before 2
  EXPECT_EQ(t.lanes()[1].name, "main");
  EXPECT_EQ(t.lanes()[2].name, "compute");
  ASSERT_TRUE(t.find_lane(gpu_lane_key(0, 7)).has_value());
  EXPECT_EQ(t.lane(*t.find_lane(gpu_lane_key(0, 7))).name, "compute");
}

}  // namespace gtv::io
