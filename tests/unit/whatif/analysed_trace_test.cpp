// One analysed trace, one graph: the report, every change the What if dialog tries, the predicted run and the
// recorded window all read the graph the analysed trace built once, on a trace of a million events.
#include "gtv/analysis/analysed_trace.h"

#include <gtest/gtest.h>

#include <array>

#include "gtv/whatif/predict.h"
#include "gtv/whatif/predicted_run.h"
#include "whatif_helpers.h"

namespace gtv::whatif {
namespace {

using causal::testing::launch;
using causal::testing::measure;
using causal::testing::us;

// Two host threads, each launching kernels of 8 us every 10 us onto a stream of its own GPU 0 stream, inside one
// timed measurement: `events` calls and kernels in all.
Trace generated(std::size_t events) {
  TraceBuilder b;
  const std::size_t launches = events / 2;
  for (std::size_t i = 0; i < launches; ++i) {
    const auto tid = static_cast<std::int64_t>(1 + i % 2);
    const auto t = static_cast<TimeNs>(i / 2) * 10;
    launch(b, i + 1, t, 4, 0, 7 + tid, t + 5, 8, tid);
  }
  measure(b, 0, static_cast<TimeNs>(launches / 2) * 10 + 20);
  return causal::testing::build(b);
}

TEST(AnalysedTrace, OneGraphForTheReportEveryChangeAndThePredictedRun) {
  const std::size_t before = causal::graph_builds();
  const auto analysed = analysis::AnalysedTrace::make(generated(1'000'000));
  ASSERT_EQ(analysed->trace().event_count(), 1'000'000u);
  EXPECT_FALSE(analysed->has_graph());
  EXPECT_EQ(analysed->bytes_used(), 0u);
  EXPECT_FALSE(analysed->report().verdict.empty());
  EXPECT_TRUE(analysed->has_graph());
  // Every call and kernel is a node of 20 bytes at least.
  EXPECT_GE(analysed->bytes_used(), 1'000'000u * 20u);

  // The dialog: each change without a parameter tried alone, then the chosen one's predicted run, then the window.
  const std::vector<Trial> trials = try_each_change(*analysed);
  ASSERT_EQ(trials.size(), parameterless_changes().size());
  const Trial* applied = nullptr;
  for (const Trial& t : trials)
    if (t.prediction.ok() && info(t.change.kind).replayed && applied == nullptr) applied = &t;
  ASSERT_NE(applied, nullptr) << "no change applies to the generated trace";
  const std::array<Change, 1> chosen{applied->change};
  const Expected<PredictedRun> run = predict_run(*analysed, chosen);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run->prediction.predicted_ns, applied->prediction->predicted_ns);
  EXPECT_GT(recorded_window(*analysed).length_ns(), 0);

  EXPECT_EQ(causal::graph_builds() - before, 1u);
}

TEST(AnalysedTrace, BadChangesBuildNoGraph) {
  const std::size_t before = causal::graph_builds();
  const auto analysed = analysis::AnalysedTrace::make(generated(100));
  const std::array<Change, 2> twice{Change{ChangeKind::Streams, {}, {}}, Change{ChangeKind::Streams, {}, {}}};
  EXPECT_FALSE(predict(*analysed, twice).ok());
  EXPECT_FALSE(analysed->has_graph());
  EXPECT_EQ(causal::graph_builds(), before);
}

}  // namespace
}  // namespace gtv::whatif
