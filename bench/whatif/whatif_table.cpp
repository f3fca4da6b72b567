// The what-if predictions scored against reality: for each pair of bundled recordings of one machine where gtv
// recorded both the original and the variant, the variant's timed region predicted from the original, beside the
// variant's recorded one. Prints the tables (Markdown with --markdown) and exits 1 when fewer than 8 of the 9
// scored pairs are within 10% or fewer than 8 of the 9 bands contain the recorded value, or when fewer of the
// torch.profiler pairs hold than held when they were recorded.
//
//   gtv-bench-whatif [--markdown] TRACES_DIR     (TRACES_DIR: resources/traces)
//   gtv-bench-whatif --speed FILE                 the time of each change's prediction on FILE (after loading)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "gtv/causal/critical_path.h"
#include "gtv/io/trace_file.h"
#include "gtv/whatif/predict.h"
#include "gtv/whatif/recorded_pairs.h"

namespace {

using namespace gtv;

using whatif::RecordedPair;

constexpr double kErrorTarget = 0.10;
constexpr int kNeeded = 8;
// What the torch.profiler pairs achieve today (docs/whatif.md says why the others miss): a prediction that gets
// worse fails the run.
constexpr int kProfilerWithinHeld = 5;
constexpr int kProfilerInBandHeld = 6;

std::string ms(TimeNs ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", double(ns) / 1e6);
  return buf;
}

struct Score {
  bool ok = false;  // read, applied and predicted
  bool within = false;
  bool in_band = false;
};

// One row of the table.
Score score(const std::string& dir, const RecordedPair& pair, bool markdown) {
  const char* sep = markdown ? " | " : "  ";
  const std::string lead = markdown ? "| " : "";
  const std::string tail = markdown ? " |" : "";
  Expected<Trace> a = io::read_trace(dir + "/" + pair.from + ".json.gz");
  Expected<Trace> b = io::read_trace(dir + "/" + pair.to + ".json.gz");
  if (!a || !b) {
    std::cout << lead << pair.from << sep << (a ? b.error().message : a.error().message) << tail << "\n";
    return {};
  }
  Expected<std::vector<whatif::Change>> changes = whatif::parse_changes(pair.changes);
  if (!changes) {
    std::cout << lead << pair.from << sep << changes.error().message << tail << "\n";
    return {};
  }
  Expected<whatif::Prediction> p = whatif::predict(*a, *changes);
  if (!p) {
    std::cout << lead << pair.from << sep << pair.changes << sep << pair.to << sep
              << "does not apply: " << p.error().message << tail << "\n";
    return {};
  }
  const causal::HappensBefore g = causal::HappensBefore::build(*b);
  const causal::Window w = causal::window_of(g);
  const TimeNs recorded = w.end_ns - w.start_ns;
  Score out;
  out.ok = true;
  out.within = std::abs(double(p->predicted_ns - recorded)) / double(recorded) <= kErrorTarget;
  out.in_band = p->low_ns <= recorded && recorded <= p->high_ns;
  char err[32];
  std::snprintf(err, sizeof err, "%+.1f%%", 100.0 * double(p->predicted_ns - recorded) / double(recorded));
  std::cout << lead << pair.from << sep << pair.changes << sep << pair.to << sep << ms(p->recorded_ns) << sep
            << ms(p->predicted_ns) << sep << ms(p->low_ns) << "-" << ms(p->high_ns) << sep << ms(recorded) << sep << err
            << (out.within ? "" : " (over 10%)") << sep << (out.in_band ? "yes" : "no") << tail << "\n";
  return out;
}

// How many of the pairs a table scores hold: their rows printed, the counts returned.
struct Tally {
  int within = 0;
  int in_band = 0;
};

Tally score_all(const std::string& dir, std::span<const RecordedPair> pairs, bool markdown) {
  Tally t;
  for (const RecordedPair& pair : pairs) {
    const Score sc = score(dir, pair, markdown);
    t.within += sc.within ? 1 : 0;
    t.in_band += sc.in_band ? 1 : 0;
  }
  return t;
}

void header(bool markdown) {
  if (markdown)
    std::cout << "| recorded run | change | variant | recorded (ms) | predicted (ms) | band (ms) | variant recorded "
                 "(ms) | error | in band |\n|---|---|---|---|---|---|---|---|---|\n";
  else
    std::cout << "recorded run  change  variant  recorded  predicted  band  variant recorded  error  in band (ms)\n";
}

}  // namespace

