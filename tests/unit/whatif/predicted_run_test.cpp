// The predicted run as a trace: every call and GPU work item at its replayed time, on small traces worked out by
// hand; and on the bundled pairs, its window as long as the prediction says.
#include "gtv/whatif/predicted_run.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "gtv/io/trace_file.h"
#include "gtv/whatif/recorded_pairs.h"
#include "whatif_helpers.h"

namespace gtv::whatif {
namespace {
using namespace causal::testing;
using namespace whatif::testing;

std::vector<Change> changes_of(std::string_view text) { return *parse_changes(text); }

// The event on the lane of `key` that is named `name` and starts n-th.
const Event* find_event(const Trace& t, const LaneKey& key, std::string_view name, int n = 0) {
  const auto lane = t.find_lane(key);
  if (!lane) return nullptr;
  for (const Event& e : t.lane(*lane).events)
    if (t.name(e) == name && n-- == 0) return &e;
  return nullptr;
}

TimeNs window_length(const Trace& t) {
  const causal::HappensBefore g = causal::HappensBefore::build(t);
  const causal::Window w = causal::window_of(g);
  return w.end_ns - w.start_ns;
}

// Two models' kernels of 100 us on stream 7, the second queued behind the first; a synchronize waits for both. With
// streams each half-GPU kernel runs on a stream of its own, together: [10, 110) and [30, 130); the synchronize
// returns 2 us after the second, at 132 us.
TEST(WhatifPredictedRun, StreamsPutEachModelsKernelsOnAStreamOfItsOwn) {
  TraceBuilder b;
  add_two_models_on_one_stream(b, 400);  // each kernel half the GPU
  measure(b, 0, 212);
  b.metadata().scenario = "sequential";
  const Trace recorded = build(b);
  const std::vector<Change> changes = changes_of("streams");
  Expected<PredictedRun> run = predict_run(recorded, changes);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const Trace& t = run->trace;
  EXPECT_EQ(t.metadata().scenario, "predicted: streams");
  EXPECT_TRUE(is_predicted_run(t));
  EXPECT_FALSE(is_predicted_run(recorded));
  EXPECT_NE(t.metadata().source_tool.find("not a recording"), std::string::npos);
  ASSERT_FALSE(t.metadata().notes.empty());
  // The recorded stream stays, empty; a new stream per model holds its kernel.
  const auto old_lane = t.find_lane(gpu_lane_key(0, 7));
  ASSERT_TRUE(old_lane.has_value());
  EXPECT_TRUE(t.lane(*old_lane).events.empty());
  std::vector<const Lane*> new_streams;
  for (const Lane& lane : t.lanes())
    if (lane.is_gpu() && lane.stream() != 7) new_streams.push_back(&lane);
  ASSERT_EQ(new_streams.size(), 2u);
  EXPECT_EQ(new_streams[0]->name, "new stream of model 0");
  EXPECT_EQ(new_streams[1]->name, "new stream of model 1");
  ASSERT_EQ(new_streams[0]->events.size(), 1u);
  ASSERT_EQ(new_streams[1]->events.size(), 1u);
  EXPECT_NEAR(double(new_streams[0]->events[0].start_ns) / double(kUs), 10.0, 0.5);
  EXPECT_NEAR(double(new_streams[0]->events[0].end_ns()) / double(kUs), 110.0, 0.5);
  EXPECT_NEAR(double(new_streams[1]->events[0].start_ns) / double(kUs), 30.0, 0.5);
  EXPECT_NEAR(double(new_streams[1]->events[0].end_ns()) / double(kUs), 130.0, 0.5);
  // The kernels keep their launch configuration and their launch links.
  EXPECT_NE(t.kernel_detail(new_streams[1]->events[0]), nullptr);
  EXPECT_EQ(t.flows().size(), 2u);
  const Event* sync = find_event(t, host_lane_key(1, 1), "cudaDeviceSynchronize");
  ASSERT_NE(sync, nullptr);
  EXPECT_NEAR(double(sync->end_ns()) / double(kUs), 132.0, 0.5);
  EXPECT_EQ(window_length(t), run->prediction.predicted_ns);
  EXPECT_EQ(t.measurements().at(0).reported_ns, run->prediction.predicted_ns);
}

// Three launches of a forward, 40 us apart, each with a 1 us kernel, and a framework op around the second; a
// synchronize 15 us after the last. As one graph launch (35 us, assumed) the first call takes [0, 35), the other
// two shrink to nothing at 35 us, the kernels run back to back from 36 us and the synchronize runs [50, 52). The op
// around the second call moves with it: from inside the call (its start, 35 us) to the gap after it, cut at the
// third call's start (35 us). The forward range ends 5 us after the third call, as recorded: 40 us.
TEST(WhatifPredictedRun, GraphsMoveTheHostEventsTheGraphDoesNotHoldWithTheirCalls) {
  TraceBuilder b;
  b.add_range(Range{"model 0 forward", RangeKind::Forward, 0, 90 * kUs, 1, 1, 0});
  launch(b, 1, 0, 5, 0, 7, 6, 1);
  host_call(b, 1, 1, "aten::linear", 40 * kUs, 6 * kUs, EventKind::CpuOp);
  launch(b, 2, 40, 5, 0, 7, 46, 1);
  launch(b, 3, 80, 5, 0, 7, 86, 1);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 100 * kUs, 2 * kUs);
  measure(b, 0, 102);
  const Trace recorded = build(b);
  const std::vector<Change> changes = changes_of("graphs");
  Expected<PredictedRun> run = predict_run(recorded, changes);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const Trace& t = run->trace;
  const LaneKey host = host_lane_key(1, 1);
  const Event* first = find_event(t, host, "cudaLaunchKernel", 0);
  const Event* second = find_event(t, host, "cudaLaunchKernel", 1);
  const Event* op = find_event(t, host, "aten::linear");
  const Event* sync = find_event(t, host, "cudaDeviceSynchronize");
  ASSERT_TRUE(first && second && op && sync);
  EXPECT_EQ(first->start_ns, 0);
  EXPECT_EQ(first->end_ns(), 35 * kUs);
  EXPECT_EQ(second->start_ns, 35 * kUs);
  EXPECT_EQ(second->duration_ns, 0);
  EXPECT_EQ(op->start_ns, 35 * kUs);
  EXPECT_EQ(op->duration_ns, 0);
  EXPECT_EQ(sync->start_ns, 50 * kUs);
  EXPECT_EQ(sync->end_ns(), 52 * kUs);
  const Event* k0 = find_event(t, gpu_lane_key(0, 7), "gemm", 0);
  const Event* k2 = find_event(t, gpu_lane_key(0, 7), "gemm", 2);
  ASSERT_TRUE(k0 && k2);
  EXPECT_EQ(k0->start_ns, 36 * kUs);
  EXPECT_EQ(k2->end_ns(), 39 * kUs);
  ASSERT_EQ(t.ranges().size(), 1u);
  EXPECT_EQ(t.ranges()[0].start_ns, 0);
  EXPECT_EQ(t.ranges()[0].end_ns, 40 * kUs);
  EXPECT_EQ(run->prediction.predicted_ns, 52 * kUs);
  EXPECT_EQ(window_length(t), 52 * kUs);
  bool said = false;
  for (const std::string& note : t.metadata().notes) said = said || note.find("1 host events") != std::string::npos;
  EXPECT_TRUE(said);
}

// Without a measurement the whole trace is predicted: the predicted run spans [0, 132) us, the length predicted.
TEST(WhatifPredictedRun, WithoutAMeasurementTheWholePredictedTraceIsThePredictedLength) {
  TraceBuilder b;
  add_two_models_on_one_stream(b, 400);  // each kernel half the GPU
  const Trace recorded = build(b);
  Expected<PredictedRun> run = predict_run(recorded, changes_of("streams"));
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_TRUE(run->prediction.whole_trace);
  EXPECT_NEAR(double(run->prediction.predicted_ns) / double(kUs), 132.0, 0.5);
  EXPECT_EQ(run->trace.end_ns() - run->trace.start_ns(), run->prediction.predicted_ns);
  EXPECT_EQ(window_length(run->trace), run->prediction.predicted_ns);
}

TEST(WhatifPredictedRun, AChangeThatDoesNotApplyIsTheError) {
  TraceBuilder b;
  launch(b, 1, 5, 5, 0, 7, 10, 100);
  measure(b, 0, 110);
  const Trace t = build(b);
  Expected<PredictedRun> run = predict_run(t, changes_of("pinned"));
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().message, "pinned: no pageable copies in this trace's window: nothing to change");
}

