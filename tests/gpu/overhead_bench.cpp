// gtv's tracing overhead on the seed's loop: the synchronized wall time of `sequential`'s
// timed loop with gtv tracing (CUPTI + op callbacks) against without. Each run is a fresh process (CUPTI allows
// one client per process and a fresh process also gets a cold start like a user's run); the rounds alternate.
//
//   gtv_overhead_bench [--rounds N]          prints a markdown table row per mode and the overhead
//   gtv_overhead_bench --once traced|untraced  one run; prints the synchronized loop time in ns
//
// Compare with tests/gpu/overhead_torch_profiler.py (the same workload in Python under torch.profiler).
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "gtv/experiments/runner.h"

namespace {

int run_once(const std::string& mode) {
  gtv::exp::RunConfig config;
  config.scenario = "sequential";
  config.cupti = mode == "traced";
  config.trace_ops = mode == "traced";
  const gtv::exp::RunResult result = gtv::exp::run_scenario(config, {});
  if (!result.status.ok() || !result.trace) {
    std::cerr << "run failed: " << (result.status.ok() ? "no trace" : result.status.error().message) << "\n";
    return 1;
  }
  for (const auto& m : result.trace->measurements())
    if (m.name == "timed loop" && m.method == gtv::MeasurementMethod::StopwatchSync) {
      std::cout << m.reported_ns << "\n";
      return 0;
    }
  std::cerr << "no synchronized measurement of the timed loop\n";
  return 1;
}

long long run_child(const std::string& self, const std::string& mode) {
  const std::string command = "'" + self + "' --once " + mode;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return -1;
  std::array<char, 128> line{};
  if (fgets(line.data(), static_cast<int>(line.size()), pipe.get()) == nullptr) return -1;
  return std::atoll(line.data());
}

double median_ms(std::vector<long long> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const double mid = n % 2 ? static_cast<double>(values[n / 2]) : (values[n / 2 - 1] + values[n / 2]) / 2.0;
  return mid / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "--once") return run_once(args[1]);
  int rounds = 5;
  if (args.size() == 2 && args[0] == "--rounds") rounds = std::max(1, std::atoi(args[1].c_str()));
  std::vector<long long> untraced;
  std::vector<long long> traced;
  for (int r = 0; r < rounds; ++r) {
    for (const std::string mode : {"untraced", "traced"}) {
      const long long ns = run_child(argv[0], mode);
      if (ns <= 0) {
        std::cerr << "round " << r << " (" << mode << ") failed\n";
        return 1;
      }
      (mode == "traced" ? traced : untraced).push_back(ns);
      std::cerr << "round " << r << " " << mode << ": " << ns / 1e6 << " ms\n";
    }
  }
  const double base = median_ms(untraced);
  const double with = median_ms(traced);
  std::printf("| sequential, synced loop (median of %d) | untraced %.1f ms | gtv traced %.1f ms | overhead %+.1f%% |\n",
              rounds, base, with, 100.0 * (with - base) / base);
  return 0;
}