// The wall and CPU time of predict (graph, three replays, path) for each change on one file, each the best of
// three.
int speed(const std::string& path) {
  Expected<Trace> trace = io::read_trace(path);
  if (!trace) {
    std::cerr << trace.error().message << "\n";
    return 1;
  }
  std::cout << path << ": " << trace->event_count() << " events\n";
  for (const char* text : {"streams", "pinned", "graphs", "no-launch-blocking", "processes",
                           "no-sync=cudaStreamSynchronize", "placement=0,0", "balanced-ranks"}) {
    const std::vector<whatif::Change> changes = {*whatif::parse_change(text)};
    double best_s = 1e9, best_cpu_s = 1e9;
    std::string outcome;
    for (int run = 0; run < 3; ++run) {
      const auto start = std::chrono::steady_clock::now();
      const std::clock_t cpu_start = std::clock();
      Expected<whatif::Prediction> p = whatif::predict(*trace, changes);
      best_cpu_s = std::min(best_cpu_s, double(std::clock() - cpu_start) / CLOCKS_PER_SEC);
      best_s = std::min(best_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      outcome = p ? "predicted" : "refused: " + p.error().message;
    }
    std::printf("  %-30s %7.3f s wall %7.3f s CPU  %s\n", text, best_s, best_cpu_s, outcome.c_str());
  }
  return 0;
}

int main(int argc, char** argv) {
  bool markdown = false;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--speed" && i + 1 < argc) return speed(argv[i + 1]);
    if (arg == "--markdown")
      markdown = true;
    else
      dir = arg;
  }
  if (dir.empty()) {
    std::cerr << "usage: gtv-bench-whatif [--markdown] TRACES_DIR | --speed FILE\n";
    return 2;
  }
  header(markdown);
  const int pair_count = int(whatif::scored_pairs().size());
  const auto [within, in_band] = score_all(dir, whatif::scored_pairs(), markdown);
  std::cout << "\n"
            << within << " of " << pair_count << " pairs within 10% (target " << kNeeded << "), " << in_band << " of "
            << pair_count << " bands contain the recorded value (target " << kNeeded << ")\n";
  std::cout << "\nFurther pairs (not scored):\n\n";
  header(markdown);
  for (const RecordedPair& pair : whatif::further_pairs()) (void)score(dir, pair, markdown);

  // torch.profiler's recordings of users' loops: the target is the same (all but one within 10%, all but one
  // band holding); it is not met yet, so the exit code guards what holds today and the line says the target.
  const int profiler_count = int(whatif::profiler_pairs().size());
  std::cout << "\nPairs recorded by torch.profiler (bench/training):\n\n";
  header(markdown);
  const auto [profiler_within, profiler_in_band] = score_all(dir, whatif::profiler_pairs(), markdown);
  std::cout << "\n"
            << profiler_within << " of " << profiler_count << " pairs within 10% (target " << profiler_count - 1
            << ", held today " << kProfilerWithinHeld << "), " << profiler_in_band << " of " << profiler_count
            << " bands contain the recorded value (target " << profiler_count - 1 << ", held today "
            << kProfilerInBandHeld << ")\n";
  return within >= kNeeded && in_band >= kNeeded && profiler_within >= kProfilerWithinHeld &&
                 profiler_in_band >= kProfilerInBandHeld
             ? 0
             : 1;
}
