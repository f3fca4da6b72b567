// What-if on crafted traces: model numbers, times at the edges of the accepted range, absurd copy rates and names
// that would act on a terminal. Each prediction is right, saturates or is refused with one line; none overflows.
#include <gtest/gtest.h>

#include <limits>

#include "gtv/whatif/predict.h"
#include "whatif_helpers.h"

namespace gtv::whatif {
namespace {
using namespace causal::testing;
using namespace whatif::testing;

Expected<Prediction> predict_one(const Trace& t, const char* change) {
  const std::vector<Change> changes = {*parse_change(change)};
  return predict(t, changes);
}

// Model 0's forward and a second forward named `second`, each launching a kernel on GPU 0.
Trace two_forwards(const std::string& second) {
  TraceBuilder b;
  forward(b, 0, 0, 20);
  b.add_range(Range{second, RangeKind::Forward, 20 * kUs, 40 * kUs, 1, 1, 0});
  launch(b, 1, 5, 5, 0, 7, 10, 100);
  launch(b, 2, 25, 5, 0, 7, 110, 100);
  measure(b, 0, 210);
  return build(b);
}

// Model numbers are read without overflow and bounded: placement= places models 0 to 1023, and a larger number is
// named as the trace writes it, however many digits it has.
TEST(WhatifHostile, ModelNumbersBeyondThePlaceableAreRefused) {
  for (const std::string huge : {"1024", "2147483647", "99999999999999999999"}) {
    const Trace t = two_forwards("model " + huge + " forward");
    const Expected<Prediction> p = predict_one(t, "placement=0");
    ASSERT_FALSE(p.ok()) << huge;
    EXPECT_EQ(p.error().message, "placement=0: a range names model " + huge + "; placement= places models 0 to 1023");
  }
  const Trace last = two_forwards("model 1023 forward");
  EXPECT_EQ(predict_one(last, "placement=0").error().message,
            "placement=0: placement= names 1 models; the trace has 1024 (gtv's model forward ranges)");
}

// A kernel and the synchronize that waits for it span almost the whole accepted range [-2^62, 2^62): the window is
// 2^63 - 1 ns less a few microseconds long. Its prediction is as long, and the band saturates rather than wrapping.
TEST(WhatifHostile, AWindowAsLongAsTheTimeRangeSaturatesItsBand) {
  TraceBuilder b;
  const TimeNs first = kMinTraceTimeNs;
  const TimeNs kernel_end = kMaxTraceTimeNs - 2 * kUs;
  host_call(b, 1, 1, "cudaLaunchKernel", first, 5 * kUs, EventKind::Runtime, 1);
  kernel(b, 0, 7, "gemm", first + 10 * kUs, kernel_end - (first + 10 * kUs), 1);
  host_call(b, 1, 1, "cudaDeviceSynchronize", first + 20 * kUs, kMaxTraceTimeNs - (first + 20 * kUs));
  const Trace t = build(b);
  const Expected<Prediction> p = predict_one(t, "no-sync=cudaDeviceSynchronize");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->recorded_ns, kMaxTraceTimeNs - kMinTraceTimeNs);
  EXPECT_EQ(p->predicted_ns, kernel_end - first);  // the window ends with the kernel
  EXPECT_LE(p->low_ns, p->predicted_ns);
  EXPECT_EQ(p->high_ns, std::numeric_limits<TimeNs>::max());
  const std::string text =
      format_prediction(*p, std::vector<Change>{*parse_change("no-sync=cudaDeviceSynchronize")}, Format::Text);
  EXPECT_NE(text.find("Predicted:  9223372036854.8 ms, band"), std::string::npos) << text;
  EXPECT_NE(text.find(": 1.00x faster than recorded"), std::string::npos) << text;
}

MemcpyDetail copy(MemoryKind host, std::int64_t bytes) {
  MemcpyDetail d;
  d.copy_kind = CopyKind::DeviceToHost;
  d.src_kind = MemoryKind::Device;
  d.dst_kind = host;
  d.bytes = bytes;
  return d;
}

// A pinned copy of 1 byte that took 9.3e12 ns (2.6 hours) sets the rate: 9.3e12 ns a byte. A pageable copy of
// `bytes` in the window, made pinned, takes that many times as long; beyond the accepted time range the prediction
// is refused.
Trace slow_pinned_rate(std::int64_t bytes) {
  TraceBuilder b;
  launch(b, 1, 5, 5, 0, 7, 10, 100);
  host_call(b, 1, 1, "cudaMemcpyAsync", 15 * kUs, 107 * kUs, EventKind::Runtime, 2);
  memcpy_event(b, 0, 7, 110 * kUs, 10 * kUs, copy(MemoryKind::Pageable, bytes), 2);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 125 * kUs, 2 * kUs);
  measure(b, 0, 127);
  host_call(b, 1, 1, "cudaMemcpyAsync", 300 * kUs, 5 * kUs, EventKind::Runtime, 3);
  memcpy_event(b, 0, 8, 310 * kUs, 9'300'000'000'000, copy(MemoryKind::Pinned, 1), 3);
  return build(b);
}

