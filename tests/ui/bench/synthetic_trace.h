#pragma once
// A synthetic trace of a given size for the replot benchmark: GPU streams of back-to-back kernels (1-20 us, short
// gaps) and host threads with launches nested under ops, spread over a few hundred milliseconds per million events.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtv/model/trace_builder.h"
#include "gtv/ui/work_owner.h"

namespace gtv::ui::bench {

// The recorded structure a gtv recording of that size would carry: per host thread one iteration range per 1000
// events with three model forwards inside, and per GPU a memory counter sampled every 100 events of the trace.
inline void add_synthetic_structure(TraceBuilder& b, std::size_t event_count, TimeNs span_ns, int gpus,
                                    int host_threads) {
  const std::size_t iterations = std::max<std::size_t>(1, event_count / 1000);
  const TimeNs step_ns = std::max<TimeNs>(1, span_ns / static_cast<TimeNs>(iterations));
  for (int t = 0; t < host_threads; ++t)
    for (std::size_t i = 0; i < iterations; ++i) {
      const TimeNs start = static_cast<TimeNs>(i) * step_ns;
      b.add_range(
          {"iteration " + std::to_string(i), RangeKind::Iteration, start, start + step_ns - 10, 1000, 1 + t, -1});
      for (int m = 0; m < 3; ++m)
        b.add_range({"model " + std::to_string(m) + " forward", RangeKind::Forward, start + m * step_ns / 3,
                     start + (m + 1) * step_ns / 3 - 20, 1000, 1 + t, m % std::max(gpus, 1)});
    }
  const std::size_t samples = std::max<std::size_t>(1, event_count / 100);
  for (int g = 0; g < gpus; ++g)
    for (std::size_t i = 0; i < samples; ++i)
      b.add_counter_sample(g, "device memory allocated (bytes)",
                           {static_cast<TimeNs>(i) * (span_ns / static_cast<TimeNs>(samples)),
                            static_cast<double>((i * 7919) % 1000) * 1e6});
}

// with_structure: also the ranges and counters of add_synthetic_structure.
inline Trace synthetic_trace(std::size_t event_count, int gpus = 2, int streams_per_gpu = 4, int host_threads = 4,
                             bool with_structure = false) {
  TraceBuilder b;
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<TimeNs> duration_ns(1'000, 20'000);
  std::uniform_int_distribution<TimeNs> gap_ns(100, 5'000);
  std::vector<StringId> kernels;
  for (int i = 0; i < 40; ++i) kernels.push_back(b.intern("kernel_" + std::to_string(i) + "_sgemm_128x64"));
  const StringId launch = b.intern("cudaLaunchKernel");
  const StringId op = b.intern("aten::linear");
  std::vector<LaneIndex> lanes;
  for (int g = 0; g < gpus; ++g)
    for (int s = 0; s < streams_per_gpu; ++s) lanes.push_back(b.lane(gpu_lane_key(g, 7 + s)));
  const std::size_t gpu_lanes = lanes.size();
  for (int t = 0; t < host_threads; ++t) lanes.push_back(b.lane(host_lane_key(1000, 1 + t)));
  const std::size_t per_lane = event_count / lanes.size();
  TimeNs span_ns = 0;
  for (std::size_t l = 0; l < lanes.size(); ++l) {
    TimeNs t = 0;
    const bool gpu = l < gpu_lanes;
    for (std::size_t i = 0; i < per_lane; ++i) {
      Event e;
      e.start_ns = t;
      e.duration_ns = duration_ns(rng);
      if (gpu) {
        e.kind = EventKind::Kernel;
        e.name = kernels[i % kernels.size()];
        b.add_event(lanes[l], e);
      } else if (i % 2 == 0) {
        e.kind = EventKind::CpuOp;  // an op that holds the next launch
        e.name = op;
        e.duration_ns = 12'000;
        b.add_event(lanes[l], e);
        continue;  // the launch below starts inside it
      } else {
        e.kind = EventKind::Runtime;
        e.name = launch;
        e.start_ns = t + 2'000;
        e.duration_ns = 5'000;
        b.add_event(lanes[l], e);
        e.duration_ns = 12'000;
      }
      t += e.duration_ns + gap_ns(rng);
    }
    span_ns = std::max(span_ns, t);
  }
  if (with_structure) add_synthetic_structure(b, event_count, span_ns, gpus, host_threads);
  return std::move(b.build().value());
}

// Owners for a synthetic trace (it has no flows): on every GPU lane `models` owners take turns, `run` kernels each.
inline WorkOwners synthetic_owners(const Trace& trace, int models, std::uint32_t run) {
  WorkOwners owners;
  for (int m = 0; m < models; ++m) owners.names.push_back("model " + std::to_string(m) + " forward");
  owners.colors = owner_colors(owners.names);
  owners.of_event.resize(trace.lanes().size());
  for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
    if (!trace.lane(l).is_gpu()) continue;
    const std::size_t n = trace.lane(l).events.size();
    owners.of_event[l].resize(n);
    for (std::size_t i = 0; i < n; ++i) owners.of_event[l][i] = static_cast<std::uint16_t>((i / run) % models);
    owners.gpu_events += n;
    owners.owned_events += n;
  }
  return owners;
}

}  // namespace gtv::ui::bench
