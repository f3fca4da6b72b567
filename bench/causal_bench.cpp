// gtv-bench-causal: the happens-before graph of a large trace, its unchanged replay and the critical path of its
// region, each timed, with the memory they hold beyond the loaded trace; and gtv::analysis::analyze() on the same
// trace, side by side.
//
//   gtv-bench-causal [--events N] [--runs R] [--no-analyze]
//
// The trace is built in memory with TraceBuilder (no file): N events as the synthetic trace of gtv-trace-gen has
// them: 2 host threads, each call a cudaLaunchKernel (1 in 16 a cudaMemcpyAsync) inside a cpu_op, the kernel or
// copy on one of 2 GPUs x 4 streams, joined by correlation id; a cudaDeviceSynchronize every 1000 launches.
#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "bench_util.h"
#include "gtv/analysis/report.h"
#include "gtv/causal/critical_path.h"
#include "gtv/model/trace_builder.h"

namespace {

using gtv::TimeNs;
using gtv::bench::now_seconds;

struct Options {
  std::uint64_t events = 1'000'000;
  int runs = 3;
  bool analyze = true;
};

bool parse_options(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    bool ok = i + 1 < argc;
    if (arg == "--no-analyze") {
      options.analyze = false;
      continue;
    }
    if (arg == "--events" && ok)
      ok = gtv::bench::parse_number(argv[++i], options.events) && options.events >= 8;
    else if (arg == "--runs" && ok)
      ok = gtv::bench::parse_number(argv[++i], options.runs) && options.runs > 0;
    else
      ok = false;
    if (!ok) {
      std::fprintf(stderr,
                   "gtv-bench-causal: bad option %s\nusage: gtv-bench-causal [--events N] [--runs R] "
                   "[--no-analyze]\n",
                   argv[i]);
      return false;
    }
  }
  return true;
}

gtv::Event event(gtv::StringId name, TimeNs start, TimeNs dur, gtv::EventKind kind, std::uint64_t corr) {
  gtv::Event e;
  e.name = name;
  e.start_ns = start;
  e.duration_ns = dur;
  e.kind = kind;
  e.correlation_id = corr;
  return e;
}

// Each launch is 3 events (op, call, GPU work): the two threads alternate, each GPU stream runs its work in order.
gtv::Trace build_trace(std::uint64_t events) {
  gtv::TraceBuilder b;
  const gtv::StringId op = b.intern("aten::mm"), launch = b.intern("cudaLaunchKernel"),
                      copy = b.intern("cudaMemcpyAsync"), sync = b.intern("cudaDeviceSynchronize"),
                      gemm = b.intern("gemm"), memcpy = b.intern("Memcpy HtoD (Pinned -> Device)");
  TimeNs host[2] = {0, 0};
  TimeNs stream_end[8] = {};
  const std::uint64_t launches = events / 3;
  for (std::uint64_t i = 0; i < launches; ++i) {
    const int thread = static_cast<int>(i % 2);
    const gtv::LaneIndex lane = b.lane(gtv::host_lane_key(1, 10 + thread));
    const TimeNs t = host[thread];
    const bool is_copy = i % 16 == 15;
    b.add_event(lane, event(op, t, 9000, gtv::EventKind::CpuOp, gtv::kNoCorrelation));
    b.add_event(lane, event(is_copy ? copy : launch, t + 2000, 5000, gtv::EventKind::Runtime, i + 1));
    const int s = static_cast<int>((i * 7) % 8);
    const TimeNs start = std::max(t + 9000, stream_end[s] + 1000);
    const TimeNs dur = 5000 + static_cast<TimeNs>((i * 2654435761u) % 20000);
    stream_end[s] = start + dur;
    const gtv::LaneIndex gpu = b.lane(gtv::gpu_lane_key(s / 4, s % 4));
    if (is_copy)
      b.add_memcpy(gpu, event(memcpy, start, dur, gtv::EventKind::Memcpy, i + 1),
                   {1 << 20, gtv::CopyKind::HostToDevice, gtv::MemoryKind::Pinned, gtv::MemoryKind::Device, -1});
    else
      b.add_kernel(gpu, event(gemm, start, dur, gtv::EventKind::Kernel, i + 1), gtv::KernelDetail{});
    host[thread] = t + 12000;
    if (i % 1000 == 999) {
      const TimeNs done = *std::max_element(stream_end, stream_end + 8);
      b.add_event(lane, event(sync, host[thread], std::max<TimeNs>(done - host[thread], 0) + 3000,
                              gtv::EventKind::Runtime, gtv::kNoCorrelation));
      host[thread] = std::max(host[thread], done) + 4000;
    }
  }
  auto trace = b.build();
  if (!trace) {
    std::fprintf(stderr, "gtv-bench-causal: %s\n", trace.error().message.c_str());
    std::exit(1);
  }
  return std::move(trace).value();
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) return 2;
  const std::string load_before = gtv::bench::load_average();
  const gtv::Trace trace = build_trace(options.events);
  std::vector<double> build_s, replay_s, path_s, analyze_s;
  std::size_t bytes = 0, segments = 0, nodes = 0;
  for (int run = 0; run < options.runs; ++run) {
    double t0 = now_seconds();
    const gtv::causal::HappensBefore g = gtv::causal::HappensBefore::build(trace);
    double t1 = now_seconds();
    const gtv::causal::Timeline t = gtv::causal::replay(g);
    double t2 = now_seconds();
    const gtv::causal::CriticalPath p = gtv::causal::critical_path(g, t, gtv::causal::window_of(g));
    double t3 = now_seconds();
    build_s.push_back(t1 - t0), replay_s.push_back(t2 - t1), path_s.push_back(t3 - t2);
    nodes = g.size();
    segments = p.segments.size();
    bytes = g.memory_bytes() + (t.start_ns.capacity() + t.end_ns.capacity()) * sizeof(TimeNs) +
            p.segments.capacity() * sizeof(gtv::causal::Segment);
    std::fprintf(stderr, "  run %d: graph %.3f s, replay %.3f s, critical path %.3f s\n", run + 1, t1 - t0, t2 - t1,
                 t3 - t2);
    if (options.analyze) {
      const double a0 = now_seconds();
      const gtv::analysis::Report report = gtv::analysis::analyze(trace);
      analyze_s.push_back(now_seconds() - a0);
      std::fprintf(stderr, "  run %d: analyze %.3f s (%zu verdict lines)\n", run + 1, analyze_s.back(),
                   report.verdict.size());
    }
  }
  const double total = gtv::bench::median(build_s) + gtv::bench::median(replay_s) + gtv::bench::median(path_s);
  std::printf(
      "| events | nodes | graph | replay | critical path | together | bytes per event | path segments |"
      " analyze() |\n|---|---|---|---|---|---|---|---|---|\n");
  std::printf("| %zu | %zu | %.3f s | %.3f s | %.3f s | %.3f s | %.1f | %zu | %s |\n", trace.event_count(), nodes,
              gtv::bench::median(build_s), gtv::bench::median(replay_s), gtv::bench::median(path_s), total,
              double(bytes) / double(trace.event_count()), segments,
              options.analyze ? (std::to_string(gtv::bench::median(analyze_s)).substr(0, 5) + " s").c_str() : "-");
  std::printf("\nmedians of %d runs; /proc/loadavg before: %s; after: %s\n", options.runs, load_before.c_str(),
              gtv::bench::load_average().c_str());
  return 0;
}
