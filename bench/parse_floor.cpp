// gtv-bench-parse-floor FILE [--runs R]: the least work any simdjson-based reader must do on a trace, for context
// beside gtv-bench-load: read the file into memory, then walk every event with simdjson On Demand, visiting every
// key and parsing only "ts". No model is built. Prints median wall and CPU seconds.
#include <simdjson.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_util.h"

namespace {

struct Sample {
  double wall_s = 0;
  double cpu_s = 0;
  double read_cpu_s = 0;  // of which reading the file into a padded buffer
  std::size_t records = 0;
};

bool walk(const char* path, Sample& sample) {
  const double wall_start = gtv::bench::now_seconds();
  const double cpu_start = gtv::bench::process_cpu_seconds();
  simdjson::padded_string json;
  if (simdjson::padded_string::load(path).get(json) != simdjson::SUCCESS) return false;
  sample.read_cpu_s = gtv::bench::process_cpu_seconds() - cpu_start;
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  if (parser.iterate(json).get(doc) != simdjson::SUCCESS) return false;
  simdjson::ondemand::array events;
  if (doc["traceEvents"].get_array().get(events) != simdjson::SUCCESS) return false;
  double ts_sum = 0;
  sample.records = 0;
  for (auto event : events) {
    simdjson::ondemand::object object;
    if (event.get_object().get(object) != simdjson::SUCCESS) return false;
    for (auto field : object) {
      std::string_view key;
      if (field.unescaped_key().get(key) != simdjson::SUCCESS) return false;
      double ts = 0;
      if (key == "ts" && field.value().get_double().get(ts) == simdjson::SUCCESS) ts_sum += ts;
    }
    ++sample.records;
  }
  sample.cpu_s = gtv::bench::process_cpu_seconds() - cpu_start;
  sample.wall_s = gtv::bench::now_seconds() - wall_start;
  return ts_sum >= 0;  // keeps the parse observable
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && !(argc == 4 && std::string(argv[2]) == "--runs")) {
    std::fprintf(stderr, "usage: gtv-bench-parse-floor FILE [--runs R]\n");
    return 2;
  }
  const int runs = argc == 4 ? std::max(1, std::atoi(argv[3])) : 5;
  const std::string load_before = gtv::bench::load_average();
  std::vector<double> wall, cpu, read_cpu;
  std::size_t records = 0;
  for (int run = 0; run < runs; ++run) {
    Sample sample;
    if (!walk(argv[1], sample)) {
      std::fprintf(stderr, "gtv-bench-parse-floor: %s: not a trace simdjson can walk\n", argv[1]);
      return 1;
    }
    std::fprintf(stderr, "  run %d: %.3f s wall, %.3f s CPU (%.3f s CPU reading the file)\n", run + 1, sample.wall_s,
                 sample.cpu_s, sample.read_cpu_s);
    wall.push_back(sample.wall_s);
    cpu.push_back(sample.cpu_s);
    read_cpu.push_back(sample.read_cpu_s);
    records = sample.records;
  }
  std::printf(
      "| JSON records | walk wall (median of %d) | walk CPU | of which reading the file (CPU) |\n"
      "|---|---|---|---|\n| %zu | %.3f s | %.3f s | %.3f s |\n",
      runs, records, gtv::bench::median(wall), gtv::bench::median(cpu), gtv::bench::median(read_cpu));
  std::printf("\n/proc/loadavg before: %s; after: %s\n", load_before.c_str(), gtv::bench::load_average().c_str());
  return 0;
}
