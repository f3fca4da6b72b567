// gtv-bench-merge: the files of N ranks of one run read and merged into one trace (gtv::merge_ranks), as
// `gtv-cli merge` and the GUI's "open as one run" do: time to read the files, time to merge them, their ratio to
// the events merged (linear means a constant time per event), and the peak resident memory.
//
//   gtv-bench-merge [--ranks N] [--events E] [--runs R] [--keep] [--reuse] [--collectives-every K] [--analyze]
//
// --collectives-every K makes every K-th kernel of each file a NCCL all-reduce with a sequence number (matched
// across ranks, times not aligned); --analyze then also times the whole report of the merged run
// (gtv::analysis::analyze: the causal graph, critical path, stragglers and every other part).
//
// Writes N synthetic rank files of E events each (gtv-trace-gen's generator, one GPU each, distributedInfo rank r of
// N) to $TMPDIR, removed after unless --keep; --reuse reads the files a --keep run left (same N and E) instead.
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "gtv/analysis/report.h"
#include "gtv/io/trace_file.h"
#include "gtv/model/rank_merge.h"
#include "trace_generator.h"

namespace {

using gtv::bench::now_seconds;

struct Options {
  int ranks = 8;
  std::uint64_t events = 1'000'000;
  int runs = 3;
  bool keep = false;
  bool reuse = false;  // files of an earlier --keep run with the same --ranks and --events are read as they are
  int collective_every = 0;
  bool analyze = false;
};

bool parse_options(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    bool ok = true;
    if (arg == "--keep") {
      options.keep = true;
    } else if (arg == "--reuse") {
      options.reuse = true;
      options.keep = true;
    } else if (arg == "--ranks" && has_value) {
      ok = gtv::bench::parse_number(argv[++i], options.ranks) && options.ranks >= 2;
    } else if (arg == "--events" && has_value) {
      ok = gtv::bench::parse_number(argv[++i], options.events) && options.events > 0;
    } else if (arg == "--analyze") {
      options.analyze = true;
    } else if (arg == "--collectives-every" && has_value) {
      ok = gtv::bench::parse_number(argv[++i], options.collective_every) && options.collective_every > 0;
    } else if (arg == "--runs" && has_value) {
      ok = gtv::bench::parse_number(argv[++i], options.runs) && options.runs > 0;
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr,
                   "gtv-bench-merge: bad option %s\n"
                   "usage: gtv-bench-merge [--ranks N] [--events E] [--runs R] [--keep] [--reuse] "
                   "[--collectives-every K] [--analyze]\n",
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
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  std::vector<std::string> paths;
  std::uint64_t file_bytes = 0;
  for (int r = 0; r < options.ranks; ++r) {
    gtv::bench::GeneratorConfig config;
    config.event_count = options.events;
    config.seed = 42 + static_cast<std::uint64_t>(r);
    config.gpus = 1;
    config.rank = r;
    config.world_size = options.ranks;
    config.collective_every = options.collective_every;
    gtv::bench::GeneratorStats stats;
    const std::string path =
        (dir / ("gtv-bench-merge-" + std::to_string(options.ranks) + "x" + std::to_string(options.events) + "c" +
                std::to_string(options.collective_every) + "-rank" + std::to_string(r) + ".json"))
            .string();
    paths.push_back(path);
    if (options.reuse && std::filesystem::exists(path)) {
      file_bytes += gtv::bench::file_bytes(path);
      continue;
    }
    if (const std::string error = gtv::bench::generate_trace_file(config, path, stats); !error.empty()) {
      std::fprintf(stderr, "gtv-bench-merge: %s\n", error.c_str());
      return 1;
    }
    file_bytes += stats.bytes;
  }
  std::vector<double> read_times, merge_times, analyze_times, serial_times;
  std::size_t collectives = 0;
  std::size_t merged_events = 0, merged_flows = 0, ranks = 0;
  for (int run = 0; run < options.runs; ++run) {
    double start = now_seconds();
    std::vector<gtv::Trace> traces;
    for (const std::string& path : paths) {
      auto t = gtv::io::read_trace(path);
      if (!t) {
        std::fprintf(stderr, "gtv-bench-merge: %s\n", t.error().message.c_str());
        return 1;
      }
      traces.push_back(std::move(t).value());
    }
    read_times.push_back(now_seconds() - start);
    std::vector<gtv::RankFile> files;
    for (std::size_t i = 0; i < traces.size(); ++i) files.push_back({&traces[i], paths[i]});
    start = now_seconds();
    auto merged = gtv::merge_ranks(files);
    merge_times.push_back(now_seconds() - start);
    if (!merged) {
      std::fprintf(stderr, "gtv-bench-merge: %s\n", merged.error().message.c_str());
      return 1;
    }
    merged_events = merged->trace.event_count();
    merged_flows = merged->trace.flows().size();
    ranks = merged->trace.metadata().ranks.size();
    if (options.analyze) {
      traces.clear();  // the merged trace holds everything the report reads
      start = now_seconds();
      const gtv::analysis::Report report = gtv::analysis::analyze(merged->trace);
      analyze_times.push_back(now_seconds() - start);
      collectives = report.stragglers.collectives.size();
      // The same report computed in one thread, right after: the ratio of the two is side by side.
      start = now_seconds();
      const gtv::analysis::Report serial = gtv::analysis::analyze(merged->trace, gtv::analysis::Parallelism::Serial);
      serial_times.push_back(now_seconds() - start);
      if (serial.stragglers.collectives.size() != collectives) {
        std::fprintf(stderr, "gtv-bench-merge: the serial report differs\n");
        return 1;
      }
    }
    std::fprintf(stderr, "  run %d: read %.3f s, merge %.3f s, analyze %.3f s (in one thread %.3f s)\n", run + 1,
                 read_times.back(), merge_times.back(), analyze_times.empty() ? 0.0 : analyze_times.back(),
                 serial_times.empty() ? 0.0 : serial_times.back());
  }
  if (!options.keep)
    for (const std::string& path : paths) std::filesystem::remove(path);
  const double merge_s = gtv::bench::median(merge_times);
  const auto peak_kb = gtv::bench::proc_status_kb("VmHWM");
  std::printf(
      "| ranks | events per rank | merged events | flows | file MB | read all (median of %d) | merge (median) | "
      "merge ns/event | peak RSS |\n|---|---|---|---|---|---|---|---|---|\n",
      options.runs);
  std::printf("| %zu | %llu | %zu | %zu | %.0f | %.2f s | %.2f s | %.0f | %.2f GB |\n", ranks,
              static_cast<unsigned long long>(options.events), merged_events, merged_flows,
              static_cast<double>(file_bytes) / 1e6, gtv::bench::median(read_times), merge_s,
              merge_s * 1e9 / static_cast<double>(merged_events), peak_kb ? static_cast<double>(*peak_kb) / 1e6 : 0.0);
  if (options.analyze)
    std::printf(
        "\nanalyze (median of %d): %.2f s on three threads, %.2f s in one (%u cores); %zu collectives matched on "
        "every rank\n",
        options.runs, gtv::bench::median(analyze_times), gtv::bench::median(serial_times),
        std::thread::hardware_concurrency(), collectives);
  std::printf("\n/proc/loadavg before: %s; after: %s\n", load_before.c_str(), gtv::bench::load_average().c_str());
  return 0;
}
