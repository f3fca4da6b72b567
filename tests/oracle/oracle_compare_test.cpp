// The comparison itself: a report that agrees with the oracle passes, one number off by more than 0.1% fails with a
// message naming the number and both values, and overlap numbers are compared on the window their object names.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "analyze_json.h"
#include "gtv/model/trace_builder.h"
#include "oracle.h"
#include "oracle_checks.h"

namespace gtv::oracle {
namespace {

// GPU 0: kernel [100, 300) on stream 1 and kernel [200, 500) on stream 2; the trace spans [100, 500).
Trace two_streams() {
  TraceBuilder b;
  for (const auto& [stream, start_ns, duration_ns] : {std::tuple{1, 100, 200}, std::tuple{2, 200, 300}}) {
    Event e;
    e.name = b.intern("k");
    e.kind = EventKind::Kernel;
    e.start_ns = start_ns;
    e.duration_ns = duration_ns;
    b.add_kernel(b.lane(gpu_lane_key(0, stream)), e, KernelDetail{});
  }
  Expected<Trace> t = b.build();
  if (!t) throw std::runtime_error(t.error().message);
  return std::move(t).value();
}

void compare(const std::string& json) {
  const Trace trace = two_streams();
  const Oracle o(trace);
  const AnalyzeJson report = AnalyzeJson::from_text(json);
  ASSERT_TRUE(report.error().empty()) << report.error();
  Checker c("two_streams");
  EXPECT_EQ(check_stream_overlap(c, o, report.root()), 2u);
}

// Whole trace: parallelism (200 + 300) / 400 = 1.25, two streams for 100 ns. In [100, 250): 150 + 50 over 150.
constexpr const char* kAgrees =
    R"({"busy": {"window_start_ns": 100, "window_end_ns": 500,
                 "gpus": [{"device": 0, "stream_parallelism": 1.25, "multi_stream_ns": 100}]},
        "region": {"start_ns": 100, "end_ns": 250,
                   "gpus": [{"device": 0, "stream_parallelism": 1.3333, "multi_stream_ns": 50}]}})";

TEST(OracleCompare, AgreeingReportPasses) { compare(kAgrees); }

TEST(OracleCompare, NumberOffByMoreThanATenthOfAPercentFails) {
  EXPECT_NONFATAL_FAILURE(compare(R"({"gpus": [{"device": 0, "stream_parallelism": 1.25, "multi_stream_ns": 101},
                           {"device": 0, "stream_parallelism": 1.25, "multi_stream_ns": 100}]})"),
                          "two_streams: gpus[0][device 0].multi_stream_ns: analyze 101, oracle 100");
  EXPECT_NONFATAL_FAILURE(compare(R"({"gpus": [{"device": 0, "stream_parallelism": 1.25, "multi_stream_ns": 100},
                           {"device": 0, "stream_parallelism": 1.2, "multi_stream_ns": 100}]})"),
                          "gpus[1][device 0].stream_parallelism: analyze 1.2, oracle 1.25");
}

TEST(OracleCompare, TheWindowNamedByTheObjectIsUsed) {
  // The region's numbers checked on the whole trace would be 1.25 and 100: they must fail.
  EXPECT_NONFATAL_FAILURE(
      compare(R"({"a": {"start_ns": 100, "end_ns": 250, "gpus": [{"device": 0, "multi_stream_ns": 100}]},
                  "b": {"gpus": [{"device": 0, "multi_stream_ns": 100}]}})"),
      "a.gpus[0][device 0].multi_stream_ns: analyze 100, oracle 50");
}

}  // namespace
}  // namespace gtv::oracle
