// Classroom exercises without widgets: the choice ladder, and every exercise loaded from the bundled recordings with
// its answer where the recorded value falls, checked against the region the analysis measures independently.
#include "gtv/ui/exercise.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "gtv/io/trace_file.h"
#include "gtv/ui/document_analysis.h"
#include "gtv/whatif/recorded_pairs.h"

namespace gtv::ui {
namespace {

const std::string kTraces = GTV_SOURCE_DIR "/resources/traces";

std::vector<std::string> labels(const std::vector<Choice>& choices) {
  std::vector<std::string> out;
  out.reserve(choices.size());
  for (const Choice& c : choices) out.push_back(c.label);
  return out;
}

// The choices cover every positive ratio once: contiguous, from 0 to infinity.
void expect_partition(const std::vector<Choice>& choices) {
  ASSERT_FALSE(choices.empty());
  EXPECT_EQ(choices.front().low, 0.0);
  EXPECT_TRUE(std::isinf(choices.back().high));
  for (std::size_t i = 1; i < choices.size(); ++i) EXPECT_EQ(choices[i].low, choices[i - 1].high);
  EXPECT_LE(choices.size(), 6u);
}

TEST(ExerciseChoices, SpeedupOffersSlowerAboutAndUpToMoreThanTwoAndAHalf) {
  const std::vector<double> values = {1.13, 1.12};
  const std::vector<Choice> c = ratio_choices(RatioScale::Speedup, values);
  expect_partition(c);
  EXPECT_EQ(labels(c), (std::vector<std::string>{"slower (by more than 10%)", "about as fast (within 10%)",
                                                 "1.1-1.5x faster", "1.5-2.5x faster", "more than 2.5x faster"}));
  EXPECT_EQ(choice_holding(c, 1.13), 2);
  EXPECT_EQ(choice_holding(c, 1.0), 1);
  EXPECT_EQ(choice_holding(c, 1.1), 2);  // a boundary belongs to the choice above it
  EXPECT_EQ(choice_holding(c, 0.5), 0);
  EXPECT_EQ(choice_holding(c, 40.0), 4);
}

TEST(ExerciseChoices, ASlowerValueGetsAStepBelowIt) {
  const std::vector<double> values = {0.669};  // 1.49x slower
  const std::vector<Choice> c = ratio_choices(RatioScale::Speedup, values);
  expect_partition(c);
  EXPECT_EQ(labels(c),
            (std::vector<std::string>{"more than 1.5x slower", "1.1-1.5x slower", "about as fast (within 10%)",
                                      "1.1-1.5x faster", "1.5-2.5x faster", "more than 2.5x faster"}));
  EXPECT_EQ(choice_holding(c, 0.669), 1);
}

TEST(ExerciseChoices, LargeRatiosGoOneStepPastAndMergeTheLowest) {
  const std::vector<double> values = {15.7};
  const std::vector<Choice> c = ratio_choices(RatioScale::Longer, values);
  expect_partition(c);
  EXPECT_EQ(labels(c), (std::vector<std::string>{"less than 1.5x as long", "1.5-2.5x as long", "2.5-5x as long",
                                                 "5-10x as long", "10-25x as long", "more than 25x as long"}));
  EXPECT_EQ(choice_holding(c, 15.7), 4);
  const std::vector<double> small = {5.2};
  const std::vector<Choice> d = ratio_choices(RatioScale::Longer, small);
  expect_partition(d);
  EXPECT_EQ(d.front().label, "about as long, or less");
  EXPECT_EQ(d.back().label, "more than 10x as long");
  EXPECT_EQ(choice_holding(d, 5.2), 4);
}

TEST(ExerciseChoices, NonPositiveValuesAreIgnored) {
  const std::vector<double> values = {0.0, -3.0, std::numeric_limits<double>::quiet_NaN()};
  const std::vector<Choice> c = ratio_choices(RatioScale::Speedup, values);
  expect_partition(c);
  EXPECT_EQ(c.size(), 5u);
}

TEST(ExerciseChoices, RatiosNeverRoundOntoAStep) {
  EXPECT_EQ(format_ratio(1.13), "1.13x");
  EXPECT_EQ(format_ratio(15.67), "15.7x");
  EXPECT_EQ(format_ratio(1.498), "1.498x");  // "1.50x" would read as outside "1.1-1.5x"
  EXPECT_EQ(format_ratio(24.97), "24.97x");
  EXPECT_EQ(format_ratio(0.6668), "0.667x");  // near 1/1.5, the slower side's step
}

TEST(Exercises, NamesAreUniqueAndFound) {
  std::set<std::string_view> names;
  for (const ExerciseSpec& s : exercise_specs()) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_EQ(find_exercise(s.name), &s);
    EXPECT_NE(exercise_names().find(std::string(s.name)), std::string::npos);
  }
  EXPECT_EQ(find_exercise("no-such-exercise"), nullptr);
}

// The region the analysis measures (the timed loop's truth): computed by core/analysis, apart from the causal
// window the exercise and the scored table measure.
TimeNs region_length_ns(const std::string& recording) {
  Expected<Trace> trace = io::read_trace(whatif::recording_path(kTraces, recording));
  EXPECT_TRUE(trace.ok());
  return trace ? analyse_document(*trace).report().region.length_ns() : 0;
}

TEST(Exercises, EveryExerciseLoadsWithItsAnswerWhereTheRecordedValueFalls) {
  for (const ExerciseSpec& spec : exercise_specs()) {
    SCOPED_TRACE(std::string(spec.name));
    Expected<Exercise> ex = load_exercise(spec, kTraces);
    ASSERT_TRUE(ex.ok()) << ex.error().message;
    expect_partition(ex->choices);
    ASSERT_GE(ex->right_choice, 0);
    // Exactly one choice holds the recorded value: the right one.
    for (std::size_t i = 0; i < ex->choices.size(); ++i)
      EXPECT_EQ(ex->choices[i].holds(ex->recorded_value), static_cast<int>(i) == ex->right_choice);
    EXPECT_NE(ex->outcome.find("\"" + ex->choices[static_cast<std::size_t>(ex->right_choice)].label + "\""),
              std::string::npos)
        << ex->outcome;
    EXPECT_GT(ex->question.length_ns(), 0);
    EXPECT_GT(ex->reveal.length_ns(), 0);
    EXPECT_LE(ex->question.start_ns, ex->question.cursor_ns);
    EXPECT_LE(ex->question.cursor_ns, ex->question.end_ns);
    EXPECT_FALSE(ex->measured_on.empty());
    EXPECT_NE(ex->prompt.find(std::string(spec.question)), std::string::npos);
    if (spec.kind == ExerciseKind::WhatIf) {
      const whatif::RecordedPair* pair = whatif::find_recorded_pair(spec.recording, spec.changes);
      ASSERT_NE(pair, nullptr);
      EXPECT_EQ(ex->question.name, pair->from);
      EXPECT_EQ(ex->reveal.name, pair->to);
      ASSERT_TRUE(ex->prediction.has_value());
      EXPECT_EQ(ex->prediction->recorded_ns, ex->question.length_ns());
      // The recorded speedup agrees with the regions the analysis measures on both recordings.
      const double by_region =
          static_cast<double>(region_length_ns(std::string(pair->from))) / region_length_ns(std::string(pair->to));
      EXPECT_NEAR(ex->recorded_value, by_region, 0.005 * by_region);
      EXPECT_NEAR(ex->prediction_error,
                  static_cast<double>(ex->prediction->predicted_ns - ex->reveal.length_ns()) / ex->reveal.length_ns(),
                  1e-12);
      EXPECT_TRUE(ex->choices[static_cast<std::size_t>(ex->predicted_choice)].holds(ex->predicted_value));
      EXPECT_FALSE(ex->question.gpu_hidden);
    } else {
      EXPECT_FALSE(ex->prediction.has_value());
      EXPECT_EQ(ex->question.trace, ex->reveal.trace);  // two windows of one recording
      EXPECT_NE(ex->simulation.find("Nothing to simulate"), std::string::npos);
    }
  }
}

TEST(Exercises, WarmUpComparesTheTwoForwardsByTheirTruth) {
  const ExerciseSpec* spec = find_exercise("warm-up");
  ASSERT_NE(spec, nullptr);
  Expected<Exercise> ex = load_exercise(*spec, kTraces);
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  // Worked out here from the trace's own measurements: each forward's synchronized stopwatch, whose truth is its
  // reported time when the host waited for the GPU.
  TimeNs first = 0;
  TimeNs second = 0;
  for (const Measurement& m : ex->question.trace->measurements()) {
    if (m.method != MeasurementMethod::StopwatchSync) continue;
    if (m.name == spec->first) first = m.host_end_ns - m.host_start_ns;
    if (m.name == spec->later) second = m.host_end_ns - m.host_start_ns;
  }
  ASSERT_GT(first, 0);
  ASSERT_GT(second, 0);
  EXPECT_NEAR(ex->recorded_value, static_cast<double>(first) / second, 0.01 * ex->recorded_value);
  EXPECT_GT(ex->recorded_value, 2.5);  // the first pays for module loading: several times the second
  EXPECT_NE(ex->outcome.find("first-use work"), std::string::npos) << ex->outcome;
}

TEST(Exercises, TimingMethodsHidesTheGpuAndFadesAfterTheStopwatch) {
  const ExerciseSpec* spec = find_exercise("timing-methods");
  ASSERT_NE(spec, nullptr);
  Expected<Exercise> ex = load_exercise(*spec, kTraces);
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  EXPECT_TRUE(ex->question.gpu_hidden);
  EXPECT_FALSE(ex->reveal.gpu_hidden);
  const Measurement* watch = nullptr;
  for (const Measurement& m : ex->question.trace->measurements())
    if (m.name == spec->first && m.method == MeasurementMethod::StopwatchNoSync) watch = &m;
  ASSERT_NE(watch, nullptr);
  EXPECT_EQ(ex->question.cursor_ns, watch->host_end_ns);
  // The truth runs to the end of the GPU work launched inside: far past what the stopwatch read.
  EXPECT_NEAR(ex->recorded_value, static_cast<double>(ex->question.length_ns()) / watch->reported_ns, 1e-9);
  EXPECT_GT(ex->recorded_value, 2.5);
}

TEST(Exercises, AMissingRecordingIsAOneLineError) {
  const ExerciseSpec* spec = find_exercise("streams");
  ASSERT_NE(spec, nullptr);
  Expected<Exercise> ex = load_exercise(*spec, "/nonexistent/traces");
  ASSERT_FALSE(ex.ok());
  EXPECT_NE(ex.error().message.find("exercise streams: "), std::string::npos) << ex.error().message;
  EXPECT_EQ(ex.error().message.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace gtv::ui
