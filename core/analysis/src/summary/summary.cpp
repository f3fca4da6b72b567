#include "gtv/analysis/summary.h"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

#include "gtv/analysis/busy.h"
#include "gtv/model/ranks.h"

namespace gtv::analysis {
namespace {

// Names of processes by pid: a trace may hold 100k processes, so looked up, not searched.
using ProcessNames = std::unordered_map<std::int64_t, std::string_view>;

ProcessNames process_names(const Trace& trace) {
  ProcessNames names;
  names.reserve(trace.processes().size());
  for (const ProcessInfo& info : trace.processes()) names[info.pid] = info.name;  // the last entry wins
  return names;
}

void add_host_lane(const ProcessNames& names, const Lane& lane, std::map<std::int64_t, ProcessSummary>& processes) {
  ProcessSummary& p = processes[lane.key.pid];
  if (p.threads.empty()) {
    p.pid = lane.key.pid;
    if (auto it = names.find(p.pid); it != names.end()) p.name = it->second;
  }
  p.threads.push_back({lane.key.tid, lane.name, lane.events.size()});
}

GpuSummary& gpu_of(std::map<std::int64_t, GpuSummary>& gpus, std::int64_t index) {
  GpuSummary& g = gpus[index];
  g.index = index;
  return g;
}

std::vector<CategoryCount> count_categories(const Trace& trace) {
  std::array<std::size_t, kEventKindCount> per_kind{};
  std::unordered_map<StringId, std::size_t> per_other;  // unknown categories, by interned text
  for (const Lane& lane : trace.lanes()) {
    for (const Event& e : lane.events) {
      if (e.kind == EventKind::Other && e.detail != kNoDetail)
        ++per_other[e.detail];
      else
        ++per_kind[static_cast<std::size_t>(e.kind)];
    }
  }
  std::map<std::string, std::size_t> by_text;  // merges a known kind and an unknown category of the same text
  for (int k = 0; k < kEventKindCount; ++k)
    if (per_kind[static_cast<std::size_t>(k)] > 0)
      by_text[std::string(kineto_category(static_cast<EventKind>(k)))] += per_kind[static_cast<std::size_t>(k)];
  for (const auto& [id, count] : per_other) by_text[std::string(trace.strings().view(id))] += count;
  std::vector<CategoryCount> out;
  out.reserve(by_text.size());
  for (auto& [text, count] : by_text) out.push_back({text, count});
  return out;
}

}  // namespace

TraceSummary summarize(const Trace& trace) { return summarize(trace, analyze_busy(trace)); }

TraceSummary summarize(const Trace& trace, const BusyAnalysis& busy) {
  TraceSummary s;
  const TraceMetadata& meta = trace.metadata();
  s.source_tool = meta.source_tool;
  s.scenario = meta.scenario;
  s.distributed = meta.distributed;
  s.ranks = meta.ranks;
  s.clock = meta.clock;
  s.notes = meta.notes;
  s.origin_unix_ns = meta.origin_unix_ns;
  s.start_ns = trace.start_ns();
  s.end_ns = trace.end_ns();
  s.activity_start_ns = trace.activity_start_ns();
  s.activity_end_ns = trace.activity_end_ns();
  s.event_count = trace.event_count();
  s.flow_count = trace.flows().size();
  s.range_count = trace.ranges().size();
  s.measurement_count = trace.measurements().size();
  s.dropped_records = meta.dropped_records;

  std::map<std::int64_t, ProcessSummary> processes;
  std::map<std::int64_t, GpuSummary> gpus;
  const ProcessNames names = process_names(trace);
  for (const Lane& lane : trace.lanes()) {
    if (lane.is_gpu())
      gpu_of(gpus, lane.device()).streams.push_back({lane.stream(), lane.name, lane.events.size()});
    else
      add_host_lane(names, lane, processes);
  }
  for (const DeviceInfo& d : trace.devices()) gpu_of(gpus, d.index).name = d.name;
  for (const GpuBusy& b : busy.gpus) {
    GpuSummary& g = gpu_of(gpus, b.device);
    g.kernel_count = b.kernel_count;
    g.kernel_ns = b.kernel_ns;
    g.busy_ns = b.busy_ns;
  }
  for (auto& [pid, p] : processes) {
    std::sort(p.threads.begin(), p.threads.end(),
              [](const ThreadSummary& a, const ThreadSummary& b) { return a.tid < b.tid; });
    s.processes.push_back(std::move(p));
  }
  for (auto& [index, g] : gpus) {
    std::sort(g.streams.begin(), g.streams.end(),
              [](const StreamSummary& a, const StreamSummary& b) { return a.stream < b.stream; });
    g.label = gpu_label(trace, index);
    s.gpus.push_back(std::move(g));
  }
  s.categories = count_categories(trace);
  return s;
}

}  // namespace gtv::analysis
