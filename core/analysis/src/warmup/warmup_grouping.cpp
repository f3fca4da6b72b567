// Shared bookkeeping of the warm-up parts: which host call launched what, and grouping spans into findings.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "warmup/warmup_parts.h"

namespace gtv::analysis::detail {

namespace {

// A lane's launch links in call order. Flows usually come in launch order: a list whose calls strictly increase is
// already what the sort would give. Otherwise, when no two links share a call (one order) and the links are not
// sparse among the lane's calls, each is placed at its call's slot, which is that order without comparisons;
// else they are sorted.
void order_by_call(std::vector<LaunchLink>& links, std::size_t calls) {
  auto by_index = [](const LaunchLink& a, const LaunchLink& b) { return a.index < b.index; };
  auto not_after = [](const LaunchLink& a, const LaunchLink& b) { return a.index >= b.index; };
  if (std::adjacent_find(links.begin(), links.end(), not_after) == links.end()) return;
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  if (links.size() >= kNone || links.size() * 8 < calls) {
    std::sort(links.begin(), links.end(), by_index);
    return;
  }
  std::vector<std::uint32_t> slot(calls, kNone);
  for (std::size_t k = 0; k < links.size(); ++k) {
    std::uint32_t& s = slot[links[k].index];
    if (s != kNone) {  // two links of one call: their order is the sort's
      std::sort(links.begin(), links.end(), by_index);
      return;
    }
    s = static_cast<std::uint32_t>(k);
  }
  std::vector<LaunchLink> ordered;
  ordered.reserve(links.size());
  for (const std::uint32_t k : slot)
    if (k != kNone) ordered.push_back(links[k]);
  links = std::move(ordered);
}

}  // namespace

LaneLaunches launches_by_lane(const Trace& trace) {
  LaneLaunches out;
  out.all.resize(trace.lanes().size());
  out.kernels.resize(trace.lanes().size());
  const std::vector<Flow>& flows = trace.flows();
  for (std::size_t i = 0; i < flows.size(); ++i) {
    trace.prefetch_flow_events(i);
    const Flow& f = flows[i];
    if (trace.lane(f.from.lane).is_gpu() || !trace.lane(f.to.lane).is_gpu()) continue;
    out.all[f.from.lane].push_back({f.from.index, f.to});
    if (trace.event(f.to).kind == EventKind::Kernel) out.kernels[f.from.lane].push_back({f.from.index, f.to});
  }
  for (auto* lists : {&out.all, &out.kernels})
    for (LaneIndex l = 0; l < lists->size(); ++l) order_by_call((*lists)[l], trace.lane(l).events.size());
  return out;
}

const WarmUpFinding* FindingGrower::open_near(WarmUpCause cause, std::int64_t device, TimeNs start_ns) const {
  for (const WarmUpFinding& f : open_)
    if (f.cause == cause && f.device == device && start_ns - f.end_ns <= kWarmUpGroupGapNs) return &f;
  return nullptr;
}

void FindingGrower::add(WarmUpCause cause, std::int64_t device, TimeNs start_ns, TimeNs end_ns, std::string_view name,
                        TimeNs cost_ns) {
  auto it = std::find_if(open_.begin(), open_.end(),
                         [&](const WarmUpFinding& f) { return f.cause == cause && f.device == device; });
  if (it != open_.end() && start_ns - it->end_ns > kWarmUpGroupGapNs) {
    closed_.push_back(std::move(*it));
    open_.erase(it);
    it = open_.end();
  }
  if (it == open_.end()) {
    WarmUpFinding f;
    f.cause = cause;
    f.device = device;
    f.pid = pid_;
    f.tid = tid_;
    f.on_gpu = on_gpu_;
    f.start_ns = start_ns;
    f.end_ns = start_ns;
    f.first_call = std::string(name);
    open_.push_back(std::move(f));
    it = std::prev(open_.end());
  }
  WarmUpFinding& f = *it;
  ++f.count;
  // Spans arrive in start order, so a span either extends the last one or starts a new one.
  TimeNs added_ns = 0;
  if (!f.spans.empty() && start_ns <= f.spans.back().end_ns) {
    added_ns = std::max<TimeNs>(0, end_ns - f.spans.back().end_ns);
    f.spans.back().end_ns += added_ns;
  } else if (end_ns > start_ns) {
    f.spans.push_back({start_ns, end_ns});
    added_ns = end_ns - start_ns;
  }
  f.end_ns = std::max(f.end_ns, end_ns);
  f.cost_ns += cost_ns >= 0 ? cost_ns : added_ns;
}

void FindingGrower::close_all(std::vector<WarmUpFinding>& out) {
  for (auto& f : closed_) out.push_back(std::move(f));
  for (auto& f : open_) out.push_back(std::move(f));
  closed_.clear();
  open_.clear();
}

}  // namespace gtv::analysis::detail
