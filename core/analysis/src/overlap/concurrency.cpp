#include "gtv/analysis/concurrency.h"

#include <algorithm>
#include <utility>

#include "gtv/analysis/format.h"
#include "gtv/analysis/summary.h"
#include "gtv/model/ranks.h"

namespace gtv::analysis {
namespace {

struct Edge {
  TimeNs time_ns;
  int delta;  // +1 a GPU becomes busy, -1 it becomes idle
};

std::vector<ConcurrencyStep> sweep(const BusyAnalysis& busy) {
  std::vector<Edge> edges;
  std::size_t n = 0;
  for (const GpuBusy& g : busy.gpus) n += g.busy.size();
  edges.reserve(2 * n);
  for (const GpuBusy& g : busy.gpus) {
    for (const Interval& iv : g.busy) {
      edges.push_back({iv.start_ns, +1});
      edges.push_back({iv.end_ns, -1});
    }
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.time_ns < b.time_ns; });
  std::vector<ConcurrencyStep> steps;
  int level = 0;
  for (std::size_t i = 0; i < edges.size();) {
    const TimeNs t = edges[i].time_ns;
    for (; i < edges.size() && edges[i].time_ns == t; ++i) level += edges[i].delta;
    if (!steps.empty()) steps.back().end_ns = t;
    if (i == edges.size()) break;  // level is 0 after the last edge
    if (!steps.empty() && steps.back().busy_gpus == level) continue;
    steps.push_back({t, t, level});
  }
  return steps;
}

// Communication kernels run while they wait for peers: beside a GPU's figures, those of its computation alone.
std::string computation_clause(const GpuStreamOverlap* g) {
  if (g->communication_busy_ns == 0) return {};
  std::string out = "; communication kernels alone (which run while they wait for peers) " +
                    format_duration(g->communication_busy_ns) + " of it, computation " +
                    format_duration(g->computation_busy_ns);
  if (g->stream_count > 1)
    out += " with stream parallelism " + fixed(g->computation_stream_parallelism, 2) + " on its own";
  return out;
}

std::string streams_only_clause(const GpuStreamOverlap* g) {
  if (g->stream_count <= 1)
    return "; all of it ran on one stream (stream " + std::to_string(g->busiest_stream) + "), one piece at a time";
  const std::string streams = std::to_string(g->stream_count) + " streams";
  if (g->multi_stream_ns == 0) return "; its " + streams + " never ran at the same time (stream parallelism 1.00)";
  return "; 2 or more of its " + streams + " ran at once for " + format_duration(g->multi_stream_ns) + " of it (" +
         percent(g->multi_stream_share) + "): stream parallelism " + fixed(g->stream_parallelism, 2) + " (" +
         format_duration(g->stream_busy_sum_ns) + " of per-stream busy time in " + format_duration(g->busy_ns) +
         " of GPU busy time)";
}

// What the streams of a trace's only GPU did, as a clause after its busy time; empty without stream data.
std::string streams_clause(const Concurrency& c) {
  const GpuStreamOverlap* g = c.streams.gpu(c.busiest_device);
  if (g == nullptr) return {};
  return streams_only_clause(g) + computation_clause(g);
}

// Across GPUs that ran communication kernels: the effective parallelism of their computation alone.
std::string computation_across(const Concurrency& c) {
  if (!c.streams.has_communication() || c.streams.computation_gpu_count < 2) return {};
  return "; computation alone (communication kernels, which run while they wait for peers, left out): effective "
         "parallelism " +
         fixed(c.streams.computation_effective_parallelism(), 2) + " over " +
         format_duration(c.streams.computation_any_busy_ns) + " busy";
}

std::string gpus_verdict(const Concurrency& c, std::size_t activity_count, const TraceMetadata& meta) {
  const DistributedInfo& rank = meta.distributed;
  if (c.gpu_count == 0 && activity_count > 0)
    return "The GPU activity in this trace (" + std::to_string(activity_count) +
           " item(s)) has zero duration: no GPU was busy for a measurable time.";
  if (c.gpu_count == 0) return "No GPU activity in this trace: no kernel, copy or memset ran on a GPU.";
  const std::string busiest = gtv::gpu_label(meta, c.busiest_device);
  const std::string busy_share = percent(safe_ratio(double(c.any_busy_ns), double(c.wall_ns)));
  if (c.gpu_count == 1 && rank.rank >= 0 && rank.world_size == 1)
    return "This trace is " + rank_text(rank) + ", the only rank of its run: its one GPU (" + busiest + ") was busy " +
           format_duration(c.any_busy_ns) + " of " + format_duration(c.wall_ns) + " (" + busy_share + ")" +
           streams_clause(c) + "; there was no other GPU to run beside it.";
  if (c.gpu_count == 1 && rank.rank >= 0)
    return "This trace is " + rank_text(rank) + ": its one GPU (" + busiest + ") was busy " +
           format_duration(c.any_busy_ns) + " of " + format_duration(c.wall_ns) + " (" + busy_share + ")" +
           streams_clause(c) +
           "; the other ranks' GPUs are in their own files: open them together (gtv-cli merge) to measure concurrency "
           "across ranks.";
  if (c.gpu_count == 1)
    return "Only one GPU (" + busiest + ") did work: busy " + format_duration(c.any_busy_ns) + " of " +
           format_duration(c.wall_ns) + " (" + busy_share + ")" + streams_clause(c) + ".";
  const std::string parallel =
      "effective parallelism " + fixed(c.effective_parallelism, 2) + " of " + std::to_string(c.gpu_count) + " possible";
  if (c.overlap_ns == 0)
    return "The " + std::to_string(c.gpu_count) + " GPUs never ran at the same time: the work was serial (" + parallel +
           "); GPUs were busy for " + format_duration(c.any_busy_ns) + computation_across(c) + ".";
  const std::string who =
      c.gpu_count == 2 ? "2 GPUs overlapped" : "2 or more of " + std::to_string(c.gpu_count) + " GPUs overlapped";
  return who + " for " + format_duration(c.overlap_ns) + " of " + format_duration(c.any_busy_ns) + " (" +
         percent(c.overlap_share) + "); " + parallel + computation_across(c) + "; ideal (busiest GPU, " + busiest +
         ", alone) " + format_duration(c.ideal_ns) + ".";
}

// Ranks whose files gave their GPUs the same id were merged as a GPU each; they may have shared one.
bool ranks_share_gpu_ids(const TraceMetadata& meta) {
  for (const RankInfo& r : meta.ranks)
    if (r.devices != r.local_devices) return true;
  return false;
}

// With several GPUs, the overlap inside them: which GPUs' streams ran at the same time, the one whose streams did
// most named with its stream parallelism. Empty when no GPU's streams overlapped.
std::string streams_inside_gpus(const Concurrency& c, const TraceMetadata& meta) {
  const GpuStreamOverlap* most = nullptr;
  std::size_t overlapped = 0;
  for (const GpuStreamOverlap& g : c.streams.gpus) {
    if (g.multi_stream_ns == 0) continue;
    ++overlapped;
    if (most == nullptr || g.stream_parallelism > most->stream_parallelism) most = &g;
  }
  if (most == nullptr) return {};
  const std::string gpu = gtv::gpu_label(meta, most->device);
  std::string parallelism = "stream parallelism " + fixed(most->stream_parallelism, 2);
  if (most->communication_busy_ns > 0)
    parallelism += ", " + fixed(most->computation_stream_parallelism, 2) +
                   " for computation alone: communication kernels run while they wait for peers";
  if (overlapped == 1)
    return " Inside " + gpu + ", 2 or more streams ran at once for " + format_duration(most->multi_stream_ns) +
           " of its " + format_duration(most->busy_ns) + " busy (" + parallelism + ").";
  return " Inside " + std::to_string(overlapped) + " of the GPUs, 2 or more streams ran at once; most on " + gpu +
         " (" + parallelism + ").";
}

std::string verdict_for(const Concurrency& c, std::size_t activity_count, const TraceMetadata& meta) {
  std::string out = gpus_verdict(c, activity_count, meta);
  if (c.gpu_count >= 2) out += streams_inside_gpus(c, meta);
  if (c.gpu_count >= 2 && ranks_share_gpu_ids(meta))
    out +=
        " The ranks' files give their GPUs the same ids, so these may be one GPU that the ranks shared (the "
        "files do not say).";
  return out;
}

}  // namespace

