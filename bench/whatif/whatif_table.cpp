// The what-if predictions scored against reality: for each pair of bundled recordings of one machine where gtv
// recorded both the original and the variant, the variant's timed region predicted from the original, beside the
// variant's recorded one. Prints the tables (Markdown with --markdown) and exits 1 when fewer than 8 of the 9
// scored pairs are within 10% or fewer than 8 of the 9 bands contain the recorded value, or when fewer of the
// torch.profiler pairs hold than held when they were recorded.
//
//   gtv-bench-whatif [--markdown] TRACES_DIR [--rounds DIR]   (TRACES_DIR: resources/traces; DIR: a folder of
//                                                             rounds, bench/training/rounds/h100x1)
//   gtv-bench-whatif --speed FILE                 the time of each change's prediction on FILE (after loading)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
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
// worse fails the run. Over the rounds; without --rounds the bundled recordings alone are scored, and fewer hold:
// one recording of a loop the host bounds is not a measurement of the model.
// How many of a table's pairs hold.
struct Tally {
  int within = 0;
  int in_band = 0;
};
constexpr Tally kProfilerHeldOverRounds{11, 10};
constexpr Tally kProfilerHeldBundled{5, 6};

std::string ms(TimeNs ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", double(ns) / 1e6);
  return buf;
}

// How a row's cells are joined: Markdown's pipes, or two spaces.
struct Cells {
  explicit Cells(bool markdown)
      : sep(markdown ? " | " : "  "), lead(markdown ? "| " : ""), tail(markdown ? " |" : "") {}
  const char* sep;
  const char* lead;
  const char* tail;
};

// One pair's prediction beside its variant's recording, or why there is none.
struct Outcome {
  std::string error;  // empty when predicted
  TimeNs recorded_ns = 0;
  TimeNs predicted_ns = 0;
  TimeNs low_ns = 0;
  TimeNs high_ns = 0;
  TimeNs variant_ns = 0;  // the variant's recorded window
  [[nodiscard]] double error_ratio() const { return double(predicted_ns - variant_ns) / double(variant_ns); }
  [[nodiscard]] bool within() const { return std::abs(error_ratio()) <= kErrorTarget; }
  [[nodiscard]] bool in_band() const { return low_ns <= variant_ns && variant_ns <= high_ns; }
};

// The pair's variant predicted from the file at `from_path`, beside the one at `to_path`.
Outcome predict_pair(const std::string& from_path, const std::string& to_path, const RecordedPair& pair) {
  Expected<Trace> a = io::read_trace(from_path);
  Expected<Trace> b = io::read_trace(to_path);
  if (!a || !b) return {.error = a ? b.error().message : a.error().message};
  Expected<std::vector<whatif::Change>> changes = whatif::parse_changes(pair.changes);
  if (!changes) return {.error = changes.error().message};
  Expected<whatif::Prediction> p = whatif::predict(*a, *changes);
  if (!p) return {.error = "does not apply: " + p.error().message};
  const causal::HappensBefore g = causal::HappensBefore::build(*b);
  const causal::Window w = causal::window_of(g);
  return {.error = {},
          .recorded_ns = p->recorded_ns,
          .predicted_ns = p->predicted_ns,
          .low_ns = p->low_ns,
          .high_ns = p->high_ns,
          .variant_ns = w.end_ns - w.start_ns};
}

std::string percent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100.0 * ratio);
  return buf;
}

// The pair's bundled recordings in the traces folder.
Outcome predict_bundled(const std::string& dir, const RecordedPair& pair) {
  return predict_pair(whatif::recording_path(dir, pair.from), whatif::recording_path(dir, pair.to), pair);
}

// One row of the table.
Outcome score(const std::string& dir, const RecordedPair& pair, bool markdown) {
  const Cells c(markdown);
  Outcome o = predict_bundled(dir, pair);
  std::cout << c.lead << pair.from << c.sep << pair.changes << c.sep << pair.to << c.sep;
  if (!o.error.empty()) {
    std::cout << o.error << c.tail << "\n";
    return o;
  }
  std::cout << ms(o.recorded_ns) << c.sep << ms(o.predicted_ns) << c.sep << ms(o.low_ns) << "-" << ms(o.high_ns)
            << c.sep << ms(o.variant_ns) << c.sep << percent(o.error_ratio()) << (o.within() ? "" : " (over 10%)")
            << c.sep << (o.in_band() ? "yes" : "no") << c.tail << "\n";
  return o;
}

// The rows of the pairs a table scores, and how many of them hold.
Tally score_all(const std::string& dir, std::span<const RecordedPair> pairs, bool markdown) {
  Tally t;
  for (const RecordedPair& pair : pairs) {
    const Outcome o = score(dir, pair, markdown);
    t.within += o.error.empty() && o.within() ? 1 : 0;
    t.in_band += o.error.empty() && o.in_band() ? 1 : 0;
  }
  return t;
}

// The last component of a pair's name: "small3-sequential" of "pytorch-h200x1/small3-sequential".
std::string stem_of(const char* name) {
  const std::string n(name);
  const std::size_t slash = n.rfind('/');
  return slash == std::string::npos ? n : n.substr(slash + 1);
}

