#include "trace_merge.h"

#include <algorithm>
#include <map>
#include <utility>

#include "gtv/model/trace_builder.h"

namespace gtv::exp {
namespace {

constexpr int kCorrelationShift = 40;  // a process would need 2^40 CUPTI records to collide with the next

void copy_event(TraceBuilder& out, LaneIndex lane, const Trace& in, const Event& src, TimeNs shift_ns,
                std::uint64_t correlation_base) {
  Event e = src;
  e.start_ns += shift_ns;
  if (e.correlation_id != kNoCorrelation) e.correlation_id += correlation_base;
  e.name = out.intern(in.name(src));
  e.detail = kNoDetail;
  if (const KernelDetail* k = in.kernel_detail(src)) return out.add_kernel(lane, e, *k);
  if (const MemcpyDetail* m = in.memcpy_detail(src)) return out.add_memcpy(lane, e, *m);
  if (const MemsetDetail* s = in.memset_detail(src)) return out.add_memset(lane, e, *s);
  if (src.kind == EventKind::Other) return out.add_other(lane, e, in.category(src));
  out.add_event(lane, e);
}

// Counter series of the parts by (pid, name), in the order first seen. Two processes may count memory on the same
// GPU (pid = device), each from its own start: the merged series is their sum, so that it says what the GPU held.
class MergedCounters {
 public:
  std::vector<std::vector<CounterSample>>& parts_of(std::int64_t pid, const std::string& name) {
    auto [it, fresh] = index_.try_emplace({pid, name}, series_.size());
    if (fresh) series_.push_back({pid, name, {}});
    return series_[it->second].parts;
  }

  void add_to(TraceBuilder& out) const {
    for (const Series& s : series_) {
      if (s.parts.size() == 1) {
        for (const CounterSample& sample : s.parts.front()) out.add_counter_sample(s.pid, s.name, sample);
        continue;
      }
      // Each part's value holds from its sample to its next one (0 before its first): the sum changes at every
      // sample of any part.
      std::vector<std::pair<CounterSample, std::size_t>> all;
      for (std::size_t p = 0; p < s.parts.size(); ++p)
        for (const CounterSample& sample : s.parts[p]) all.push_back({sample, p});
      std::stable_sort(all.begin(), all.end(),
                       [](const auto& a, const auto& b) { return a.first.time_ns < b.first.time_ns; });
      std::vector<double> current(s.parts.size(), 0.0);
      double sum = 0;
      for (const auto& [sample, part] : all) {
        sum += sample.value - current[part];
        current[part] = sample.value;
        out.add_counter_sample(s.pid, s.name, CounterSample{sample.time_ns, sum});
      }
    }
  }

 private:
  struct Series {
    std::int64_t pid = 0;
    std::string name;
    std::vector<std::vector<CounterSample>> parts;
  };
  std::map<std::pair<std::int64_t, std::string>, std::size_t> index_;
  std::vector<Series> series_;
};

void copy_part(TraceBuilder& out, const MergePart& part, std::size_t part_index, TimeNs origin_unix_ns,
               MergedCounters& counters) {
  const Trace& in = *part.trace;
  const TimeNs shift_ns = in.metadata().origin_unix_ns - origin_unix_ns;
  const std::uint64_t correlation_base = static_cast<std::uint64_t>(part_index) << kCorrelationShift;
  for (const Lane& lane : in.lanes()) {
    const LaneIndex index = out.lane(lane.key);
    out.set_lane_name(index, lane.name);
    out.set_lane_sort_index(index, lane.sort_index);
    for (const Event& e : lane.events) copy_event(out, index, in, e, shift_ns, correlation_base);
  }
  for (Range r : in.ranges()) {
    r.start_ns += shift_ns;
    r.end_ns += shift_ns;
    out.add_range(std::move(r));
  }
  for (Measurement m : in.measurements()) {
    m.host_start_ns += shift_ns;
    m.host_end_ns += shift_ns;
    m.name = part.label + ": " + m.name;
    out.add_measurement(std::move(m));
  }
  for (const DeviceInfo& d : in.devices()) out.add_device(d);
  for (const ProcessInfo& p : in.processes()) {
    ProcessInfo& merged = out.process(p.pid);
    merged.name = p.name;
    merged.labels = p.labels;
    merged.labels.push_back(part.label);
  }
  for (const CounterSeries& series : in.counters()) {
    std::vector<CounterSample>& samples = counters.parts_of(series.pid, series.name).emplace_back();
    for (CounterSample sample : series.samples) {
      sample.time_ns += shift_ns;
      samples.push_back(sample);
    }
  }
  TraceMetadata& meta = out.metadata();
  if (meta.machine.empty()) meta.machine = in.metadata().machine;
  meta.dropped_records += in.metadata().dropped_records;
  for (const std::string& note : in.metadata().notes) meta.notes.push_back(part.label + ": " + note);
}

}  // namespace

Expected<Trace> merge_traces(const std::vector<MergePart>& parts, TraceMetadata metadata,
                             const std::vector<Range>& extra_ranges, TimeNs origin_unix_ns) {
  TraceBuilder out;
  metadata.origin_unix_ns = origin_unix_ns;
  metadata.dropped_records = 0;
  out.metadata() = std::move(metadata);
  for (const Range& r : extra_ranges) out.add_range(r);
  MergedCounters counters;
  for (std::size_t i = 0; i < parts.size(); ++i) copy_part(out, parts[i], i, origin_unix_ns, counters);
  counters.add_to(out);
  return out.build();
}

}  // namespace gtv::exp