TEST(WhatifHostile, APinnedRateIsMultipliedWithoutOverflow) {
  const Trace t = slow_pinned_rate(40'000);
  const Expected<Prediction> p = predict_one(t, "pinned");
  ASSERT_TRUE(p.ok()) << p.error().message;
  // The copy takes 40,000 x 9.3e12 ns = 3.72e17 ns, from 110 us; the window ends with it.
  EXPECT_NEAR(double(p->predicted_ns), 3.72e17, 1e12);
  EXPECT_LE(p->low_ns, p->predicted_ns);
  EXPECT_GE(p->high_ns, p->predicted_ns);
  const Trace beyond = slow_pinned_rate(1'000'000);  // 9.3e18 ns: beyond 2^62
  const Expected<Prediction> refused = predict_one(beyond, "pinned");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "pinned: the changed run's replay puts the window outside the accepted time range [-2^62, 2^62) ns: the "
            "trace's times lie too far apart to predict it");
}

// A measurement name with a terminal title sequence, a bell and a forged line: text and Markdown show it escaped,
// as analyze does; JSON as \u escapes.
TEST(WhatifHostile, NamesFromTheTraceAreEscaped) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 5, 100);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 10 * kUs, 97 * kUs);
  Measurement m;
  m.name = "loop\x1b]0;owned\x07\nPredicted:  9.9 ms, band 9.9 ms to 9.9 ms: 1000.00x faster\x7f\xc2\x9b";
  m.method = MeasurementMethod::StopwatchNoSync;
  m.host_start_ns = 0;
  m.host_end_ns = 107 * kUs;
  m.reported_ns = m.host_end_ns;
  m.pid = 1;
  m.tid = 1;
  b.add_measurement(m);
  const Trace t = build(b);
  const std::vector<Change> changes{*parse_change("no-sync=cudaDeviceSynchronize")};
  const Expected<Prediction> p = predict(t, changes);
  ASSERT_TRUE(p.ok()) << p.error().message;
  for (const Format f : {Format::Text, Format::Markdown}) {
    const std::string out = format_prediction(*p, changes, f);
    EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
    EXPECT_EQ(out.find('\x07'), std::string::npos) << out;
    EXPECT_EQ(out.find('\x7f'), std::string::npos) << out;
    EXPECT_EQ(out.find("\xc2\x9b"), std::string::npos) << out;
    EXPECT_EQ(out.find("\nPredicted:  9.9 ms"), std::string::npos) << out;
    EXPECT_NE(out.find("loop\\x1b]0;owned\\x07\\x0aPredicted:"), std::string::npos) << out;
  }
  const std::string json = format_prediction(*p, changes, Format::Json);
  EXPECT_NE(json.find(R"("window": "the measured 'loop\u001b]0;owned\u0007\nPredicted:)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"(faster\u007f\u009b'")"), std::string::npos) << json;
}

// A window of zero length, recorded or predicted, gives no ratio rather than "infx slower".
TEST(WhatifHostile, AWindowOfZeroLengthHasNoRatio) {
  const std::vector<Change> changes{*parse_change("streams")};
  for (const TimeNs recorded_ns : {TimeNs{0}, 5 * kUs}) {
    Prediction p;
    p.window = "the whole trace";
    p.recorded_ns = recorded_ns;
    const std::string text = format_prediction(p, changes, Format::Text);
    EXPECT_NE(text.find("band 0.0 ms to 0.0 ms: no speed-up to state (a window of zero length)\n"), std::string::npos)
        << text;
    EXPECT_EQ(text.find("inf"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace gtv::whatif