// The rounds folder's rounds (its subfolders, in name order) that hold both files of a pair.
std::vector<std::filesystem::path> rounds_of(const std::string& rounds_dir, const RecordedPair& pair) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(rounds_dir, ec))
    if (e.is_directory() && std::filesystem::exists(e.path() / (stem_of(pair.from) + ".json.gz")) &&
        std::filesystem::exists(e.path() / (stem_of(pair.to) + ".json.gz")))
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Each pair over its rounds: every round of the rounds folder that holds both of its files, the two recorded back
// to back. A pair counts within 10% when the median of its rounds' errors is, and its band as holding when it holds
// in more than half of its rounds; a pair without rounds counts as its bundled row does.
Tally score_rounds(const std::string& dir, const std::string& rounds_dir, std::span<const RecordedPair> pairs,
                   bool markdown) {
  const Cells c(markdown);
  if (markdown)
    std::cout << "| recorded run | change | variant | rounds | error in each round | median error | bands holding "
                 "|\n|---|---|---|---|---|---|---|\n";
  else
    std::cout << "recorded run  change  variant  rounds  error in each round  median error  bands holding\n";
  std::filesystem::path folder_path = std::filesystem::path(rounds_dir).lexically_normal();
  if (folder_path.filename().empty()) folder_path = folder_path.parent_path();  // "rounds/h100x1/"
  const std::string folder = folder_path.filename().string();
  Tally t;
  for (const RecordedPair& pair : pairs) {
    std::vector<Outcome> outcomes;
    const std::vector<std::filesystem::path> rounds = rounds_of(rounds_dir, pair);
    if (rounds.empty()) outcomes.push_back(predict_bundled(dir, pair));
    for (const std::filesystem::path& round : rounds)
      outcomes.push_back(predict_pair((round / (stem_of(pair.from) + ".json.gz")).string(),
                                      (round / (stem_of(pair.to) + ".json.gz")).string(), pair));
    std::vector<double> errors;
    int bands = 0;
    std::string each;
    for (const Outcome& o : outcomes) {
      each += each.empty() ? "" : ", ";
      if (!o.error.empty()) {
        each += "(" + o.error + ")";
        continue;
      }
      errors.push_back(o.error_ratio());
      bands += o.in_band() ? 1 : 0;
      each += percent(o.error_ratio()) + (o.in_band() ? "" : " out");
    }
    const int n = int(errors.size());
    const bool within = n > 0 && std::abs(median_of(errors)) <= kErrorTarget;
    const bool in_band = n > 0 && 2 * bands > n;
    t.within += within ? 1 : 0;
    t.in_band += in_band ? 1 : 0;
    // A pair scored over rounds is named by its files' names in each round, and the rounds by their folder.
    const std::string from = rounds.empty() ? pair.from : stem_of(pair.from);
    const std::string to = rounds.empty() ? pair.to : stem_of(pair.to);
    const std::string where =
        rounds.empty() ? std::string("the bundled recording") : std::to_string(rounds.size()) + " in " + folder;
    std::cout << c.lead << from << c.sep << pair.changes << c.sep << to << c.sep << where << c.sep << each << c.sep
              << (n > 0 ? percent(median_of(errors)) : "none") << (within ? "" : " (over 10%)") << c.sep << bands
              << " of " << n << c.tail << "\n";
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
  std::string dir, rounds_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--speed" && i + 1 < argc) return speed(argv[i + 1]);
    if (arg == "--rounds" && i + 1 < argc)
      rounds_dir = argv[++i];
    else if (arg == "--markdown")
      markdown = true;
    else
      dir = arg;
  }
  if (dir.empty()) {
    std::cerr << "usage: gtv-bench-whatif [--markdown] TRACES_DIR [--rounds DIR] | --speed FILE\n";
    return 2;
  }
  if (!rounds_dir.empty() && !std::filesystem::is_directory(rounds_dir)) {
    std::cerr << "gtv-bench-whatif: no folder " << rounds_dir << "\n";
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
  // band holding); the bands fall short of it, so the exit code guards what holds today and the line says the target.
  const int profiler_count = int(whatif::profiler_pairs().size());
  std::cout << "\nPairs recorded by torch.profiler (bench/training):\n\n";
  header(markdown);
  Tally profiler = score_all(dir, whatif::profiler_pairs(), markdown);
  if (!rounds_dir.empty()) {
    // A loop the host bounds runs its host code up to 2x faster or slower from one recording to the next
    // (bench/training/README.md): scored over rounds recorded back to back, the pairs measure the model.
    std::cout << "\nThe same pairs over the rounds of " << rounds_dir << ":\n\n";
    profiler = score_rounds(dir, rounds_dir, whatif::profiler_pairs(), markdown);
  }
  const auto [profiler_within, profiler_in_band] = profiler;
  const Tally held = rounds_dir.empty() ? kProfilerHeldBundled : kProfilerHeldOverRounds;
  std::cout << "\n"
            << profiler_within << " of " << profiler_count << " pairs within 10% (target " << profiler_count - 1
            << ", held today " << held.within << "), " << profiler_in_band << " of " << profiler_count
            << " bands contain the recorded value (target " << profiler_count - 1 << ", held today " << held.in_band
            << ")\n";
  return within >= kNeeded && in_band >= kNeeded && profiler_within >= held.within && profiler_in_band >= held.in_band
             ? 0
             : 1;
}
