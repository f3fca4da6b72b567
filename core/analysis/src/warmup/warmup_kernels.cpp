// Kernels slower on their first run than on later runs of the same kernel with the same launch configuration:
// cold instruction caches and TLBs, clocks ramping up. Only the same name, device, grid and block compare: the
// first launch of a name is often a different layer (another shape) than its later launches.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <unordered_map>

#include "gtv/analysis/intervals.h"
#include "gtv/model/collectives.h"
#include "warmup/warmup_parts.h"

namespace gtv::analysis::detail {
namespace {

// A first run counts as slow from 1.5x the median of the later runs: runs of one kernel with one configuration
// vary by a few percent to ~20% (cache state, clock boost), so less is noise. It must also lose at least 10 us:
// a 3 us kernel taking 5 us the first time is 1.7x but costs nothing anyone could see.
constexpr double kSlowFirstRatio = 1.5;
constexpr TimeNs kSlowFirstMinExcessNs = 10 * kNsPerUs;
// Name, grid and block do not always fix the work: a grid-stride kernel keeps one grid for any size (one
// elementwise kernel ran 4, 39 and 160 us with the same grid). The comparison holds only when the later runs
// agree with each other: their 90th percentile within 1.25x of their median.
constexpr double kSteadySpreadMax = 1.25;

struct ConfigKey {
  std::int64_t device = 0;
  StringId name = 0;
  std::array<std::int32_t, 6> dims{};  // grid x, y, z, block x, y, z
  friend bool operator==(const ConfigKey&, const ConfigKey&) = default;
};

struct ConfigHash {
  std::size_t operator()(const ConfigKey& k) const {
    std::uint64_t h = static_cast<std::uint64_t>(k.device) * 0x9E3779B97F4A7C15ull ^ k.name;
    for (std::int32_t d : k.dims) h = (h ^ static_cast<std::uint32_t>(d)) * 0x100000001B3ull;
    return static_cast<std::size_t>(h);
  }
};

struct Runs {
  EventRef first;
  TimeNs first_start_ns = 0;
  TimeNs first_ns = 0;
  std::vector<TimeNs> later_ns;
};

struct SlowRun {
  EventRef ref;
  TimeNs cost_ns = 0;
};

// The launch configuration, or nothing when the trace does not say (then no run can be matched to another).
std::optional<ConfigKey> config_of(const Trace& trace, const Lane& lane, const Event& e) {
  const KernelDetail* d = trace.kernel_detail(e);
  if (!d) return std::nullopt;
  ConfigKey k{lane.device(), e.name, {d->grid[0], d->grid[1], d->grid[2], d->block[0], d->block[1], d->block[2]}};
  if (std::all_of(k.dims.begin(), k.dims.end(), [](std::int32_t v) { return v == 0; })) return std::nullopt;
  return k;
}

constexpr std::uint32_t kDetailAhead = 8;

std::unordered_map<ConfigKey, Runs, ConfigHash> runs_by_config(const Trace& trace) {
  std::unordered_map<ConfigKey, Runs, ConfigHash> runs;
  // A communication kernel's run lasts as long as its peers keep it waiting: a first run that took longer waited
  // for a rank that arrived late, not for warm-up. Never compared.
  CommunicationNames is_communication(trace.strings());
  for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
    const Lane& lane = trace.lane(l);
    if (!lane.is_gpu()) continue;
    for (std::uint32_t i = 0; i < lane.events.size(); ++i) {
      const Event& e = lane.events[i];
      // A lane's kernels' details lie far apart (the file interleaves the lanes): the one a few kernels ahead is
      // fetched while this one is looked up.
      if (i + kDetailAhead < lane.events.size()) {
        const Event& ahead = lane.events[i + kDetailAhead];
        if (const KernelDetail* d = trace.kernel_detail(ahead)) __builtin_prefetch(d);
      }
      if (e.kind != EventKind::Kernel) continue;
      const auto key = config_of(trace, lane, e);
      if (!key || is_communication(key->name)) continue;
      auto [it, inserted] = runs.try_emplace(*key, Runs{EventRef{l, i}, e.start_ns, e.duration_ns, {}});
      if (inserted) continue;
      Runs& r = it->second;
      if (e.start_ns < r.first_start_ns) {  // streams are visited one after another: the earliest run is first
        r.later_ns.push_back(r.first_ns);
        r = Runs{EventRef{l, i}, e.start_ns, e.duration_ns, std::move(r.later_ns)};
      } else {
        r.later_ns.push_back(e.duration_ns);
      }
    }
  }
  return runs;
}

// Median and 90th percentile of the later runs.
struct Steady {
  TimeNs median_ns = 0;
  TimeNs p90_ns = 0;
};

// By selection, not a full sort: after nth_element the values before a rank are no larger than it, so the rank just
// below it is their maximum. Reorders v.
Steady steady_of(std::vector<TimeNs>& v) {
  const std::size_t mid = v.size() / 2, p90 = (v.size() - 1) * 9 / 10;
  const auto at = [&v](std::size_t i) { return v.begin() + static_cast<std::ptrdiff_t>(i); };
  std::nth_element(v.begin(), at(mid), v.end());
  const TimeNs mid_ns = *at(mid);
  const TimeNs below_mid_ns = mid > 0 ? *std::max_element(v.begin(), at(mid)) : mid_ns;
  const TimeNs median = v.size() % 2 == 1 ? mid_ns : below_mid_ns + (mid_ns - below_mid_ns) / 2;
  TimeNs p90_ns = mid_ns;
  if (p90 + 1 == mid) {
    p90_ns = below_mid_ns;
  } else if (p90 > mid) {
    std::nth_element(at(mid + 1), at(p90), v.end());
    p90_ns = *at(p90);
  }
  return {median, p90_ns};
}

// Per device, the communication kernels' runs, merged. An NCCL kernel spins on its multiprocessors until its
// peers arrive; a kernel that ran beside one shared the GPU with it: its slow run is contention, not warm-up.
std::map<std::int64_t, std::vector<Interval>> communication_by_device(const Trace& trace) {
  std::map<std::int64_t, std::vector<Interval>> out;
  CommunicationNames is_communication(trace.strings());
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu()) continue;
    for (const Event& e : lane.events) {
      if (e.kind != EventKind::Kernel) continue;
      if (is_communication(e.name)) out[lane.device()].push_back({e.start_ns, e.end_ns()});
    }
  }
  for (auto& [device, spans] : out) merge_in_place(spans);
  return out;
}

