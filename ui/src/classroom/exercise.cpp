#include "gtv/ui/exercise.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <set>

#include "gtv/causal/critical_path.h"
#include "gtv/io/trace_file.h"
#include "gtv/ui/document_analysis.h"
#include "gtv/whatif/predict.h"
#include "gtv/whatif/recorded_pairs.h"

namespace gtv::ui {
namespace {

// What each exercise asks, and of which recording. The answers are not here: load_exercise measures them.
constexpr std::array<ExerciseSpec, 10> kExercises = {{
    {"serial-models",
     "Serial models? One stream per model, two GPUs",
     ExerciseKind::WhatIf,
     "h200x2/sequential",
     "streams",
     "The seed on two H200s: three models on GPUs 0, 1 and 0, called one after another from one host thread, each "
     "on its GPU's default stream.",
     "With one stream per model (models 0 and 2 then share GPU 0 on two streams), the timed loop would be:",
     {},
     {},
     "streams"},
    {"one-gpu",
     "Serial models? All three on one GPU",
     ExerciseKind::WhatIf,
     "h200x2/sequential",
     "placement=0,0,0",
     "The seed on two H200s: three models on GPUs 0, 1 and 0, called one after another from one host thread, each "
     "on its GPU's default stream.",
     "With all three models on GPU 0 (GPU 1 left idle), the timed loop would be:",
     {},
     {},
     "launch-blocking"},
    {"streams",
     "One stream per model, one GPU",
     ExerciseKind::WhatIf,
     "h200x1/sequential",
     "streams",
     "Three models on one H200, called one after another from one host thread on the default stream.",
     "With one stream per model on that GPU, the timed loop would be:",
     {},
     {},
     "streams"},
    {"threads",
     "One thread per model, then a stream per thread",
     ExerciseKind::WhatIf,
     "h200x1/threads",
     "streams",
     "One host thread per model, the three models on one H200, every thread on the default stream.",
     "With each thread's work on a stream of its own, the timed loop would be:",
     {},
     {},
     "threads-streams"},
    {"processes",
     "Threads or processes",
     ExerciseKind::WhatIf,
     "h200x2/threads",
     "processes",
     "The seed's threads on two H200s: one host thread per model (models on GPUs 0, 1 and 0), all in one process.",
     "With one process per GPU instead (no process locks shared between them), the timed loop would be:",
     {},
     {},
     "processes"},
    {"copies",
     "Pageable copies or pinned",
     ExerciseKind::WhatIf,
     "h200x2/copy-pageable",
     "pinned",
     "The seed on two H200s, and after each forward pass the output is copied to the host with .to(kCPU), into "
     "pageable memory.",
     "With the copies made asynchronously into pinned memory (one synchronize at the end), the timed loop would be:",
     {},
     {},
     "copy-pinned"},
    {"launch-blocking",
     "CUDA_LAUNCH_BLOCKING",
     ExerciseKind::WhatIf,
     "h200x2/launch-blocking",
     "no-launch-blocking",
     "The seed on two H200s, run with CUDA_LAUNCH_BLOCKING=1: every launch returns only when its kernel has "
     "finished.",
     "Without CUDA_LAUNCH_BLOCKING (launches return at once), the timed loop would be:",
     {},
     {},
     "launch-blocking"},
    {"graphs",
     "CUDA graphs",
     ExerciseKind::WhatIf,
     "h200x1/sequential",
     "graphs",
     "Three models on one H200, called one after another from one host thread; each forward pass launches its "
     "kernels one by one.",
     "With each forward captured once as a CUDA graph and replayed with one launch, the timed loop would be:",
     {},
     {},
     "cuda-graph"},
    {"warm-up",
     "Warm-up: the first forward pass",
     ExerciseKind::WarmUp,
     "h200x2/warmup",
     {},
     "Model 0's first forward pass in a fresh process, then its second forward pass: the same work. Each is timed "
     "from its start on the host to the end of its GPU work.",
     "Against the second forward pass, the first took:",
     "first forward of model 0",
     "second forward of model 0",
     "warmup"},
    {"timing-methods",
     "Timing: a stopwatch without synchronize",
     ExerciseKind::TimingMethods,
     "h200x2/timing-methods",
     {},
     "Forward passes of model 0, timed with a stopwatch around the calls and no synchronize, as the seed did.",
     "From the stopwatch's start until the GPU had finished that work, the time was:",
     "timed work",
     {},
     "timing-methods"},
}};

std::string ms(TimeNs ns) { return format_duration(ns); }

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100.0 * fraction);
  return buf;
}