Concurrency analyze_concurrency(const BusyAnalysis& busy, const TraceMetadata& metadata, StreamOverlap streams) {
  Concurrency c;
  c.wall_ns = busy.window_ns();
  c.streams = std::move(streams);
  // GPUs may each be busy for nearly the whole time range: their sum is kept in a double for the ratio, and
  // saturates as a count of ns.
  double sum_busy = 0.0;
  for (const GpuBusy& g : busy.gpus) {
    const TimeNs gpu_busy_ns = total_length_ns(g.busy);
    if (gpu_busy_ns == 0) continue;
    ++c.gpu_count;
    c.sum_busy_ns = saturating_add(c.sum_busy_ns, gpu_busy_ns);
    sum_busy += static_cast<double>(gpu_busy_ns);
    if (gpu_busy_ns > c.ideal_ns) {
      c.ideal_ns = gpu_busy_ns;
      c.busiest_device = g.device;
    }
  }
  c.steps = sweep(busy);
  for (const ConcurrencyStep& s : c.steps) {
    if (s.busy_gpus >= 1) c.any_busy_ns = saturating_add(c.any_busy_ns, s.end_ns - s.start_ns);
    if (s.busy_gpus >= 2) c.overlap_ns = saturating_add(c.overlap_ns, s.end_ns - s.start_ns);
  }
  c.effective_parallelism = safe_ratio(sum_busy, double(c.any_busy_ns));
  c.overlap_share = safe_ratio(double(c.overlap_ns), double(c.any_busy_ns));
  std::size_t activity_count = 0;
  for (const GpuBusy& g : busy.gpus) activity_count += g.activity_count;
  c.verdict = verdict_for(c, activity_count, metadata);
  return c;
}

Concurrency analyze_concurrency_within(const BusyAnalysis& busy, TimeNs start_ns, TimeNs end_ns,
                                       const TraceMetadata& metadata, StreamOverlap streams) {
  BusyAnalysis clipped;
  clipped.window_start_ns = start_ns;
  clipped.window_end_ns = std::max(start_ns, end_ns);
  for (const GpuBusy& g : busy.gpus) {
    GpuBusy& c = clipped.gpus.emplace_back();
    c.device = g.device;
    for (const Interval& iv : g.busy) {
      const Interval in{std::max(iv.start_ns, start_ns), std::min(iv.end_ns, end_ns)};
      if (in.length_ns() > 0) c.busy.push_back(in);
    }
    c.activity_count = c.busy.size();
  }
  return analyze_concurrency(clipped, metadata, std::move(streams));
}

Concurrency analyze_concurrency(const Trace& trace) {
  return analyze_concurrency(analyze_busy(trace), trace.metadata(), analyze_stream_overlap(trace));
}

}  // namespace gtv::analysis
