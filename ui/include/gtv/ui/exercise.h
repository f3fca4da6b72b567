#pragma once
// Classroom exercises: predict, then simulate, then reveal. Each exercise shows a bundled recording and asks a
// question with choices; "simulate" shows what core/whatif predicts from that recording; "reveal" draws the
// recording of the variant at the same time scale, with the recorded value and the prediction's error. Warm-up and
// timing methods have no what-if change: their question and answer are two windows of one recording, measured by
// the analysis (warm-up, timing truth). Every answer and every choice boundary is computed here from the recordings
// (the right choice is the one the recorded value falls in); the exercises only name recordings and questions.
// No Qt: the classroom's exercise panel shows what this computes.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/model/trace.h"
#include "gtv/whatif/predict.h"

namespace gtv::ui {

struct DocumentAnalysis;

enum class ExerciseKind : std::uint8_t {
  WhatIf,         // a change predicted from one recording; the recorded pair's variant is the answer
  WarmUp,         // the first run of a piece of work against a later run of the same work, one recording
  TimingMethods,  // a stopwatch without synchronize against the truth of the same work, one recording
};

struct ExerciseSpec {
  std::string_view name;   // "streams": the menu entry and `gtv --exercise NAME`
  std::string_view title;  // "One stream per model, one GPU"
  ExerciseKind kind = ExerciseKind::WhatIf;
  std::string_view recording;  // the question's recording, relative to the traces folder: "h200x1/sequential"
  std::string_view changes;    // WhatIf: the changes of its recorded pair (gtv/whatif/recorded_pairs.h)
  std::string_view setup;      // what the recording is, in one or two sentences
  std::string_view question;   // ends with a colon; the choices complete it
  std::string_view first;      // WarmUp: the measurement of the first run; TimingMethods: the measurement
  std::string_view later;      // WarmUp: the measurement of the later run of the same work
  std::string_view lesson;     // the scenario whose lesson the reveal shows ("streams")
};

// Every exercise, in teaching order.
[[nodiscard]] std::span<const ExerciseSpec> exercise_specs();
[[nodiscard]] const ExerciseSpec* find_exercise(std::string_view name);
// "serial-models, streams, ..." for error messages and --help.
[[nodiscard]] std::string exercise_names();

// One answer: the value lies in [low, high) (high may be infinite, low 0).
struct Choice {
  std::string label;
  double low = 0;
  double high = 0;
  [[nodiscard]] bool holds(double value) const { return value >= low && value < high; }
};

// How a ratio is asked about. Speedup: the original's length over the variant's ("1.1-1.5x faster", "slower");
// Longer: one length over another ("1.1-1.5x as long").
enum class RatioScale : std::uint8_t { Speedup, Longer };

// The choices of a ratio question, from one ladder of steps (1.1, 1.5, 2.5, 5, 10, 25, 50, 100...) that every
// question shares: consecutive steps of the ladder from "about the same" (within 10%), down to the slower side as
// far as the values need (Speedup: at least one "slower" choice), and up to one step past the largest value and at
// least to "more than 2.5x"; the lowest and highest choices are open-ended. At most six choices: the lowest steps
// merge when more would be needed. values: the ratios the choices must tell apart (the recorded value, the
// prediction); non-positive values are ignored.
[[nodiscard]] std::vector<Choice> ratio_choices(RatioScale scale, std::span<const double> values);
// The index of the choice holding value; -1 when none does.
[[nodiscard]] int choice_holding(const std::vector<Choice>& choices, double value);

// One timeline of an exercise: a recording and the window the question is about, as recorded.
struct ExerciseRecording {
  std::string name;  // "h200x1/sequential"
  std::shared_ptr<const Trace> trace;
  std::shared_ptr<const DocumentAnalysis> analysis;
  TimeNs start_ns = 0;  // the window the value is measured on
  TimeNs end_ns = 0;
  TimeNs cursor_ns = 0;     // the question's playback cursor: what lies after it is faded out until the reveal
  bool gpu_hidden = false;  // the GPU lanes would give the answer away: hidden until the reveal
  std::string caption;      // "h200x1/sequential: the measured 'timed loop', 128.4 ms"
  [[nodiscard]] TimeNs length_ns() const { return end_ns - start_ns; }
};

struct Exercise {
  const ExerciseSpec* spec = nullptr;
  ExerciseRecording question;  // shown with the question
  ExerciseRecording reveal;    // drawn at the reveal, at the question's time scale
  std::string prompt;          // the setup and the question, with the recording's own numbers
  std::string measured_on;     // which window of which recording the values are measured on
  RatioScale scale = RatioScale::Speedup;
  std::vector<Choice> choices;
  double recorded_value = 0;                     // the ratio the recordings give
  int right_choice = -1;                         // the choice holding recorded_value
  std::optional<whatif::Prediction> prediction;  // WhatIf only
  double predicted_value = 0;                    // the ratio the prediction gives
  int predicted_choice = -1;
  double prediction_error = 0;  // (predicted - recorded) / recorded length of the variant's window
  std::string simulation;       // the simulate step: the prediction, its band and speedup, or why there is none
  std::string outcome;          // the reveal: the recorded value, the right choice and the prediction's error
  std::string lesson_scenario;  // the spec's lesson: the scenario whose lesson the reveal shows
};

// Reads the recordings from traces_dir (resources/traces, or the installed traces folder), analyses them, predicts
// and derives the choices and the answer. One-line error when a recording is missing or unreadable, or when it does
// not hold what the question is about.
[[nodiscard]] Expected<Exercise> load_exercise(const ExerciseSpec& spec, const std::string& traces_dir);

// "1.13x", "15.7x"; with a third decimal where two would round it onto a step of the ladder ("1.498x", not "1.50x",
// for a value in "1.1-1.5x"), so the number never seems to contradict its choice.
[[nodiscard]] std::string format_ratio(double ratio);

}  // namespace gtv::ui