// "1.13x faster", "1.49x slower", "1.00x (as fast)"
std::string speedup_words(double ratio) {
  if (format_ratio(ratio) == "1.00x") return "1.00x (as fast)";  // within 0.5%: neither faster nor slower
  return ratio >= 1.0 ? format_ratio(ratio) + " faster" : format_ratio(1.0 / ratio) + " slower";
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

struct Loaded {
  std::shared_ptr<const Trace> trace;
  std::shared_ptr<const DocumentAnalysis> analysis;
};

Expected<Loaded> load(const ExerciseSpec& spec, const std::string& dir, std::string_view name) {
  Expected<Trace> trace = io::read_trace(whatif::recording_path(dir, name));
  if (!trace) return Error{"exercise " + std::string(spec.name) + ": " + trace.error().message};
  Loaded out;
  out.trace = std::make_shared<const Trace>(std::move(trace).value());
  DocumentAnalysis analysis = analyse_document(out.trace);
  // Two timelines share the projector's height: they keep the GPUs-busy strip and leave out the measurements'
  // brackets (the timing exercise's answer is among them) and the idle-cause rows.
  analysis.overlays.brackets.clear();
  analysis.overlays.idle.clear();
  analysis.overlays.idle_devices.clear();
  analysis.overlays.idle_labels.clear();
  out.analysis = std::make_shared<const DocumentAnalysis>(std::move(analysis));
  return out;
}

ExerciseRecording recording(std::string_view name, const Loaded& loaded, TimeNs start_ns, TimeNs end_ns) {
  ExerciseRecording r;
  r.name = std::string(name);
  r.trace = loaded.trace;
  r.analysis = loaded.analysis;
  r.start_ns = start_ns;
  r.end_ns = end_ns;
  r.cursor_ns = end_ns;
  return r;
}

Expected<Exercise> what_if(Exercise ex, const std::string& dir) {
  const ExerciseSpec& spec = *ex.spec;
  const whatif::RecordedPair* pair = whatif::find_recorded_pair(spec.recording, spec.changes);
  if (pair == nullptr)
    return Error{"exercise " + std::string(spec.name) + ": no recording of " + std::string(spec.recording) + " with " +
                 std::string(spec.changes) + " is bundled"};
  Expected<std::vector<whatif::Change>> changes = whatif::parse_changes(pair->changes);
  if (!changes) return changes.error();
  Expected<Loaded> from = load(spec, dir, pair->from);
  if (!from) return from.error();
  Expected<Loaded> to = load(spec, dir, pair->to);
  if (!to) return to.error();
  Expected<whatif::Prediction> p = whatif::predict(*from->analysis->analysed, *changes);
  if (!p) return Error{"exercise " + std::string(spec.name) + ": " + p.error().message};
  const causal::WindowTimes wa = whatif::recorded_window(*from->analysis->analysed);
  const causal::WindowTimes wb = whatif::recorded_window(*to->analysis->analysed);
  if (wa.length_ns() <= 0 || wb.length_ns() <= 0 || p->predicted_ns <= 0)
    return Error{"exercise " + std::string(spec.name) + ": a recording has an empty window"};
  const std::string& window = p->window;
  ex.question = recording(pair->from, *from, wa.start_ns, wa.end_ns);
  ex.question.caption = std::string(pair->from) + " (recorded): " + window + ", " + ms(wa.length_ns());
  ex.reveal = recording(pair->to, *to, wb.start_ns, wb.end_ns);
  ex.reveal.caption = std::string(pair->to) + " (the variant, recorded): " + window + ", " + ms(wb.length_ns());
  ex.scale = RatioScale::Speedup;
  ex.recorded_value = static_cast<double>(wa.length_ns()) / static_cast<double>(wb.length_ns());
  ex.predicted_value = static_cast<double>(wa.length_ns()) / static_cast<double>(p->predicted_ns);
  ex.prediction_error = static_cast<double>(p->predicted_ns - wb.length_ns()) / static_cast<double>(wb.length_ns());
  const std::array<double, 2> values = {ex.recorded_value, ex.predicted_value};
  ex.choices = ratio_choices(ex.scale, values);
  ex.right_choice = choice_holding(ex.choices, ex.recorded_value);
  ex.predicted_choice = choice_holding(ex.choices, ex.predicted_value);
  ex.prompt = std::string(spec.setup) + " " + std::string(spec.question);  // the caption says what was recorded
  ex.measured_on = "Measured on " + window + " of each recording (from its start on the host to the later of its " +
                   "end there and the end of the GPU work launched inside it): " + std::string(pair->from) +
                   " against " + std::string(pair->to) + ".";
  const double low = static_cast<double>(wa.length_ns()) / static_cast<double>(p->high_ns);
  const double high = static_cast<double>(wa.length_ns()) / static_cast<double>(std::max<TimeNs>(1, p->low_ns));
  const std::string band = high < 1.0     ? format_ratio(1.0 / high) + " to " + format_ratio(1.0 / low) + " slower"
                           : low >= 0.995 ? format_ratio(low) + " to " + format_ratio(high) + " faster"
                                          : speedup_words(low) + " to " + speedup_words(high);
  ex.simulation = "gtv predicts from " + std::string(pair->from) + " alone (" + std::string(pair->changes) +
                  "): " + ms(p->predicted_ns) + ", band " + ms(p->low_ns) + " to " + ms(p->high_ns) + ": " +
                  speedup_words(ex.predicted_value) + " (band " + band + "), choice \"" +
                  ex.choices[static_cast<std::size_t>(ex.predicted_choice)].label + "\".";
  if (!p->applied.empty() && !p->applied.front().empty()) {
    std::string applied = p->applied.front();
    applied[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(applied[0])));
    ex.simulation += " " + applied + ".";
  }
  const bool in_band = p->low_ns <= wb.length_ns() && wb.length_ns() <= p->high_ns;
  ex.outcome = "Recorded: " + ms(wb.length_ns()) + ", " + speedup_words(ex.recorded_value) + ": the answer is \"" +
               ex.choices[static_cast<std::size_t>(ex.right_choice)].label + "\". gtv's prediction, " +
               ms(p->predicted_ns) + ", was " + percent(ex.prediction_error) + " off; its band " +
               (in_band ? std::string("holds") : std::string("misses")) + " the recorded value.";
  ex.prediction = std::move(p).value();
  return ex;
}

