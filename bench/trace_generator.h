#pragma once
// Synthetic Kineto-like traces for benchmarks: PyTorch-style cpu_ops on 2 host threads, each launching work with
// cudaLaunchKernel / cudaMemcpyAsync (correlation ids and ac2g flows) onto 2 GPUs x 4 streams. Written as plain
// JSON while generating, so a file of millions of events needs almost no memory and no gtv library.
#include <cstdint>
#include <cstdio>
#include <string>

namespace gtv::bench {

struct GeneratorConfig {
  std::uint64_t event_count = 1'000'000;  // "X" events (cpu ops, API calls, kernels, copies); flows come on top
  std::uint64_t seed = 42;
  int gpus = 2;
  int streams_per_gpu = 4;
  int host_threads = 2;
  int rank = -1;  // >= 0: one rank's file of a distributed run (a top-level distributedInfo)
  int world_size = 0;
  // > 0: every this-many-th kernel is a NCCL all-reduce with PyTorch's "Seq" and "Process Group Name" args
  // (sequence numbers from 0), so the collectives of rank files match across ranks; their times are not aligned.
  int collective_every = 0;
};

// What was written, so a caller can check a reader against it.
struct GeneratorStats {
  std::uint64_t events = 0;  // X events
  std::uint64_t cpu_ops = 0;
  std::uint64_t runtime_calls = 0;
  std::uint64_t kernels = 0;
  std::uint64_t memcpys = 0;
  std::uint64_t flows = 0;  // s/f pairs
  std::uint64_t bytes = 0;
};

// Writes the trace to file (already open for writing). Returns false on a write error.
bool generate_trace(const GeneratorConfig& config, std::FILE* file, GeneratorStats& stats);
// Writes to path atomically (path.tmp, then rename). Error text on failure, empty on success.
[[nodiscard]] std::string generate_trace_file(const GeneratorConfig& config, const std::string& path,
                                              GeneratorStats& stats);
// The benchmarks' default input: a trace of `events` events written to the temporary directory; `path` receives
// its name. Error text on failure, empty on success.
[[nodiscard]] std::string generate_temp_trace(std::uint64_t events, std::string& path, GeneratorStats& stats);

}  // namespace gtv::bench
