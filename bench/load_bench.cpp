// gtv-bench-load: how fast gtv reads a large trace, against Python's json.load on the same file, and how much
// resident memory each event costs. One run prints one markdown table row (see docs/benchmarks.md).
//
//   gtv-bench-load [--events N] [--file F] [--runs R] [--python-runs R] [--keep]
//
// Without --file it writes a synthetic N-event trace (gtv-trace-gen's generator) to $TMPDIR and removes it after.
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "bench_util.h"
#include "gtv/io/trace_file.h"
#include "trace_generator.h"

namespace {

using gtv::bench::median;
using gtv::bench::now_seconds;

struct Options {
  std::uint64_t events = 1'000'000;
  std::string file;
  int runs = 5;
  int python_runs = 3;
  bool keep = false;
};

// The memory probe runs in a fresh process so earlier loads do not inflate its peak: it prints
// "baseline_hwm_kb baseline_rss_kb peak_hwm_kb retained_rss_kb events".
int rss_child(const std::string& path) {
  const auto baseline_hwm = gtv::bench::proc_status_kb("VmHWM");
  const auto baseline_rss = gtv::bench::proc_status_kb("VmRSS");
  auto trace = gtv::io::read_trace(path);
  if (!trace) {
    std::fprintf(stderr, "%s\n", trace.error().message.c_str());
    return 1;
  }
  const auto peak_hwm = gtv::bench::proc_status_kb("VmHWM");
  const auto retained_rss = gtv::bench::proc_status_kb("VmRSS");
  if (!baseline_hwm || !baseline_rss || !peak_hwm || !retained_rss) return 1;
  std::printf("%lld %lld %lld %lld %zu\n", static_cast<long long>(*baseline_hwm), static_cast<long long>(*baseline_rss),
              static_cast<long long>(*peak_hwm), static_cast<long long>(*retained_rss), trace->event_count());
  return 0;
}

bool parse_options(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    bool ok = has_value;
    if (arg == "--keep") {
      options.keep = true;
      continue;
    }
    if (arg == "--events" && has_value)
      ok = gtv::bench::parse_number(argv[++i], options.events);
    else if (arg == "--file" && has_value)
      options.file = argv[++i];
    else if (arg == "--runs" && has_value)
      ok = gtv::bench::parse_number(argv[++i], options.runs) && options.runs > 0;
    else if (arg == "--python-runs" && has_value)
      ok = gtv::bench::parse_number(argv[++i], options.python_runs);
    else
      ok = false;
    if (!ok) {
      std::fprintf(stderr,
                   "gtv-bench-load: bad option %s\nusage: gtv-bench-load [--events N] [--file F] "
                   "[--runs R] [--python-runs R] [--keep]\n",
                   argv[i]);
      return false;
    }
  }
  return true;
}

// Median seconds of read_trace; also reports the event count it loaded.
bool time_gtv(const std::string& path, int runs, double& median_s, double& median_cpu_s, std::size_t& events) {
  std::vector<double> times;
  std::vector<double> cpu_times;
  for (int run = 0; run < runs; ++run) {
    const double start = now_seconds();
    const double cpu_start = gtv::bench::process_cpu_seconds();
    auto trace = gtv::io::read_trace(path);
    const double elapsed = now_seconds() - start;
    const double cpu = gtv::bench::process_cpu_seconds() - cpu_start;
    if (!trace) {
      std::fprintf(stderr, "gtv-bench-load: %s\n", trace.error().message.c_str());
      return false;
    }
    events = trace->event_count();
    times.push_back(elapsed);
    cpu_times.push_back(cpu);
    std::fprintf(stderr, "  read_trace run %d: %.3f s wall, %.3f s CPU\n", run + 1, elapsed, cpu);
  }
  median_s = median(times);
  median_cpu_s = median(cpu_times);
  return true;
}

