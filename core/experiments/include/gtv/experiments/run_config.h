#pragma once
// What one experiment run asks for, and the command line of the runner (gtv-run, also `gtv-cli run`) that asks
// for it. No LibTorch here: gtv-cli and the desktop program build a RunConfig and start gtv-run with it.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gtv::exp {

struct RunConfig {
  std::string scenario;
  int models = 3;
  int input = 100;
  int hidden = 0;  // 0: 10000 on a GPU, 512 on the CPU
  int output = 100;
  double dropout = 0.4;
  int batch = 100;
  int iters = 10;
  std::vector<int> devices;  // GPU of each model (cycled when shorter); empty: round-robin over the GPUs present
  bool warmup = true;        // run one untimed warm-up pass first (recorded as a WarmUp range)
  bool all_api = false;      // keep the noisy CUDA API ids (cudaGetDevice ...) in the CUPTI trace
  bool trace_ops = true;     // PyTorch op ranges (RecordFunction callbacks) as CpuOp events
  bool cupti = true;         // trace GPU activity with CUPTI when the build and machine allow
  bool force_cpu = false;    // run on the CPU even when a GPU is present
  // The ddp scenarios on one machine: how many ranks gtv starts (0: one per GPU, 2 on the CPU; devices then
  // gives each rank's GPU), and the c10d backend ("nccl" or "gloo"; empty: NCCL on GPUs, Gloo on the CPU).
  // Under torchrun (RANK and WORLD_SIZE set) the process is one rank and these come from the environment.
  int ranks = 0;
  std::string backend;
  // The ddp scenarios: one rank (straggler_rank >= 0) sleeps straggler_us on its host before each training step,
  // inside a range named "injected delay", so it arrives that much later at every step's collectives: a straggler
  // with a known answer. -1: none.
  int straggler_rank = -1;
  std::int64_t straggler_us = 0;
  // Asked before each iteration (from the running thread): true stops the run there with the error
  // "cancelled". Empty: never cancelled.
  std::function<bool()> cancelled;
  // Called right before each timed phase starts (outside its measurement): the `processes` scenario uses it to
  // start every worker's timed loop at the same moment. May be empty.
  std::function<void()> before_timed_work;
};

// Default hidden size when RunConfig::hidden is 0.
inline constexpr int kDefaultHiddenGpu = 10000;
inline constexpr int kDefaultHiddenCpu = 512;

// The runner's arguments for config, writing the trace to output_path:
// SCENARIO -o PATH --models N [--hidden H] --batch B --iters K [--devices LIST] [--ranks R] [--backend NAME]
// [--straggler RANK=MS] [--no-warmup] [--all-api] (--hidden, --ranks, --backend and --straggler only when not
// their defaults).
// They carry the fields the runner has options for; input, output, dropout, trace_ops, cupti and force_cpu keep
// their defaults in the runner.
[[nodiscard]] std::vector<std::string> run_arguments(const RunConfig& config, std::string_view output_path);

// "1=5" for rank 1 delayed 5 ms, "2=0.2" for 200 us; the text --straggler takes.
[[nodiscard]] std::string straggler_text(int rank, std::int64_t delay_us);
// The other way: {rank, delay_us} from "RANK=MS" (a rank up to 1,000,000; a delay in milliseconds of up to seven
// digits and three decimals, above 0); nullopt for anything else.
[[nodiscard]] std::optional<std::pair<int, std::int64_t>> parse_straggler_text(std::string_view text);

}  // namespace gtv::exp