// The measurement of this name, by the method asked for; the synchronized stopwatch, else the CUDA events, else any
// when method is Other.
const analysis::MeasurementTruth* measurement(const analysis::TimingTruth& timing, std::string_view name,
                                              MeasurementMethod method) {
  const std::array<MeasurementMethod, 3> preferred = {MeasurementMethod::StopwatchSync, MeasurementMethod::CudaEvents,
                                                      MeasurementMethod::StopwatchNoSync};
  for (const MeasurementMethod m : preferred) {
    if (method != MeasurementMethod::Other && m != method) continue;
    for (const analysis::MeasurementTruth& t : timing.measurements)
      if (t.name == name && t.method == m && t.truth_ns > 0) return &t;
  }
  return nullptr;
}

Error missing(const ExerciseSpec& spec, std::string_view what) {
  return Error{"exercise " + std::string(spec.name) + ": " + std::string(spec.recording) + " has no measurement " +
               quoted(std::string(what))};
}

// The causes of first-use work inside [start_ns, end_ns), largest first: "module loading, context creation".
std::string warmup_causes_within(const analysis::WarmUp& warmup, TimeNs start_ns, TimeNs end_ns) {
  std::vector<std::pair<TimeNs, std::string>> costs;
  for (const analysis::WarmUpCauseTotal& total : warmup.causes) {
    TimeNs inside = 0;
    for (const analysis::WarmUpFinding& f : warmup.findings) {
      if (f.cause != total.cause || f.on_gpu) continue;
      for (const analysis::Interval& s : f.spans)
        inside += std::max<TimeNs>(0, std::min(s.end_ns, end_ns) - std::max(s.start_ns, start_ns));
    }
    if (inside > 0) costs.emplace_back(inside, std::string(analysis::to_string(total.cause)));
  }
  std::sort(costs.begin(), costs.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (const auto& [ns, name] : costs) out += (out.empty() ? "" : ", ") + name + " " + ms(ns);
  return out;
}

Expected<Exercise> warm_up(Exercise ex, const std::string& dir) {
  const ExerciseSpec& spec = *ex.spec;
  Expected<Loaded> loaded = load(spec, dir, spec.recording);
  if (!loaded) return loaded.error();
  const analysis::Report& report = loaded->analysis->report();
  const analysis::MeasurementTruth* first = measurement(report.timing, spec.first, MeasurementMethod::Other);
  const analysis::MeasurementTruth* later = measurement(report.timing, spec.later, MeasurementMethod::Other);
  if (first == nullptr) return missing(spec, spec.first);
  if (later == nullptr) return missing(spec, spec.later);
  const std::string method(to_string(first->method));
  ex.question = recording(spec.recording, *loaded, first->host_start_ns, first->host_start_ns + first->truth_ns);
  ex.question.caption = std::string(spec.recording) + ": " + quoted(first->name) + ", " + ms(first->truth_ns);
  ex.reveal = recording(spec.recording, *loaded, later->host_start_ns, later->host_start_ns + later->truth_ns);
  ex.reveal.caption = std::string(spec.recording) + ": " + quoted(later->name) + ", " + ms(later->truth_ns);
  ex.scale = RatioScale::Longer;
  ex.recorded_value = static_cast<double>(first->truth_ns) / static_cast<double>(later->truth_ns);
  const std::array<double, 1> values = {ex.recorded_value};
  ex.choices = ratio_choices(ex.scale, values);
  ex.right_choice = choice_holding(ex.choices, ex.recorded_value);
  ex.prompt =
      std::string(spec.setup) + " The first took " + ms(first->truth_ns) + " (drawn). " + std::string(spec.question);
  ex.measured_on = "Measured on two windows of " + std::string(spec.recording) + ": the " + method + " measurements " +
                   quoted(first->name) + " and " + quoted(later->name) +
                   ", each from its start on the host to the later of its end there and the end of its GPU work (gtv's "
                   "timing-truth analysis).";
  ex.simulation =
      "Nothing to simulate: no what-if change removes warm-up. The answer is measured in the recording itself.";
  const TimeNs first_end_ns = first->host_start_ns + first->truth_ns;
  const TimeNs first_use_ns = analysis::warmup_host_cost_within(report.warmup, first->host_start_ns, first_end_ns);
  const std::string causes = warmup_causes_within(report.warmup, first->host_start_ns, first_end_ns);
  ex.outcome = "Recorded: the second took " + ms(later->truth_ns) + ", so the first took " +
               format_ratio(ex.recorded_value) + " as long: the answer is \"" +
               ex.choices[static_cast<std::size_t>(ex.right_choice)].label + "\". gtv's warm-up analysis finds " +
               ms(first_use_ns) + " of first-use work on the host inside the first" +
               (causes.empty() ? std::string(".") : " (" + causes + ").");
  return ex;
}

Expected<Exercise> timing_methods(Exercise ex, const std::string& dir) {
  const ExerciseSpec& spec = *ex.spec;
  Expected<Loaded> loaded = load(spec, dir, spec.recording);
  if (!loaded) return loaded.error();
  const analysis::Report& report = loaded->analysis->report();
  const analysis::MeasurementTruth* watch = measurement(report.timing, spec.first, MeasurementMethod::StopwatchNoSync);
  if (watch == nullptr || watch->reported_ns <= 0) return missing(spec, spec.first);
  const TimeNs truth_end_ns = watch->host_start_ns + watch->truth_ns;
  ex.question = recording(spec.recording, *loaded, watch->host_start_ns, truth_end_ns);
  ex.question.cursor_ns = watch->host_end_ns;  // what the stopwatch saw; the rest is faded until the reveal
  ex.question.gpu_hidden = true;
  ex.question.caption = std::string(spec.recording) + ": the stopwatch " + quoted(watch->name) + " read " +
                        ms(watch->reported_ns) + " (the GPU lanes are hidden)";
  ex.reveal = recording(spec.recording, *loaded, watch->host_start_ns, truth_end_ns);
  ex.reveal.caption = std::string(spec.recording) + ": until the GPU finished, " + ms(watch->truth_ns);
  ex.scale = RatioScale::Longer;
  ex.recorded_value = static_cast<double>(watch->truth_ns) / static_cast<double>(watch->reported_ns);
  const std::array<double, 1> values = {ex.recorded_value};
  ex.choices = ratio_choices(ex.scale, values);
  ex.right_choice = choice_holding(ex.choices, ex.recorded_value);
  ex.prompt =
      std::string(spec.setup) + " The stopwatch read " + ms(watch->reported_ns) + ". " + std::string(spec.question);
  ex.measured_on = "Measured on " + std::string(spec.recording) + "'s measurement " + quoted(watch->name) +
                   ": the stopwatch's reading against its truth, from its start on the host to the later of its end "
                   "there and the end of the GPU work launched inside it (gtv's timing-truth analysis).";
  ex.simulation =
      "Nothing to simulate: no what-if change models a timing method. The answer is measured in the recording "
      "itself.";
  std::string others;
  for (const MeasurementMethod m : {MeasurementMethod::StopwatchSync, MeasurementMethod::CudaEvents})
    if (const analysis::MeasurementTruth* t = measurement(report.timing, spec.first, m))
      others +=
          (others.empty() ? " The " : ", the ") + std::string(to_string(m)) + " measurement read " + ms(t->reported_ns);
  ex.outcome = "Recorded: the GPU finished " + ms(watch->truth_ns) + " after the stopwatch started, " +
               format_ratio(ex.recorded_value) + " what it read: the answer is \"" +
               ex.choices[static_cast<std::size_t>(ex.right_choice)].label + "\"." +
               (others.empty() ? std::string() : others + " of the same work.");
  return ex;
}

}  // namespace

std::span<const ExerciseSpec> exercise_specs() { return kExercises; }

const ExerciseSpec* find_exercise(std::string_view name) {
  for (const ExerciseSpec& s : kExercises)
    if (s.name == name) return &s;
  return nullptr;
}

std::string exercise_names() {
  std::string out;
  for (const ExerciseSpec& s : kExercises) out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

Expected<Exercise> load_exercise(const ExerciseSpec& spec, const std::string& traces_dir) {
  Exercise ex;
  ex.spec = &spec;
  ex.lesson_scenario = std::string(spec.lesson);
  switch (spec.kind) {
    case ExerciseKind::WhatIf:
      return what_if(std::move(ex), traces_dir);
    case ExerciseKind::WarmUp:
      return warm_up(std::move(ex), traces_dir);
    case ExerciseKind::TimingMethods:
      return timing_methods(std::move(ex), traces_dir);
  }
  return Error{"exercise " + std::string(spec.name) + ": unknown kind"};
}

}  // namespace gtv::ui
