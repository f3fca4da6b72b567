#include "gtv/model/merge.h"

#include <algorithm>
#include <set>
#include <utility>

#include "gtv/model/trace_builder.h"

namespace gtv {
namespace {

// The largest correlation id a part uses, on its events and its links: the next part's ids start above it, so the
// merged ids stay as dense as the parts' (the flow join then indexes a flat table instead of hashing).
std::uint64_t largest_correlation(const Trace& t) {
  std::uint64_t most = 0;
  for (const Lane& lane : t.lanes())
    for (const Event& e : lane.events) most = std::max(most, e.correlation_id);
  for (const auto* links : {&t.flows(), &t.backward_links(), &t.dependencies()})
    for (const Flow& f : *links) most = std::max(most, f.correlation_id);
  return most;
}

std::int64_t mapped(const std::map<std::int64_t, std::int64_t>& map, std::int64_t id) {
  const auto it = map.find(id);
  return it == map.end() ? id : it->second;
}

// A lane's key in the merged trace: GPU lanes (pid = device) through the device map, host lanes the pid map.
LaneKey merged_key(const MergePart& part, const Lane& lane) {
  LaneKey key = lane.key;
  key.pid = lane.is_gpu() ? mapped(part.device_map, key.pid) : mapped(part.pid_map, key.pid);
  return key;
}

// Counter series of the parts by (pid, name), in the order first seen. Two processes may count memory on the same
// GPU (pid = device), each from its own start: the merged series is their sum, so that it says what the GPU held.
class MergedCounters {
 public:
  std::vector<CounterSample>& new_part(std::int64_t pid, const std::string& name) {
    auto [it, fresh] = index_.try_emplace({pid, name}, series_.size());
    if (fresh) series_.push_back({pid, name, {}});
    return series_[it->second].parts.emplace_back();
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
        for (const CounterSample& sample : s.parts[p]) all.emplace_back(sample, p);
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

class PartCopier {
 public:
  PartCopier(TraceBuilder& out, const MergePart& part, std::uint64_t correlation_base)
      : out_(out),
        part_(part),
        in_(*part.trace),
        correlation_base_(correlation_base),
        names_(in_.strings().size(), kUnset) {
    for (const Lane& lane : in_.lanes())
      if (lane.is_gpu()) gpu_pids_.insert(lane.device());
    for (const DeviceInfo& d : in_.devices()) gpu_pids_.insert(d.index);
  }

  void copy(MergedCounters& counters) {
    lanes_.reserve(in_.lanes().size());
    for (const Lane& lane : in_.lanes()) copy_lane(lane);
    copy_links();
    copy_records();
    for (const CounterSeries& series : in_.counters()) {
      std::vector<CounterSample>& samples = counters.new_part(process_id(series.pid), series.name);
      samples.reserve(series.samples.size());
      for (CounterSample sample : series.samples) {
        sample.time_ns = saturating_add(sample.time_ns, part_.shift_ns);
        samples.push_back(sample);
      }
    }
    TraceMetadata& meta = out_.metadata();
    if (meta.machine.empty()) meta.machine = in_.metadata().machine;
    meta.dropped_records += in_.metadata().dropped_records;
    for (const std::string& note : in_.metadata().notes)
      meta.notes.push_back(part_.label.empty() ? note : part_.label + ": " + note);
    for (RecorderCost cost : in_.metadata().recorder_costs) {
      cost.pid = mapped(part_.pid_map, cost.pid);
      meta.recorder_costs.push_back(cost);
    }
  }

 private:
  static constexpr StringId kUnset = 0xffffffffu;

  // A process id of the part in the merged trace: GPUs (Kineto names a GPU's process by its device id) go through
  // the device map, host processes through the pid map.
  [[nodiscard]] std::int64_t process_id(std::int64_t pid) const {
    return gpu_pids_.contains(pid) ? mapped(part_.device_map, pid) : mapped(part_.pid_map, pid);
  }

  StringId name(StringId id) {
    StringId& n = names_[id];
    if (n == kUnset) n = out_.intern(in_.strings().view(id));
    return n;
  }

  void copy_lane(const Lane& lane) {
    const LaneIndex index = out_.lane(merged_key(part_, lane));
    lanes_.push_back(index);
    std::string lane_name = lane.name;
    if (!part_.name_prefix.empty())
      lane_name = part_.name_prefix + (lane.is_gpu() ? "GPU " + std::to_string(lane.device()) + " · " : "") + lane.name;
    out_.set_lane_name(index, std::move(lane_name));
    out_.set_lane_sort_index(index, lane.sort_index);
    for (const Event& src : lane.events) copy_event(index, src);
  }

  void copy_event(LaneIndex lane, const Event& src) {
    Event e = src;
    e.start_ns = saturating_add(e.start_ns, part_.shift_ns);
    if (e.correlation_id != kNoCorrelation) e.correlation_id += correlation_base_;
    e.name = name(src.name);
    e.detail = kNoDetail;
    e.args = src.args == kNoArgs ? kNoArgs : out_.copy_args(in_, src.args, args_);
    if (const KernelDetail* k = in_.kernel_detail(src)) return out_.add_kernel(lane, e, *k);
    if (const MemcpyDetail* m = in_.memcpy_detail(src)) {
      MemcpyDetail copy = *m;
      if (copy.dst_device >= 0) copy.dst_device = static_cast<std::int32_t>(mapped(part_.device_map, copy.dst_device));
      return out_.add_memcpy(lane, e, copy);
    }
    if (const MemsetDetail* s = in_.memset_detail(src)) return out_.add_memset(lane, e, *s);
    if (src.kind == EventKind::Other) return out_.add_other(lane, e, in_.category(src));
    out_.add_event(lane, e);
  }

  // Launch flows whose two ends share the flow's correlation id are joined again from the moved ids; the others
  // (a file's "ac2g" pairs between events without ids), backward links and dependencies go in as hints at the
  // moved times.
  void copy_links() {
    for (const Flow& f : in_.flows()) {
      const Event& from = in_.event(f.from);
      const Event& to = in_.event(f.to);
      if (f.correlation_id != kNoCorrelation && from.correlation_id == f.correlation_id &&
          to.correlation_id == f.correlation_id)
        continue;
      out_.add_flow_hint(moved_id(f.correlation_id), lanes_[f.from.lane], saturating_add(from.start_ns, part_.shift_ns),
                         lanes_[f.to.lane], saturating_add(to.start_ns, part_.shift_ns));
    }
    for (const Flow& f : in_.backward_links())
      out_.add_backward_hint(moved_id(f.correlation_id), lanes_[f.from.lane],
                             saturating_add(in_.event(f.from).start_ns, part_.shift_ns), lanes_[f.to.lane],
                             saturating_add(in_.event(f.to).start_ns, part_.shift_ns));
    for (const Flow& f : in_.dependencies())
      out_.add_dependency_hint(moved_id(f.correlation_id), lanes_[f.from.lane],
                               saturating_add(in_.event(f.from).start_ns, part_.shift_ns), lanes_[f.to.lane],
                               saturating_add(in_.event(f.to).start_ns, part_.shift_ns));
  }

  [[nodiscard]] std::uint64_t moved_id(std::uint64_t id) const {
    return id == kNoCorrelation ? id : id + correlation_base_;
  }

  void copy_records() {
    for (Range r : in_.ranges()) {
      r.start_ns = saturating_add(r.start_ns, part_.shift_ns);
      r.end_ns = saturating_add(r.end_ns, part_.shift_ns);
      r.pid = mapped(part_.pid_map, r.pid);
      if (r.device >= 0) r.device = static_cast<std::int32_t>(mapped(part_.device_map, r.device));
      out_.add_range(std::move(r));
    }
    for (Measurement m : in_.measurements()) {
      m.host_start_ns = saturating_add(m.host_start_ns, part_.shift_ns);
      m.host_end_ns = saturating_add(m.host_end_ns, part_.shift_ns);
      m.pid = mapped(part_.pid_map, m.pid);
      m.name = part_.label + ": " + m.name;
      out_.add_measurement(std::move(m));
    }
    for (DeviceInfo d : in_.devices()) {
      if (!part_.device_map.empty() && !part_.device_map.contains(d.index)) continue;
      d.index = static_cast<std::int32_t>(mapped(part_.device_map, d.index));
      out_.add_device(d);
    }
    for (const ProcessInfo& p : in_.processes()) {
      ProcessInfo& merged = out_.process(process_id(p.pid));
      merged.name = p.name.empty() || part_.name_prefix.empty() ? p.name : part_.name_prefix + p.name;
      merged.sort_index = p.sort_index;
      merged.labels = p.labels;
      merged.labels.push_back(part_.label);
    }
  }

  TraceBuilder& out_;
  const MergePart& part_;
  const Trace& in_;
  const std::uint64_t correlation_base_;
  std::vector<StringId> names_;  // the part's string id -> the merged one
  std::set<std::int64_t> gpu_pids_;
  std::vector<LaneIndex> lanes_;  // the part's lane index -> the merged one
  TraceBuilder::ArgCopyMemo args_;
};

// Every lane and detail table sized for all its events before the copy: 8 parts of 1M events grow no vector
// step by step.
void reserve_room(TraceBuilder& out, std::span<const MergePart> parts) {
  std::size_t kernels = 0, memcpys = 0, memsets = 0;
  for (const MergePart& part : parts) {
    const Trace& in = *part.trace;
    for (const Lane& lane : in.lanes()) {
      out.reserve_events(out.lane(merged_key(part, lane)), lane.events.size());
    }
    kernels += in.kernel_details().size();
    memcpys += in.memcpy_details().size();
    memsets += in.memset_details().size();
  }
  out.reserve_details(kernels, memcpys, memsets);
}

}  // namespace

Expected<Trace> merge_traces(std::span<const MergePart> parts, TraceMetadata metadata,
                             std::span<const Range> extra_ranges) {
  TraceBuilder out;
  metadata.dropped_records = 0;
  metadata.recorder_costs.clear();  // each part's, added as it is copied
  out.metadata() = std::move(metadata);
  reserve_room(out, parts);
  for (const Range& r : extra_ranges) out.add_range(r);
  MergedCounters counters;
  std::uint64_t correlation_base = 0;
  for (const MergePart& part : parts) {
    PartCopier(out, part, correlation_base).copy(counters);
    correlation_base += largest_correlation(*part.trace);
  }
  counters.add_to(out);
  return out.build();
}

}  // namespace gtv