bool ran_beside(const std::map<std::int64_t, std::vector<Interval>>& by_device, std::int64_t device, const Event& e) {
  const auto it = by_device.find(device);
  return it != by_device.end() && length_within_ns(it->second, e.start_ns, e.end_ns()) > 0;
}

}  // namespace

std::vector<WarmUpFinding> find_slow_first_kernels(const Trace& trace) {
  std::vector<SlowRun> slow;
  const auto communication = communication_by_device(trace);
  for (auto& [key, r] : runs_by_config(trace)) {
    if (r.later_ns.empty()) continue;  // ran once: no steady state to compare with
    if (ran_beside(communication, key.device, trace.event(r.first))) continue;
    const Steady steady = steady_of(r.later_ns);
    if (double(steady.p90_ns) > kSteadySpreadMax * double(steady.median_ns)) continue;
    if (double(r.first_ns) >= kSlowFirstRatio * double(steady.median_ns) &&
        r.first_ns - steady.median_ns >= kSlowFirstMinExcessNs)
      slow.push_back({r.first, r.first_ns - steady.median_ns});
  }
  std::sort(slow.begin(), slow.end(), [&](const SlowRun& a, const SlowRun& b) {
    if (a.ref.lane != b.ref.lane) return a.ref.lane < b.ref.lane;
    return a.ref.index < b.ref.index;
  });
  std::vector<WarmUpFinding> out;
  for (std::size_t i = 0; i < slow.size();) {
    const Lane& lane = trace.lane(slow[i].ref.lane);
    FindingGrower grower(lane.device(), lane.stream(), true);
    for (; i < slow.size() && &trace.lane(slow[i].ref.lane) == &lane; ++i) {
      const Event& e = trace.event(slow[i].ref);
      grower.add(WarmUpCause::SlowFirstKernel, lane.device(), e.start_ns, e.end_ns(), trace.name(e), slow[i].cost_ns);
    }
    grower.close_all(out);
  }
  return out;
}

}  // namespace gtv::analysis::detail