// Median wall seconds of a whole `python3 -c "import json; json.load(open(F))"` process, as a user would time it.
bool time_python(const std::string& path, int runs, double& median_s) {
  std::vector<double> times;
  for (int run = 0; run < runs; ++run) {
    const double start = now_seconds();
    const int status =
        gtv::bench::run_process({"python3", "-c", "import json,sys; json.load(open(sys.argv[1]))", path}, nullptr);
    const double elapsed = now_seconds() - start;
    if (status != 0) {
      std::fprintf(stderr, "gtv-bench-load: python3 json.load failed (status %d)\n", status);
      return false;
    }
    times.push_back(elapsed);
    std::fprintf(stderr, "  python json.load run %d: %.3f s\n", run + 1, elapsed);
  }
  median_s = median(times);
  return true;
}

struct Memory {
  double peak_bytes_per_event = 0;
  double retained_bytes_per_event = 0;
};

bool measure_memory(const std::string& path, Memory& memory) {
  std::string out;
  const int status = gtv::bench::run_process({gtv::bench::self_executable(), "--rss-child", path}, &out);
  long long baseline_hwm = 0, baseline_rss = 0, peak_hwm = 0, retained_rss = 0;
  std::size_t events = 0;
  if (status != 0 ||
      std::sscanf(out.c_str(), "%lld %lld %lld %lld %zu", &baseline_hwm, &baseline_rss, &peak_hwm, &retained_rss,
                  &events) != 5 ||
      events == 0) {
    std::fprintf(stderr, "gtv-bench-load: the memory probe failed (status %d)\n", status);
    return false;
  }
  std::fprintf(stderr, "  memory probe: baseline VmHWM %lld kB, peak VmHWM %lld kB, VmRSS after load %lld kB\n",
               baseline_hwm, peak_hwm, retained_rss);
  memory.peak_bytes_per_event = static_cast<double>(peak_hwm - baseline_hwm) * 1024.0 / static_cast<double>(events);
  memory.retained_bytes_per_event =
      static_cast<double>(retained_rss - baseline_rss) * 1024.0 / static_cast<double>(events);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string_view(argv[1]) == "--rss-child") return rss_child(argv[2]);
  Options options;
  if (!parse_options(argc, argv, options)) return 2;
  const std::string load_before = gtv::bench::load_average();
  bool generated = false;
  if (options.file.empty()) {
    gtv::bench::GeneratorStats stats;
    const double start = now_seconds();
    const std::string error = gtv::bench::generate_temp_trace(options.events, options.file, stats);
    if (!error.empty()) {
      std::fprintf(stderr, "gtv-bench-load: %s\n", error.c_str());
      return 1;
    }
    std::fprintf(stderr, "generated %s: %llu events in %.2f s\n", options.file.c_str(),
                 static_cast<unsigned long long>(stats.events), now_seconds() - start);
    generated = true;
  }
  double gtv_s = 0, gtv_cpu_s = 0, python_s = 0;
  std::size_t events = 0;
  Memory memory;
  const bool ok = time_gtv(options.file, options.runs, gtv_s, gtv_cpu_s, events) &&
                  (options.python_runs == 0 || time_python(options.file, options.python_runs, python_s)) &&
                  measure_memory(options.file, memory);
  const double megabytes = static_cast<double>(gtv::bench::file_bytes(options.file)) / 1e6;
  if (generated && !options.keep) std::filesystem::remove(options.file);
  if (!ok) return 1;
  std::printf(
      "| events | file MB | gtv read_trace wall (median of %d) | its CPU time | python3 json.load wall "
      "(median of %d) | speedup | peak RSS B/event | retained RSS B/event |\n|---|---|---|---|---|---|---|---|\n",
      options.runs, options.python_runs);
  char python_cell[32] = "not run";
  char speedup_cell[32] = "-";
  if (options.python_runs > 0) {
    std::snprintf(python_cell, sizeof python_cell, "%.3f s", python_s);
    if (gtv_s > 0) std::snprintf(speedup_cell, sizeof speedup_cell, "%.1fx", python_s / gtv_s);
  }
  std::printf("| %zu | %.1f | %.3f s | %.3f s | %s | %s | %.0f | %.0f |\n", events, megabytes, gtv_s, gtv_cpu_s,
              python_cell, speedup_cell, memory.peak_bytes_per_event, memory.retained_bytes_per_event);
  std::printf("\n/proc/loadavg before: %s; after: %s\n", load_before.c_str(), gtv::bench::load_average().c_str());
  return 0;
}
