// gtv-bench-analysis: every analysis of a large trace (gtv::analysis::analyze: summary, busy, concurrency, warm-up,
// host blocking, launch latency, timing truth, kernel statistics), timed after the trace is loaded.
//
//   gtv-bench-analysis [--events N] [--file F] [--runs R] [--keep]
//
// Prints the median wall time and the median CPU time of the process (user and system, every thread) per analyze().
//
// Without --file it writes a synthetic N-event trace (gtv-trace-gen's generator) to $TMPDIR and removes it after.
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "bench_util.h"
#include "gtv/analysis/report.h"
#include "gtv/io/trace_file.h"
#include "trace_generator.h"

namespace {

using gtv::bench::now_seconds;

struct Options {
  std::uint64_t events = 1'000'000;
  std::string file;
  int runs = 5;
  bool keep = false;
};

bool parse_options(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    bool ok = has_value;
    if (arg == "--keep") {
      options.keep = true;
      continue;
    }
    if (arg == "--events" && has_value) {
      ok = gtv::bench::parse_number(argv[++i], options.events);
    } else if (arg == "--file" && has_value) {
      options.file = argv[++i];
    } else if (arg == "--runs" && has_value) {
      ok = gtv::bench::parse_number(argv[++i], options.runs) && options.runs > 0;
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr,
                   "gtv-bench-analysis: bad option %s\n"
                   "usage: gtv-bench-analysis [--events N] [--file F] [--runs R] [--keep]\n",
                   argv[i]);
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) return 2;
  const std::string load_before = gtv::bench::load_average();
  bool generated = false;
  if (options.file.empty()) {
    gtv::bench::GeneratorStats stats;
    const std::string error = gtv::bench::generate_temp_trace(options.events, options.file, stats);
    if (!error.empty()) {
      std::fprintf(stderr, "gtv-bench-analysis: %s\n", error.c_str());
      return 1;
    }
    generated = true;
  }
  auto trace = gtv::io::read_trace(options.file);
  if (generated && !options.keep) std::filesystem::remove(options.file);
  if (!trace) {
    std::fprintf(stderr, "gtv-bench-analysis: %s\n", trace.error().message.c_str());
    return 1;
  }
  std::vector<double> times, cpu_times;
  std::size_t verdict_lines = 0;
  for (int run = 0; run < options.runs; ++run) {
    const double start = now_seconds();
    const double cpu_start = gtv::bench::process_cpu_seconds();
    const gtv::analysis::Report report = gtv::analysis::analyze(*trace);
    const double elapsed = now_seconds() - start;
    const double cpu = gtv::bench::process_cpu_seconds() - cpu_start;
    verdict_lines = report.verdict.size();  // keeps the work observable
    times.push_back(elapsed);
    cpu_times.push_back(cpu);
    std::fprintf(stderr, "  analyze run %d: %.3f s wall, %.3f s CPU (all threads)\n", run + 1, elapsed, cpu);
  }
  std::printf(
      "| events | flows | analyze(): all analyses (median of %d) | CPU, all threads (median) | verdict lines |\n"
      "|---|---|---|---|---|\n",
      options.runs);
  std::printf("| %zu | %zu | %.3f s | %.3f s | %zu |\n", trace->event_count(), trace->flows().size(),
              gtv::bench::median(times), gtv::bench::median(cpu_times), verdict_lines);
  std::printf("\n/proc/loadavg before: %s; after: %s\n", load_before.c_str(), gtv::bench::load_average().c_str());
  return 0;
}
