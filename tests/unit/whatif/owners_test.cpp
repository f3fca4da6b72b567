// Work owners on users' traces: record_function ranges, nn.Module ranges, --owners patterns, and the sentence a
// change that needs owners gives when the trace has none.
#include <gtest/gtest.h>

#include <functional>

#include "gtv/whatif/predict.h"
#include "whatif_helpers.h"

namespace gtv::whatif {
namespace {
using namespace causal::testing;
using namespace whatif::testing;

Expected<Prediction> predict_with(const Trace& t, const char* change, const std::string& owners = {}) {
  const std::vector<Change> changes = {*parse_change(change)};
  Options options;
  options.owners = owners;
  return predict(t, changes, options);
}

// The two models' kernels of two_models_on_one_stream (half the GPU each), with no forward ranges: `mark` names
// each model's launch the way the user's recording does, or not at all.
Trace two_models(const std::function<void(TraceBuilder&, int, TimeNs, TimeNs)>& mark) {
  TraceBuilder b;
  gpu_with_100_sms(b);
  if (mark) {
    mark(b, 0, 0, 20);
    mark(b, 1, 20, 40);
  }
  launch_gemm(b, 1, 5, 10, 100, 400);
  launch_gemm(b, 2, 25, 110, 100, 400);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 40 * kUs, 172 * kUs);
  measure(b, 0, 212);
  return build(b);
}

const std::string kHowToAnnotate =
    "record them by wrapping each model's work in one line of Python, `with torch.profiler.record_function(\"model "
    "0\"):` (\"model 1\" for the next), or name ranges the trace already has with --owners PATTERN (with "
    "profile(with_modules=True): --owners 'nn.Module: Linear_*')";

TEST(WhatifOwners, OneThreadWithoutRangesSaysWhatIsMissingAndHowToRecordIt) {
  // The seed loop recorded by torch.profiler: one thread launched every model's work onto one stream.
  const Expected<Prediction> p = predict_with(two_models({}), "streams");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message,
            "streams: one thread launched all the GPU work, and the trace does not say which work is whose: it has no "
            "work owners (gtv's \"model N forward\" ranges, record_function or NVTX ranges named \"model N\", or "
            "ranges given with --owners); " +
                kHowToAnnotate);
  EXPECT_EQ(p.error().message.find("no stream runs the work of more than one"), std::string::npos);
  const Expected<Prediction> placed = predict_with(two_models({}), "placement=0,0");
  ASSERT_FALSE(placed.ok());
  EXPECT_NE(placed.error().message.find(kHowToAnnotate), std::string::npos) << placed.error().message;
}

// On streams of their own the two kernels, half the GPU each, overlap fully: 132 us, as with gtv's own ranges.
TEST(WhatifOwners, RecordFunctionRangesNamedModelNAreOwners) {
  const Trace t = two_models([](TraceBuilder& b, int model, TimeNs start_us, TimeNs end_us) {
    host_call(b, 1, 1, "model " + std::to_string(model), start_us * kUs, (end_us - start_us) * kUs,
              EventKind::Annotation);
  });
  const Expected<Prediction> p = predict_with(t, "streams");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NEAR(double(p->predicted_ns) / double(kUs), 132.0, 0.5);
  ASSERT_FALSE(p->applied.empty());
  EXPECT_EQ(p->applied[0],
            "the work of 2 owners (the record_function or NVTX ranges named \"model N\") that shared 1 stream runs on "
            "a stream of its own");
}

TEST(WhatifOwners, AnOwnersPatternNamesNnModuleRanges) {
  const Trace t = two_models([](TraceBuilder& b, int model, TimeNs start_us, TimeNs end_us) {
    if (model == 0) host_call(b, 1, 1, "nn.Module: Sequential_0", 0, 45 * kUs, EventKind::Other);
    host_call(b, 1, 1, "nn.Module: Linear_" + std::to_string(model), start_us * kUs, (end_us - start_us) * kUs,
              EventKind::Other);
  });
  // Without a pattern nothing names a model.
  EXPECT_FALSE(predict_with(t, "streams").ok());
  // The outermost match holds the call: a pattern that matches the container makes one owner.
  const Expected<Prediction> outer = predict_with(t, "streams", "nn.Module: *");
  ASSERT_FALSE(outer.ok());
  EXPECT_EQ(outer.error().message,
            "streams: no stream runs the work of more than one of the 1 owners found (the ranges matching --owners "
            "'nn.Module: *'): nothing to change");
  const Expected<Prediction> p = predict_with(t, "streams", "nn.Module: Linear_*");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NEAR(double(p->predicted_ns) / double(kUs), 132.0, 0.5);
  const Expected<Prediction> none = predict_with(t, "streams", "Conv2d");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message,
            "streams: no host call lies in a range matching --owners 'Conv2d' (record_function, NVTX, nn.Module or "
            "gtv ranges): the trace does not say which work is whose; " +
                kHowToAnnotate);
}

// Thread 1 runs the forward op and launches its kernel; thread 2, the autograd engine, runs its backward and
// launches that kernel. Kineto's fwdbwd link joins the two ops: the threads are one model's work.
TEST(WhatifOwners, ProcessesRefusesTheAutogradThread) {
  TraceBuilder b;
  host_call(b, 1, 1, "aten::linear", 0, 20 * kUs, EventKind::CpuOp);
  host_call(b, 1, 1, "cudaLaunchKernel", 5 * kUs, 5 * kUs, EventKind::Runtime, 1);
  kernel(b, 0, 7, "gemm", 10 * kUs, 100 * kUs, 1);
  host_call(b, 1, 2, "LinearBackward0", 30 * kUs, 20 * kUs, EventKind::CpuOp);
  host_call(b, 1, 2, "cudaLaunchKernel", 35 * kUs, 5 * kUs, EventKind::Runtime, 2);
  kernel(b, 0, 7, "gemm_backward", 110 * kUs, 100 * kUs, 2);
  b.add_backward_hint(1, b.lane(host_lane_key(1, 1)), 0, b.lane(host_lane_key(1, 2)), 30 * kUs);
  measure(b, 0, 212);
  const Trace t = build(b);
  ASSERT_EQ(t.backward_links().size(), 1u);
  const Expected<Prediction> p = predict_with(t, "processes");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message,
            "processes: thread 2 runs the backward of 1 op thread 1 ran forward (Kineto's forward-to-backward links: "
            "PyTorch's autograd engine thread, which the main thread hands each backward and waits for): the threads' "
            "work depends on each other, so they are not models that processes of their own could run apart");
  // Nor are the two threads owners whose work streams could separate.
  const Expected<Prediction> streams = predict_with(t, "streams");
  ASSERT_FALSE(streams.ok());
  EXPECT_EQ(streams.error().message.rfind(
                "streams: the threads that shared a stream are one model's work, not owners of their own: thread 2 "
                "runs the backward of 1 op thread 1 ran forward (Kineto's forward-to-backward links: PyTorch's "
                "autograd engine thread, which the main thread hands each backward and waits for); the trace does not "
                "say which work is whose",
                0),
            0u)
      << streams.error().message;
}

}  // namespace
}  // namespace gtv::whatif
