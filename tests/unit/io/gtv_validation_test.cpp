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
