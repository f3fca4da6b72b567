// gtv-bench-ranks: rank summaries against the traces they summarise, and the reduction of many.
//
//   gtv-bench-ranks [--events E] [--collectives-every K] [--summaries N] [--collectives C] [--runs R]
//
// Part 1, one rank: a generated rank file of E events (gtv-trace-gen's generator, every K-th kernel a NCCL
// all-reduce with a sequence number) is read, summarised (gtv::ranks::summarize and the .gtvsum bytes) and analysed
// (gtv::analysis::analyze, the whole report): the summary's bytes against the file's, summarize's time against
// analyze's. Part 2, the run: N summaries of C all-reduces each (one rank 2 ms late at every one, clocks up to
// 50 ms apart) written as .gtvsum files to $TMPDIR, then read and reduced (--clock collectives) in a child process
// of this program, which reports its own time and peak resident memory.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bench_util.h"
#include "gtv/analysis/report.h"
#include "gtv/io/trace_file.h"
#include "gtv/ranks/reduce.h"
#include "gtv/ranks/summary_file.h"
#include "trace_generator.h"

namespace {

using gtv::bench::now_seconds;

struct Options {
  std::uint64_t events = 1'000'000;
  int collective_every = 50;
  int summaries = 1024;
  int collectives = 1000;
  int runs = 3;
  std::string reduce_dir;  // the child: read and reduce the summaries in this folder
};

bool parse_options(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool v = i + 1 < argc;
    bool ok = v;
    if (arg == "--events" && v)
      ok = gtv::bench::parse_number(argv[++i], o.events) && o.events > 0;
    else if (arg == "--collectives-every" && v)
      ok = gtv::bench::parse_number(argv[++i], o.collective_every) && o.collective_every > 0;
    else if (arg == "--summaries" && v)
      ok = gtv::bench::parse_number(argv[++i], o.summaries) && o.summaries >= 2;
    else if (arg == "--collectives" && v)
      ok = gtv::bench::parse_number(argv[++i], o.collectives) && o.collectives > 0;
    else if (arg == "--runs" && v)
      ok = gtv::bench::parse_number(argv[++i], o.runs) && o.runs > 0;
    else if (arg == "--reduce-only" && v)
      o.reduce_dir = argv[++i];
    else
      ok = false;
    if (!ok) {
      std::fprintf(stderr,
                   "gtv-bench-ranks: bad option %s\nusage: gtv-bench-ranks [--events E] [--collectives-every K] "
                   "[--summaries N] [--collectives C] [--runs R]\n",
                   argv[i]);
      return false;
    }
  }
  return true;
}

int one_rank(const Options& o) {
  gtv::bench::GeneratorConfig config;
  config.event_count = o.events;
  config.gpus = 1;
  config.rank = 0;
  config.world_size = 2;
  config.collective_every = o.collective_every;
  gtv::bench::GeneratorStats stats;
  const std::string path =
      (std::filesystem::temp_directory_path() / ("gtv-bench-ranks-" + std::to_string(o.events) + ".json")).string();
  if (const std::string error = gtv::bench::generate_trace_file(config, path, stats); !error.empty()) {
    std::fprintf(stderr, "gtv-bench-ranks: %s\n", error.c_str());
    return 1;
  }
  std::vector<double> read_s, summarize_s, analyze_s;
  std::size_t summary_bytes = 0, collectives = 0;
  for (int run = 0; run < o.runs; ++run) {
    double start = now_seconds();
    auto trace = gtv::io::read_trace(path);
    read_s.push_back(now_seconds() - start);
    if (!trace) {
      std::fprintf(stderr, "gtv-bench-ranks: %s\n", trace.error().message.c_str());
      return 1;
    }
    start = now_seconds();
    const std::vector<gtv::ranks::RankSummary> summaries = gtv::ranks::summarize(*trace, path);
    summary_bytes = gtv::ranks::summary_file_bytes(summaries).size();
    summarize_s.push_back(now_seconds() - start);
    collectives = summaries.front().collectives.size();
    start = now_seconds();
    const gtv::analysis::Report report = gtv::analysis::analyze(*trace);
    analyze_s.push_back(now_seconds() - start);
    std::fprintf(stderr, "  run %d: read %.3f s, summarize %.3f s, analyze %.3f s\n", run + 1, read_s.back(),
                 summarize_s.back(), analyze_s.back());
  }
  std::filesystem::remove(path);
  const auto summarize_m = gtv::bench::median(summarize_s), analyze_m = gtv::bench::median(analyze_s);
  std::printf(
      "| events | collectives | trace bytes | summary bytes | summary / trace | read (median of %d) | summarize | "
      "analyze | analyze / summarize |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
      o.runs);
  std::printf("| %llu | %zu | %llu | %zu | %.3f%% | %.3f s | %.3f s | %.3f s | %.0fx |\n",
              static_cast<unsigned long long>(o.events), collectives, static_cast<unsigned long long>(stats.bytes),
              summary_bytes, 100.0 * static_cast<double>(summary_bytes) / static_cast<double>(stats.bytes),
              gtv::bench::median(read_s), summarize_m, analyze_m, analyze_m / summarize_m);
  return 0;
}

