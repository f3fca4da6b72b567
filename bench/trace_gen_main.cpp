// gtv-trace-gen --events N -o FILE: writes a synthetic Kineto-like trace for benchmarks.
#include <cstdio>
#include <string>
#include <string_view>

#include "bench_util.h"
#include "trace_generator.h"

namespace {

int usage(const char* message) {
  if (message != nullptr) std::fprintf(stderr, "gtv-trace-gen: %s\n", message);
  std::fprintf(stderr,
               "usage: gtv-trace-gen --events N -o FILE [--seed S]\n"
               "  N X events (cpu_op, cudaLaunchKernel/cudaMemcpyAsync, kernel/memcpy) on 2 host threads and\n"
               "  2 GPUs x 4 streams, with ac2g flows; plain JSON.\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  gtv::bench::GeneratorConfig config;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      usage(nullptr);
      return 0;
    }
    if ((arg == "--events" || arg == "-n") && has_value) {
      if (!gtv::bench::parse_number(argv[++i], config.event_count))
        return usage("--events needs a non-negative integer");
    } else if (arg == "--seed" && has_value) {
      if (!gtv::bench::parse_number(argv[++i], config.seed)) return usage("--seed needs a non-negative integer");
    } else if ((arg == "-o" || arg == "--output") && has_value) {
      path = argv[++i];
    } else {
      return usage(("unknown or incomplete option " + std::string(arg)).c_str());
    }
  }
  if (path.empty()) return usage("missing -o FILE");
  gtv::bench::GeneratorStats stats;
  const std::string error = gtv::bench::generate_trace_file(config, path, stats);
  if (!error.empty()) {
    std::fprintf(stderr, "gtv-trace-gen: %s\n", error.c_str());
    return 1;
  }
  std::printf(
      "%s: %llu events (%llu cpu_op, %llu cuda_runtime, %llu kernel, %llu gpu_memcpy), %llu flows, %llu bytes\n",
      path.c_str(), static_cast<unsigned long long>(stats.events), static_cast<unsigned long long>(stats.cpu_ops),
      static_cast<unsigned long long>(stats.runtime_calls), static_cast<unsigned long long>(stats.kernels),
      static_cast<unsigned long long>(stats.memcpys), static_cast<unsigned long long>(stats.flows),
      static_cast<unsigned long long>(stats.bytes));
  return 0;
}
