#include "oracle.h"

#include <algorithm>
#include <limits>
#include <set>

namespace gtv::oracle {
namespace {

constexpr TimeNs kForever = std::numeric_limits<TimeNs>::max();
constexpr TimeNs kBeforeAll = std::numeric_limits<TimeNs>::min();

bool is_gpu_work(EventKind kind) {
  return kind == EventKind::Kernel || kind == EventKind::Memcpy || kind == EventKind::Memset;
}

// NCCL's kernels (and nothing else) have "nccl" in their name, in any case.
bool is_nccl(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return lower.find("nccl") != std::string::npos;
}

double ratio(double a, double b) { return b == 0 ? 0.0 : a / b; }

}  // namespace

Oracle::Oracle(const Trace& trace) : trace_(trace) {
  measure_extent();
  measure_timing();
  measure_gpus();
  measure_concurrency();
  measure_communication();
  collect_launching_calls();
}

// Every event, range and measurement counts for the file's extent; the program's time leaves out what the profiler
// marked for itself: zero-length instants ("Record Window End") and Kineto's span of the whole profile (category
// "Trace").
void Oracle::measure_extent() {
  TimeNs lo = kForever, hi = kBeforeAll, activity_lo = kForever, activity_hi = kBeforeAll;
  auto add = [&](TimeNs start, TimeNs end, bool marker) {
    lo = std::min(lo, start), hi = std::max(hi, end);
    if (!marker) activity_lo = std::min(activity_lo, start), activity_hi = std::max(activity_hi, end);
  };
  for (const Lane& lane : trace_.lanes())
    for (const Event& e : lane.events)
      add(e.start_ns, e.start_ns + e.duration_ns,
          e.kind == EventKind::Instant || (e.kind == EventKind::Other && trace_.category(e) == "Trace"));
  for (const Range& r : trace_.ranges()) add(r.start_ns, r.end_ns, false);
  for (const Measurement& m : trace_.measurements()) add(m.host_start_ns, m.host_end_ns, false);
  if (lo > hi) lo = hi = 0;
  if (activity_lo > activity_hi) activity_lo = lo, activity_hi = hi;
  numbers_.file_start_ns = lo, numbers_.file_end_ns = hi;
  numbers_.trace_start_ns = activity_lo, numbers_.trace_end_ns = activity_hi;
}

// A measurement's truth: its host interval, extended to the end of the GPU work it covered. That work is what was
// launched inside the host interval (launch links), counting only the measuring process's launches when several
// processes launched work and this one did too; in a trace without launch links, the GPU work that overlaps the
// host interval, its ends included. The region of interest runs from the earliest measured start to the latest
// measured end; without measurements it is the whole trace.
void Oracle::measure_timing() {
  struct Launched {
    TimeNs launch_ns;
    std::int64_t pid;
    const Event* gpu;
  };
  std::vector<Launched> launches;
  std::set<std::int64_t> launching_pids;
  for (const Flow& f : trace_.flows()) {
    if (!trace_.lane(f.to.lane).is_gpu() || !is_gpu_work(trace_.event(f.to).kind)) continue;
    const std::int64_t pid = trace_.lane(f.from.lane).key.pid;
    launches.push_back({trace_.event(f.from).start_ns, pid, &trace_.event(f.to)});
    launching_pids.insert(pid);
  }
  std::vector<const Event*> gpu_events;
  for (const Lane& lane : trace_.lanes())
    if (lane.is_gpu())
      for (const Event& e : lane.events)
        if (is_gpu_work(e.kind)) gpu_events.push_back(&e);

  for (const Measurement& meas : trace_.measurements()) {
    MeasurementNumbers m;
    m.name = meas.name;
    m.method = std::string(to_string(meas.method));
    m.reported_ns = meas.reported_ns;
    m.host_start_ns = meas.host_start_ns;
    m.host_end_ns = meas.host_end_ns;
    m.by_flows = !launches.empty();
    std::vector<const Event*> covered;
    if (m.by_flows) {
      const bool own_only = launching_pids.size() > 1 && launching_pids.count(meas.pid) > 0;
      for (const Launched& l : launches)
        if (l.launch_ns >= meas.host_start_ns && l.launch_ns < meas.host_end_ns && (!own_only || l.pid == meas.pid))
          covered.push_back(l.gpu);
    } else {
      for (const Event* e : gpu_events)
        if (e->start_ns <= meas.host_end_ns && e->end_ns() >= meas.host_start_ns) covered.push_back(e);
    }
    m.gpu_activity_count = covered.size();
    TimeNs end_ns = meas.host_end_ns;
    std::vector<Span> spans;
    for (const Event* e : covered) {
      end_ns = std::max(end_ns, e->end_ns());
      spans.push_back({e->start_ns, e->end_ns(), 0});
    }
    m.gpu_busy_ns = Coverage(spans, 1).time_with_groups(1, kBeforeAll, kForever);
    m.truth_ns = end_ns - meas.host_start_ns;
    m.error_ns = m.reported_ns - m.truth_ns;
    m.relative_error = ratio(double(m.error_ns), double(m.truth_ns));
    numbers_.measurements.push_back(m);
  }

  Numbers& n = numbers_;
  n.region_from_measurements = !n.measurements.empty();
  n.region_start_ns = n.region_from_measurements ? kForever : n.trace_start_ns;
  n.region_end_ns = n.region_from_measurements ? kBeforeAll : n.trace_end_ns;
  for (const MeasurementNumbers& m : n.measurements) {
    n.region_start_ns = std::min(n.region_start_ns, m.host_start_ns);
    n.region_end_ns = std::max({n.region_end_ns, m.host_end_ns, m.host_start_ns + m.truth_ns});
  }
}

// Per GPU: busy time is the time at least one of its streams ran a kernel, copy or memset (overlapping work
// counts once); per stream the same on that stream alone.
void Oracle::measure_gpus() {
  std::map<std::int64_t, std::vector<const Lane*>> lanes_of;
  for (const Lane& lane : trace_.lanes())
    if (lane.is_gpu()) lanes_of[lane.device()].push_back(&lane);
  const TimeNs t0 = numbers_.trace_start_ns;
  const TimeNs t1 = numbers_.trace_end_ns;
  const TimeNs r0 = numbers_.region_start_ns;
  const TimeNs r1 = numbers_.region_end_ns;
  for (const auto& [device, lanes] : lanes_of) {
    GpuNumbers g;
    g.device = device;
    g.stream_count = lanes.size();
    std::vector<Span> by_stream;
    std::vector<Span> by_kind;  // 0 kernel, 1 copy
    for (std::size_t s = 0; s < lanes.size(); ++s) {
      StreamNumbers sn;
      sn.device = device;
      sn.stream = lanes[s]->stream();
      for (const Event& e : lanes[s]->events) {
        if (!is_gpu_work(e.kind)) continue;
        ++sn.activity_count;
        by_stream.push_back({e.start_ns, e.end_ns(), static_cast<int>(s)});
        if (e.kind == EventKind::Kernel) {
          ++g.kernel_count;
          g.kernel_ns += e.duration_ns;
          by_kind.push_back({e.start_ns, e.end_ns(), 0});
        } else if (e.kind == EventKind::Memcpy) {
          by_kind.push_back({e.start_ns, e.end_ns(), 1});
        }
      }
      g.activity_count += sn.activity_count;
      numbers_.streams.push_back(sn);
    }
    const Coverage& streams =
        streams_of_.emplace(device, Coverage(by_stream, static_cast<int>(lanes.size()))).first->second;
    for (std::size_t s = 0; s < lanes.size(); ++s)
      numbers_.streams[numbers_.streams.size() - lanes.size() + s].busy_ns =
          streams.time_of_group(static_cast<int>(s), t0, t1);
    g.busy_ns = streams.time_with_groups(1, t0, t1);
    g.region_busy_ns = streams.time_with_groups(1, r0, r1);
    kinds_of_.emplace(device, Coverage(by_kind, 2));
    numbers_.gpus.push_back(g);
  }
}

// Across GPUs: one group per GPU, so a piece's active groups are the GPUs busy then.
void Oracle::measure_concurrency() {
  std::vector<Span> spans;
  for (const Lane& lane : trace_.lanes()) {
    if (!lane.is_gpu()) continue;
    int group = 0;
    while (numbers_.gpus[static_cast<std::size_t>(group)].device != lane.device()) ++group;
    for (const Event& e : lane.events)
      if (is_gpu_work(e.kind)) spans.push_back({e.start_ns, e.end_ns(), group});
  }
  const Coverage gpus(spans, static_cast<int>(numbers_.gpus.size()));
  auto within = [&](TimeNs start_ns, TimeNs end_ns) {
    ConcurrencyNumbers c;
    c.any_busy_ns = gpus.time_with_groups(1, start_ns, end_ns);
    c.overlap_ns = gpus.time_with_groups(2, start_ns, end_ns);
    for (std::size_t g = 0; g < numbers_.gpus.size(); ++g) {
      const TimeNs busy_ns = gpus.time_of_group(static_cast<int>(g), start_ns, end_ns);
      if (busy_ns == 0) continue;
      ++c.gpu_count;
      c.sum_busy_ns += busy_ns;
      c.ideal_ns = std::max(c.ideal_ns, busy_ns);
    }
    c.effective_parallelism = ratio(double(c.sum_busy_ns), double(c.any_busy_ns));
    c.overlap_share = ratio(double(c.overlap_ns), double(c.any_busy_ns));
    return c;
  };
  numbers_.whole = within(numbers_.trace_start_ns, numbers_.trace_end_ns);
  numbers_.region = within(numbers_.region_start_ns, numbers_.region_end_ns);
}

// HolisticTraceAnalysis's get_comm_comp_overlap, per GPU over the whole trace: NCCL kernels are communication,
// other kernels computation, copies and memsets neither; overlap is the time both ran, over communication time.
void Oracle::measure_communication() {
  std::map<std::int64_t, std::pair<std::size_t, std::vector<Span>>> by_device;
  for (const Lane& lane : trace_.lanes()) {
    if (!lane.is_gpu()) continue;
    auto& [nccl_count, spans] = by_device[lane.device()];
    for (const Event& e : lane.events) {
      if (!is_gpu_work(e.kind)) continue;
      int group = 2;
      if (e.kind == EventKind::Kernel && is_nccl(trace_.name(e))) {
        group = 0;
        ++nccl_count;
      } else if (e.kind == EventKind::Kernel) {
        group = 1;
      }
      spans.push_back({e.start_ns, e.end_ns(), group});
    }
  }
  for (const auto& [device, work] : by_device) {
    if (work.first == 0) continue;
    const Coverage kinds(work.second, 3);
    CommunicationNumbers c;
    c.device = device;
    c.communication_kernels = work.first;
    kinds.for_each_piece(kBeforeAll, kForever, [&](const Piece& p) {
      const bool comm = (*p.count)[0] > 0;
      const bool comp = (*p.count)[1] > 0;
      const TimeNs ns = p.end_ns - p.start_ns;
      if (comm) c.communication_ns += ns;
      if (comp) c.computation_ns += ns;
      if ((*p.count)[2] > 0) c.memory_ns += ns;
      if (comm && comp) c.overlap_ns += ns;
      if (comm && !comp) c.exposed_ns += ns;
    });
    c.overlap_ratio = ratio(double(c.overlap_ns), double(c.communication_ns));
    numbers_.communication.push_back(c);
  }
}

// The host calls that launched GPU work: the sources of launch links to a kernel, copy or memset, once each.
void Oracle::collect_launching_calls() {
  std::set<std::pair<LaneIndex, std::uint32_t>> calls;
  for (const Flow& f : trace_.flows())
    if (trace_.lane(f.to.lane).is_gpu() && is_gpu_work(trace_.event(f.to).kind) && !trace_.lane(f.from.lane).is_gpu())
      calls.insert({f.from.lane, f.from.index});
  std::map<LaneIndex, int> group_of;
  std::vector<Span> spans;
  for (const auto& [lane, index] : calls) {
    auto [it, inserted] = group_of.try_emplace(lane, static_cast<int>(launching_pids_.size()));
    if (inserted) launching_pids_.push_back(trace_.lane(lane).key.pid);
    const Event& e = trace_.lane(lane).events[index];
    spans.push_back({e.start_ns, e.end_ns(), it->second});
  }
  launching_ = Coverage(spans, static_cast<int>(launching_pids_.size()));
}

StreamOverlapNumbers Oracle::stream_overlap_within(std::int64_t device, TimeNs start_ns, TimeNs end_ns) const {
  StreamOverlapNumbers s;
  const auto streams = streams_of_.find(device);
  if (streams == streams_of_.end()) return s;
  std::vector<TimeNs> per_stream;
  streams->second.for_each_piece(start_ns, end_ns, [&](const Piece& p) {
    const TimeNs ns = p.end_ns - p.start_ns;
    per_stream.resize(p.count->size(), 0);
    for (std::size_t i = 0; i < p.count->size(); ++i)
      if ((*p.count)[i] > 0) per_stream[i] += ns;
    s.busy_ns += ns;
    if (p.groups_active >= 2) s.multi_stream_ns += ns;
    s.max_busy_streams = std::max(s.max_busy_streams, p.groups_active);
  });
  for (const TimeNs ns : per_stream) {
    s.stream_busy_sum_ns += ns;
    if (ns > 0) ++s.stream_count;
  }
  s.stream_parallelism = ratio(double(s.stream_busy_sum_ns), double(s.busy_ns));
  s.multi_stream_share = ratio(double(s.multi_stream_ns), double(s.busy_ns));
  const Coverage& kinds = kinds_of_.at(device);
  s.kernel_busy_ns = kinds.time_of_group(0, start_ns, end_ns);
  s.copy_busy_ns = kinds.time_of_group(1, start_ns, end_ns);
  s.copy_compute_overlap_ns = kinds.time_with_groups(2, start_ns, end_ns);
  return s;
}

HostLaunchNumbers Oracle::host_launch_within(TimeNs start_ns, TimeNs end_ns) const {
  HostLaunchNumbers h;
  std::vector<bool> seen(launching_pids_.size(), false);
  launching_.for_each_piece(start_ns, end_ns, [&](const Piece& p) {
    const TimeNs ns = p.end_ns - p.start_ns;
    h.launching_ns += ns;
    if (p.groups_active >= 2) h.concurrent_ns += ns;
    h.max_threads = std::max(h.max_threads, p.groups_active);
    for (std::size_t i = 0; i < p.count->size(); ++i)
      if ((*p.count)[i] > 0) seen[i] = true;
  });
  std::set<std::int64_t> pids;
  for (std::size_t i = 0; i < seen.size(); ++i)
    if (seen[i]) {
      ++h.thread_count;
      pids.insert(launching_pids_[i]);
    }
  h.process_count = pids.size();
  return h;
}

TimeNs Oracle::busy_within(std::int64_t device, TimeNs start_ns, TimeNs end_ns) const {
  const auto it = streams_of_.find(device);
  return it == streams_of_.end() ? 0 : it->second.time_with_groups(1, start_ns, end_ns);
}

}  // namespace gtv::oracle