// N ranks x C all-reduces with sequence numbers, rank 1 2 ms late at each, clocks up to 50 ms apart.
std::vector<gtv::ranks::RankSummary> generated_summaries(int ranks, int collectives) {
  std::mt19937_64 random(5);
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(random() % (hi - lo + 1));
  };
  std::vector<gtv::ranks::RankSummary> out(static_cast<std::size_t>(ranks));
  std::vector<std::int64_t> offset(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    auto& s = out[static_cast<std::size_t>(r)];
    s.source = "/data/run/rank" + std::to_string(r) + ".json.gz";
    s.source_tool = "PyTorch Profiler (Kineto)";
    s.distributed = {r, ranks, "nccl"};
    s.origin_unix_ns = 1'790'857'026'000'000'000;
    s.devices = {r % 8};
    offset[static_cast<std::size_t>(r)] = uniform(-50'000'000, 50'000'000);
    s.collectives.reserve(static_cast<std::size_t>(collectives));
  }
  std::int64_t step = 100'000'000;
  std::vector<std::int64_t> arrival(static_cast<std::size_t>(ranks));
  for (int c = 0; c < collectives; ++c) {
    for (int r = 0; r < ranks; ++r)
      arrival[static_cast<std::size_t>(r)] = step + 1'000'000 + uniform(-50'000, 50'000) + (r == 1 ? 2'000'000 : 0);
    const std::int64_t last = *std::max_element(arrival.begin(), arrival.end());
    for (int r = 0; r < ranks; ++r) {
      const auto i = static_cast<std::size_t>(r);
      gtv::Collective k;
      k.kind = "AllReduce";
      k.group = "0";
      k.seq = c;
      k.elements = 25'000'000;
      k.start_ns = arrival[i] + offset[i];
      k.end_ns = last + 200'000 + uniform(0, 3'000) + offset[i];
      out[i].collectives.push_back(k);
    }
    step = last + 400'000;
  }
  for (std::size_t r = 0; r < out.size(); ++r) {
    out[r].start_ns = out[r].collectives.front().start_ns - 1'000'000;
    out[r].end_ns = out[r].collectives.back().end_ns;
  }
  return out;
}

// The child: read every .gtvsum of the folder, reduce, report time and peak memory.
int reduce_only(const std::string& dir) {
  const double start = now_seconds();
  const double cpu_start = gtv::bench::process_cpu_seconds();
  std::vector<gtv::ranks::RankSummary> summaries;
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  for (const std::string& p : paths) {
    auto read = gtv::ranks::read_summary_file(p);
    if (!read) {
      std::fprintf(stderr, "gtv-bench-ranks: %s\n", read.error().message.c_str());
      return 1;
    }
    for (auto& s : *read) summaries.push_back(std::move(s));
  }
  const double read_s = now_seconds() - start;
  const double read_cpu_s = gtv::bench::process_cpu_seconds() - cpu_start;
  gtv::RankMergeOptions options;
  options.clock = gtv::ClockMethod::Collectives;
  const double reduce_start = now_seconds();
  const double reduce_cpu_start = gtv::bench::process_cpu_seconds();
  const auto report = gtv::ranks::reduce(summaries, options);
  const double reduce_s = now_seconds() - reduce_start;
  const double reduce_cpu_s = gtv::bench::process_cpu_seconds() - reduce_cpu_start;
  if (!report) {
    std::fprintf(stderr, "gtv-bench-ranks: %s\n", report.error().message.c_str());
    return 1;
  }
  const double format_start = now_seconds();
  const double format_cpu_start = gtv::bench::process_cpu_seconds();
  const std::string text = gtv::ranks::format_rank_report(*report, gtv::analysis::Format::Json);
  const double format_s = now_seconds() - format_start;
  const double format_cpu_s = gtv::bench::process_cpu_seconds() - format_cpu_start;
  const auto peak_kb = gtv::bench::proc_status_kb("VmHWM");
  std::printf(
      "%zu %zu %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %lld %s\n", summaries.size(),
      report->stragglers.collectives.size(), read_s, read_cpu_s, reduce_s, reduce_cpu_s, format_s, format_cpu_s,
      now_seconds() - start, gtv::bench::process_cpu_seconds() - cpu_start, static_cast<long long>(peak_kb.value_or(0)),
      report->stragglers.per_rank.empty() ? "-" : std::to_string(report->stragglers.per_rank[1].arrived_last).c_str());
  return 0;
}