TEST(WhatifRecordedPairs, TheVariantIsFoundByRecordingAndChanges) {
  EXPECT_EQ(recorded_variant("h200x1/sequential", changes_of("streams")), "h200x1/streams");
  EXPECT_EQ(recorded_variant("h200x2/sequential", changes_of("placement=0,0,0 streams")), "h200x1/streams");
  EXPECT_EQ(recorded_variant("h200x2/sequential", changes_of("streams placement=0,0,0")), std::nullopt);
  EXPECT_EQ(recorded_variant("h200x1/sequential", changes_of("pinned")), std::nullopt);
  EXPECT_EQ(recording_key("/x/resources/traces/h200x1/sequential.json.gz"), "h200x1/sequential");
  EXPECT_EQ(recording_key("h200x2/copy-pageable.json"), "h200x2/copy-pageable");
  EXPECT_EQ(recording_key("sequential.json.gz"), "");
}

std::filesystem::path traces_dir() {
  return std::filesystem::path(GTV_TEST_DATA_DIR).parent_path().parent_path() / "resources" / "traces";
}

// On every pair of bundled recordings predicted by replay: the predicted run's window (its measurements with the
// GPU work launched inside, as for a recording) is exactly as long as the prediction, and no GPU work is lost.
// balanced-ranks is predicted from the collectives' arrivals, without a timeline to draw: refused with the reason.
TEST(WhatifPredictedRun, TheWindowOfEveryBundledPairsPredictionIsThePredictedLength) {
  for (const std::span<const RecordedPair> list : {scored_pairs(), further_pairs(), profiler_pairs()})
    for (const RecordedPair& pair : list) {
      SCOPED_TRACE(std::string(pair.from) + " " + pair.changes);
      if (std::string_view(pair.changes) == "balanced-ranks") {
        Expected<Trace> trace = io::read_trace((traces_dir() / (std::string(pair.from) + ".json.gz")).string());
        ASSERT_TRUE(trace.ok()) << trace.error().message;
        Expected<PredictedRun> run = predict_run(*trace, changes_of(pair.changes));
        ASSERT_FALSE(run.ok());
        EXPECT_NE(run.error().message.find("there is no predicted timeline to draw"), std::string::npos);
        continue;
      }
      ASSERT_TRUE(std::filesystem::exists(traces_dir() / (std::string(pair.to) + ".json.gz")));
      Expected<Trace> trace = io::read_trace((traces_dir() / (std::string(pair.from) + ".json.gz")).string());
      ASSERT_TRUE(trace.ok()) << trace.error().message;
      Expected<PredictedRun> run = predict_run(*trace, changes_of(pair.changes));
      ASSERT_TRUE(run.ok()) << run.error().message;
      EXPECT_EQ(window_length(run->trace), run->prediction.predicted_ns);
      std::size_t gpu_before = 0, gpu_after = 0;
      for (const Lane& lane : trace->lanes())
        if (lane.is_gpu())
          for (const Event& e : lane.events) gpu_before += is_gpu_activity(e.kind) ? 1 : 0;
      for (const Lane& lane : run->trace.lanes())
        if (lane.is_gpu())
          for (const Event& e : lane.events) gpu_after += is_gpu_activity(e.kind) ? 1 : 0;
      EXPECT_EQ(gpu_after, gpu_before);
      EXPECT_EQ(run->trace.flows().size(), trace->flows().size());
    }
}

}  // namespace
}  // namespace gtv::whatif
