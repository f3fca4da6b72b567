// The gtv section's ranges and measurements: those that end before they start (a negative "truth") or lie
// outside the accepted time range are skipped with a note; the others are kept.
#include <gtest/gtest.h>

#include "gtv/io/trace_file.h"

namespace gtv::io {
namespace {

Expected<Trace> read_with_gtv(std::string_view gtv, ReadStats* stats = nullptr) {
  ReadOptions options;
  options.stats = stats;
  return read_trace_from_memory(R"({"gtv": )" + std::string(gtv) +
                                    R"(, "traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, )"
                                    R"("dur": 2}]})",
                                "gtv.json", options);
}

bool has_note(const Trace& t, std::string_view part) {
  for (const std::string& n : t.metadata().notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(GtvValidation, RangesThatEndBeforeTheyStartAreSkippedWithANote) {
  ReadStats stats;
  Expected<Trace> t = read_with_gtv(R"({"format_version": 1, "ranges": [)"
                                    R"({"name": "good", "kind": "phase", "start_ns": 10, "end_ns": 20},)"
                                    R"({"name": "backwards", "kind": "phase", "start_ns": 20, "end_ns": 10},)"
                                    R"({"name": "empty", "kind": "phase", "start_ns": 5, "end_ns": 5},)"
                                    R"({"name": "huge", "kind": "phase", "start_ns": -9223372036854775808,)"
                                    R"( "end_ns": 9223372036854775807}]})",
                                    &stats);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->ranges().size(), 2u);
  EXPECT_EQ(t->ranges()[0].name, "empty");
  EXPECT_EQ(t->ranges()[1].name, "good");
  EXPECT_EQ(stats.skipped["gtv ranges that end before they start or lie outside [-2^62, 2^62) ns"], 2u);
  EXPECT_TRUE(has_note(*t, "reader skipped 2 gtv ranges that end before they start"));
}

TEST(GtvValidation, MeasurementsWithANegativeIntervalOrTimeAreSkippedWithANote) {
  Expected<Trace> t = read_with_gtv(R"({"format_version": 1, "measurements": [)"
                                    R"({"name": "good", "reported_ns": 7, "host_start_ns": 1, "host_end_ns": 9},)"
                                    R"({"name": "backwards", "reported_ns": 7, "host_start_ns": 9, "host_end_ns": 1},)"
                                    R"({"name": "negative", "reported_ns": -7, "host_start_ns": 1, "host_end_ns": 9},)"
                                    R"({"name": "far", "reported_ns": 7, "host_start_ns": 1,)"
                                    R"( "host_end_ns": 9223372036854775807}]})");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->measurements().size(), 1u);
  EXPECT_EQ(t->measurements()[0].name, "good");
  EXPECT_TRUE(has_note(*t, "reader skipped 3 gtv measurements"));
  EXPECT_EQ(t->end_ns(), 3000);  // the event's end: "far" did not stretch the trace
}

}  // namespace gtv::io

namespace gtv::io {
namespace {

// Two processes' traces merged, with device memory counter samples on GPU 0 and a pinned host series.
Expected<Trace> read_merged(int format_version) {
  const std::string gtv = R"j({"gtv": {"format_version": )j" + std::to_string(format_version) +
                          R"j(, "processes": [{"pid": 10, "name": "worker 0"}, {"pid": 11, "name": "worker 1"}]},)j";
  return read_trace_from_memory(
      gtv + R"j( "traceEvents": [)j"
            R"j({"ph": "X", "name": "a", "pid": 10, "tid": 1, "ts": 1, "dur": 2},)j"
            R"j({"ph": "C", "name": "device memory allocated since start (bytes)", "pid": 0, "ts": 1,)j"
            R"j( "args": {"value": 4000}},)j"
            R"j({"ph": "C", "name": "device memory allocated since start (bytes)", "pid": 0, "ts": 2,)j"
            R"j( "args": {"value": 10}},)j"
            R"j({"ph": "C", "name": "pinned host memory allocated since start (bytes)", "pid": 10, "ts": 2,)j"
            R"j( "args": {"value": 64}}]})j",
      "merged.json");
}

bool has_series(const Trace& t, std::string_view name) {
  for (const CounterSeries& s : t.counters())
    if (s.name == name) return true;
  return false;
}

}  // namespace

TEST(GtvValidation, FormatOneMergedDeviceMemoryCountersAreLeftOutWithANote) {
  Expected<Trace> t = read_merged(1);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_FALSE(has_series(*t, "device memory allocated since start (bytes)"));
  EXPECT_TRUE(has_series(*t, "pinned host memory allocated since start (bytes)"));
  bool noted = false;
  for (const std::string& n : t->metadata().notes)
    noted = noted || n.find("left out the counter \"device memory allocated since start (bytes)\" of 1 GPU") !=
                         std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(GtvValidation, FormatTwoMergedDeviceMemoryCountersAreKept) {
  Expected<Trace> t = read_merged(2);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_TRUE(has_series(*t, "device memory allocated since start (bytes)"));
  EXPECT_TRUE(t->metadata().notes.empty());
}

}  // namespace gtv::io