int many_ranks(const Options& o) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gtv-bench-ranks-" + std::to_string(o.summaries));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::uint64_t bytes = 0;
  {
    const std::vector<gtv::ranks::RankSummary> summaries = generated_summaries(o.summaries, o.collectives);
    for (const auto& s : summaries) {
      char name[32];
      std::snprintf(name, sizeof name, "rank%06lld.gtvsum", static_cast<long long>(s.distributed.rank));
      const std::string path = (dir / name).string();
      if (const gtv::Status st = gtv::ranks::write_summary_file({&s, 1}, path); !st) {
        std::fprintf(stderr, "gtv-bench-ranks: %s\n", st.error().message.c_str());
        return 1;
      }
      bytes += gtv::bench::file_bytes(path);
    }
  }
  std::printf(
      "\n| summaries | collectives each | summary bytes (all) | read (median of %d) | read, CPU | reduce | reduce, CPU "
      "| format JSON | format, CPU | total | total, CPU | peak RSS | rank 1 named at |\n"
      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
      o.runs);
  std::vector<double> read_s, read_cpu_s, reduce_s, reduce_cpu_s, format_s, format_cpu_s, total_s, total_cpu_s;
  long long peak_kb = 0;
  std::string named;
  for (int run = 0; run < o.runs; ++run) {
    std::string out;
    if (gtv::bench::run_process({gtv::bench::self_executable(), "--reduce-only", dir.string()}, &out) != 0) return 1;
    std::size_t n = 0, matched = 0;
    double a = 0, a_cpu = 0, b = 0, cpu = 0, c = 0, c_cpu = 0, d = 0, d_cpu = 0;
    long long kb = 0;
    char who[32] = {0};
    if (std::sscanf(out.c_str(), "%zu %zu %lf %lf %lf %lf %lf %lf %lf %lf %lld %31s", &n, &matched, &a, &a_cpu, &b,
                    &cpu, &c, &c_cpu, &d, &d_cpu, &kb, who) != 12)
      return 1;
    read_s.push_back(a);
    read_cpu_s.push_back(a_cpu);
    reduce_s.push_back(b);
    reduce_cpu_s.push_back(cpu);
    format_s.push_back(c);
    format_cpu_s.push_back(c_cpu);
    total_s.push_back(d);
    total_cpu_s.push_back(d_cpu);
    peak_kb = std::max(peak_kb, kb);
    named = std::string(who) + " of " + std::to_string(matched);
    std::fprintf(
        stderr,
        "  run %d: read %.3f s (CPU %.3f s), reduce %.3f s (CPU %.3f s), format %.3f s (CPU %.3f s), peak %lld "
        "kB\n",
        run + 1, a, a_cpu, b, cpu, c, c_cpu, kb);
  }
  std::filesystem::remove_all(dir);
  std::printf(
      "| %d | %d | %llu | %.3f s | %.3f s | %.3f s | %.3f s | %.3f s | %.3f s | %.3f s | %.3f s | %.0f MB | %s |\n",
      o.summaries, o.collectives, static_cast<unsigned long long>(bytes), gtv::bench::median(read_s),
      gtv::bench::median(read_cpu_s), gtv::bench::median(reduce_s), gtv::bench::median(reduce_cpu_s),
      gtv::bench::median(format_s), gtv::bench::median(format_cpu_s), gtv::bench::median(total_s),
      gtv::bench::median(total_cpu_s), static_cast<double>(peak_kb) / 1e3, named.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) return 2;
  if (!options.reduce_dir.empty()) return reduce_only(options.reduce_dir);
  const std::string load_before = gtv::bench::load_average();
  if (const int rc = one_rank(options); rc != 0) return rc;
  if (const int rc = many_ranks(options); rc != 0) return rc;
  std::printf("\n/proc/loadavg before: %s; after: %s\n", load_before.c_str(), gtv::bench::load_average().c_str());
  return 0;
}
