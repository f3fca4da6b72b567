#include "report_tables.h"

#include <functional>
#include <stdexcept>
#include <utility>

#include "gtv/model/collectives.h"

namespace gtv::python {
namespace {

using analysis::Report;

std::int64_t as_int64(std::size_t n) { return static_cast<std::int64_t>(n); }

Table kernel_table(const std::vector<analysis::KernelStat>& stats, bool per_device) {
  Table t;
  const std::size_t device = per_device ? t.add_column("device", ColumnType::Int64) : 0;
  const std::size_t name = t.add_column("name", ColumnType::Utf8);
  const std::size_t full_name = t.add_column("full_name", ColumnType::Utf8);
  const std::size_t count = t.add_column("count", ColumnType::Int64);
  const std::size_t total = t.add_column("total_ns", ColumnType::Int64);
  const std::size_t mean = t.add_column("mean_ns", ColumnType::Int64);
  const std::size_t min = t.add_column("min_ns", ColumnType::Int64);
  const std::size_t max = t.add_column("max_ns", ColumnType::Int64);
  const std::size_t share = t.add_column("share", ColumnType::Float64);
  for (const analysis::KernelStat& k : stats) {
    if (per_device) t.push_int(device, k.device);
    t.push_string(name, k.name);
    t.push_string(full_name, k.full_name);
    t.push_int(count, as_int64(k.count));
    t.push_int(total, k.total_ns);
    t.push_int(mean, k.mean_ns);
    t.push_int(min, k.min_ns);
    t.push_int(max, k.max_ns);
    t.push_double(share, k.share);
  }
  return t;
}

Table kernels(const Trace&, const Report& r) { return kernel_table(r.kernels.kernels, false); }
Table kernels_per_gpu(const Trace&, const Report& r) { return kernel_table(r.kernels.per_device, true); }

Table idle_causes(const Trace&, const Report& r) {
  Table t;
  const std::size_t device = t.add_column("device", ColumnType::Int64);
  const std::size_t cause = t.add_column("cause", ColumnType::Utf8);
  const std::size_t words = t.add_column("cause_words", ColumnType::Utf8);
  const std::size_t detail = t.add_column("detail", ColumnType::Utf8);
  const std::size_t total = t.add_column("total_ns", ColumnType::Int64);
  const std::size_t intervals = t.add_column("intervals", ColumnType::Int64);
  const std::size_t saving = t.add_column("saving_ns", ColumnType::Int64);
  for (const analysis::IdleCauseTotal& c : r.idle.totals) {
    t.push_int(device, c.device);
    t.push_string(cause, analysis::idle_cause_key(c.cause));
    t.push_string(words, analysis::to_string(c.cause));
    t.push_string(detail, c.detail);
    t.push_int(total, c.total_ns);
    t.push_int(intervals, as_int64(c.intervals));
    t.push_int_or_null(saving, c.saving_ns, -1);  // no removal (placement)
  }
  return t;
}

Table idle_intervals(const Trace&, const Report& r) {
  Table t;
  const std::size_t device = t.add_column("device", ColumnType::Int64);
  const std::size_t start = t.add_column("start_ns", ColumnType::Int64);
  const std::size_t end = t.add_column("end_ns", ColumnType::Int64);
  const std::size_t cause = t.add_column("cause", ColumnType::Utf8);
  const std::size_t detail = t.add_column("detail", ColumnType::Utf8);
  for (const analysis::IdleInterval& v : r.idle.intervals) {
    t.push_int(device, v.device);
    t.push_int(start, v.start_ns);
    t.push_int(end, v.end_ns);
    t.push_string(cause, analysis::idle_cause_key(v.cause));
    t.push_string(detail, v.detail);
  }
  return t;
}

Table critical_path(const Trace& trace, const Report& r) {
  const analysis::CriticalPathAnalysis& c = r.critical;
  Table t;
  const std::size_t start = t.add_column("start_ns", ColumnType::Int64);
  const std::size_t end = t.add_column("end_ns", ColumnType::Int64);
  const std::size_t kind = t.add_column("kind", ColumnType::Utf8);
  const std::size_t lane = t.add_column("lane", ColumnType::Int64);
  const std::size_t event = t.add_column("event", ColumnType::Int64);
  const std::size_t name = t.add_column("name", ColumnType::Utf8);
  const std::size_t device = t.add_column("device", ColumnType::Int64);
  const std::size_t cause = t.add_column("cause", ColumnType::Utf8);
  for (const analysis::PathSegment& s : c.segments) {
    t.push_int(start, s.start_ns);
    t.push_int(end, s.end_ns);
    t.push_string(kind, causal::segment_key(s.kind));
    if (s.has_event) {
      t.push_int(lane, s.event.lane);
      t.push_int(event, s.event.index);
      t.push_string(name, trace.name(trace.event(s.event)));
    } else {
      t.push_null(lane);
      t.push_null(event);
      t.push_null(name);
    }
    t.push_int_or_null(device, s.device, -1);
    if (s.cause >= 0) {
      t.push_string(cause, c.causes[static_cast<std::size_t>(s.cause)].key);
    } else {
      t.push_null(cause);
    }
  }
  return t;
}

Table critical_path_causes(const Trace&, const Report& r) {
  Table t;
  const std::size_t key = t.add_column("key", ColumnType::Utf8);
  const std::size_t cause = t.add_column("cause", ColumnType::Utf8);
  const std::size_t detail = t.add_column("detail", ColumnType::Utf8);
  const std::size_t on_path = t.add_column("on_path_ns", ColumnType::Int64);
  const std::size_t waited = t.add_column("waited_ns", ColumnType::Int64);
  const std::size_t saving = t.add_column("saving_ns", ColumnType::Int64);
  const std::size_t replayed = t.add_column("replayed_ns", ColumnType::Int64);
  for (const analysis::CauseSaving& s : r.critical.causes) {
    t.push_string(key, s.key);
    t.push_string(cause, s.cause);
    t.push_string(detail, s.detail);
    t.push_int(on_path, s.on_path_ns);
    t.push_int(waited, s.waited_ns);
    t.push_int(saving, s.saving_ns);
    t.push_int_or_null(replayed, s.replayed_ns, -1);  // the saving was not capped by the GPUs' work
  }
  return t;
}

Table measurements(const Trace&, const Report& r) {
  Table t;
  const std::size_t name = t.add_column("name", ColumnType::Utf8);
  const std::size_t method = t.add_column("method", ColumnType::Utf8);
  const std::size_t reported = t.add_column("reported_ns", ColumnType::Int64);
  const std::size_t host_start = t.add_column("host_start_ns", ColumnType::Int64);
  const std::size_t host_end = t.add_column("host_end_ns", ColumnType::Int64);
  const std::size_t by_flows = t.add_column("by_flows", ColumnType::Bool);
  const std::size_t gpu_count = t.add_column("gpu_activity_count", ColumnType::Int64);
  const std::size_t gpu_first = t.add_column("gpu_first_start_ns", ColumnType::Int64);
  const std::size_t gpu_last = t.add_column("gpu_last_end_ns", ColumnType::Int64);
  const std::size_t gpu_busy = t.add_column("gpu_busy_ns", ColumnType::Int64);
  const std::size_t truth = t.add_column("truth_ns", ColumnType::Int64);
  const std::size_t error = t.add_column("error_ns", ColumnType::Int64);
  const std::size_t relative = t.add_column("relative_error", ColumnType::Float64);
  const std::size_t verdict = t.add_column("verdict", ColumnType::Utf8);
  for (const analysis::MeasurementTruth& m : r.timing.measurements) {
    t.push_string(name, m.name);
    t.push_string(method, to_string(m.method));
    t.push_int(reported, m.reported_ns);
    t.push_int(host_start, m.host_start_ns);
    t.push_int(host_end, m.host_end_ns);
    t.push_bool(by_flows, m.by_flows);
    t.push_int(gpu_count, as_int64(m.gpu_activity_count));
    if (m.gpu_activity_count > 0) {
      t.push_int(gpu_first, m.gpu_first_start_ns);
      t.push_int(gpu_last, m.gpu_last_end_ns);
    } else {  // no GPU work: the report's 0 is no time
      t.push_null(gpu_first);
      t.push_null(gpu_last);
    }
    t.push_int(gpu_busy, m.gpu_busy_ns);
    t.push_int(truth, m.truth_ns);
    t.push_int(error, m.error_ns);
    t.push_double(relative, m.relative_error);
    t.push_string(verdict, m.verdict);
  }
  return t;
}

// Every collective of every rank (a single rank's file: its own rank when it records one, else null).
Table collectives(const Trace& trace, const Report&) {
  Table t;
  const std::size_t rank = t.add_column("rank", ColumnType::Int64);
  const std::size_t kind = t.add_column("kind", ColumnType::Utf8);
  const std::size_t name = t.add_column("name", ColumnType::Utf8);
  const std::size_t start = t.add_column("start_ns", ColumnType::Int64);
  const std::size_t end = t.add_column("end_ns", ColumnType::Int64);
  const std::size_t on_gpu = t.add_column("on_gpu", ColumnType::Bool);
  const std::size_t seq = t.add_column("seq", ColumnType::Int64);
  const std::size_t group = t.add_column("group", ColumnType::Utf8);
  const std::size_t elements = t.add_column("elements", ColumnType::Int64);
  const std::size_t root = t.add_column("root", ColumnType::Int64);
  const auto add = [&](std::int64_t rank_id, const std::vector<Collective>& list) {
    for (const Collective& c : list) {
      t.push_int_or_null(rank, rank_id, -1);
      t.push_string(kind, c.kind);
      t.push_string(name, trace.name(trace.event(c.ref)));
      t.push_int(start, c.start_ns);
      t.push_int(end, c.end_ns);
      t.push_bool(on_gpu, c.on_gpu);
      t.push_int_or_null(seq, c.seq, -1);
      if (c.group.empty()) {
        t.push_null(group);
      } else {
        t.push_string(group, c.group);
      }
      t.push_int_or_null(elements, c.elements, -1);
      t.push_int_or_null(root, c.root, -1);
    }
  };
  const std::vector<RankInfo>& ranks = trace.metadata().ranks;
  if (ranks.empty()) {
    add(trace.metadata().distributed.rank, find_collectives(trace));
  } else {
    const std::vector<std::vector<Collective>> per_rank = collectives_by_rank(trace);
    for (std::size_t i = 0; i < per_rank.size() && i < ranks.size(); ++i) add(ranks[i].rank, per_rank[i]);
  }
  return t;
}

// A merged run: how long each rank made the others wait at collectives, and waited itself.
Table rank_waits(const Trace&, const Report& r) { return rank_waits_table(r.stragglers); }

using Builder = Table (*)(const Trace&, const Report&);
const std::vector<std::pair<std::string, Builder>>& builders() {
  static const std::vector<std::pair<std::string, Builder>> table = {
      {"kernels", &kernels},
      {"kernels_per_gpu", &kernels_per_gpu},
      {"idle_causes", &idle_causes},
      {"idle_intervals", &idle_intervals},
      {"critical_path", &critical_path},
      {"critical_path_causes", &critical_path_causes},
      {"measurements", &measurements},
      {"collectives", &collectives},
      {"rank_waits", &rank_waits},
  };
  return table;
}

}  // namespace

Table rank_waits_table(const analysis::Stragglers& stragglers) {
  Table t;
  const std::size_t rank = t.add_column("rank", ColumnType::Int64);
  const std::size_t arrived_last = t.add_column("arrived_last", ColumnType::Int64);
  const std::size_t caused = t.add_column("caused_ns", ColumnType::Int64);
  const std::size_t waited = t.add_column("waited_ns", ColumnType::Int64);
  const std::size_t offset = t.add_column("clock_offset_ns", ColumnType::Int64);
  const std::size_t uncertainty = t.add_column("clock_uncertainty_ns", ColumnType::Int64);
  for (const analysis::RankWaits& w : stragglers.per_rank) {
    t.push_int(rank, w.rank);
    t.push_int(arrived_last, as_int64(w.arrived_last));
    t.push_int(caused, w.caused_ns);
    t.push_int(waited, w.waited_ns);
    t.push_int(offset, w.clock_offset_ns);
    t.push_int_or_null(uncertainty, w.clock_uncertainty_ns, -1);
  }
  return t;
}

const std::vector<std::string>& report_table_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [name, builder] : builders()) n.push_back(name);
    return n;
  }();
  return names;
}

Table report_table(const Trace& trace, const analysis::Report& report, std::string_view name) {
  for (const auto& [known, builder] : builders())
    if (known == name) return builder(trace, report);
  std::string list;
  for (const std::string& n : report_table_names()) list += (list.empty() ? "" : ", ") + n;
  throw std::invalid_argument("no table '" + std::string(name) + "' (known: " + list + ")");
}

}  // namespace gtv::python
