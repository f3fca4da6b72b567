#include "gtv/ui/work_owner.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace gtv::ui {
namespace {

// An interval that can own work; `parent` is the innermost interval around it (-1: none), so the search for the
// innermost interval around a time walks up the nesting, never over unrelated siblings.
struct OwnerSpan {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::uint16_t owner = kNoOwner;
  std::int32_t parent = -1;
};

class SpanIndex {
 public:
  void add(TimeNs start_ns, TimeNs end_ns, std::uint16_t owner) { spans_.push_back({start_ns, end_ns, owner, -1}); }

  // Sort by start (outer first on ties) and link each span to the innermost one still open at its start.
  void finish() {
    std::sort(spans_.begin(), spans_.end(), [](const OwnerSpan& a, const OwnerSpan& b) {
      return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
    });
    std::vector<std::int32_t> open;
    for (std::size_t i = 0; i < spans_.size(); ++i) {
      while (!open.empty() && spans_[static_cast<std::size_t>(open.back())].end_ns <= spans_[i].start_ns)
        open.pop_back();
      spans_[i].parent = open.empty() ? -1 : open.back();
      open.push_back(static_cast<std::int32_t>(i));
    }
  }

  // The owner of the innermost span with start <= t_ns < end.
  [[nodiscard]] std::uint16_t innermost_at(TimeNs t_ns) const {
    auto it = std::upper_bound(spans_.begin(), spans_.end(), t_ns,
                               [](TimeNs t, const OwnerSpan& s) { return t < s.start_ns; });
    std::int32_t i = static_cast<std::int32_t>(it - spans_.begin()) - 1;
    while (i >= 0) {
      const OwnerSpan& s = spans_[static_cast<std::size_t>(i)];
      if (t_ns < s.end_ns) return s.owner;
      i = s.parent;
    }
    return kNoOwner;
  }

 private:
  std::vector<OwnerSpan> spans_;
};

// Owners by process and name, in the order first seen.
class OwnerNames {
 public:
  std::uint16_t index_of(std::int64_t pid, const std::string& name) {
    const auto [it, added] = index_.emplace(std::make_pair(pid, name), static_cast<std::uint16_t>(names_.size()));
    if (added) {
      if (names_.size() >= kNoOwner) {  // more names than indices: the rest stay unowned
        index_.erase(it);
        return kNoOwner;
      }
      names_.push_back(name);
      pids_.push_back(pid);
    }
    return it->second;
  }
  [[nodiscard]] const std::vector<std::string>& names() const { return names_; }
  [[nodiscard]] const std::vector<std::int64_t>& pids() const { return pids_; }

 private:
  std::map<std::pair<std::int64_t, std::string>, std::uint16_t> index_;
  std::vector<std::string> names_;
  std::vector<std::int64_t> pids_;
};

using ThreadKey = std::pair<std::int64_t, std::int64_t>;  // pid, tid

std::map<ThreadKey, SpanIndex> forward_ranges(const Trace& trace, OwnerNames& names) {
  std::map<ThreadKey, SpanIndex> by_thread;
  for (const Range& r : trace.ranges()) {
    if (r.kind != RangeKind::Forward || r.end_ns <= r.start_ns) continue;
    const std::uint16_t owner = names.index_of(r.pid, r.name);
    if (owner != kNoOwner) by_thread[{r.pid, r.tid}].add(r.start_ns, r.end_ns, owner);
  }
  for (auto& [key, index] : by_thread) index.finish();
  return by_thread;
}

// The user annotations of one host lane, made on first use: only lanes that launch work need them.
const SpanIndex& annotations_of(const Trace& trace, LaneIndex lane, std::unordered_map<LaneIndex, SpanIndex>& cache,
                                OwnerNames& names) {
  const auto found = cache.find(lane);
  if (found != cache.end()) return found->second;
  SpanIndex& index = cache[lane];
  for (const Event& e : trace.lane(lane).events) {
    if (e.kind != EventKind::Annotation || e.duration_ns <= 0) continue;
    const std::uint16_t owner = names.index_of(trace.lane(lane).key.pid, std::string(trace.name(e)));
    if (owner != kNoOwner) index.add(e.start_ns, e.end_ns(), owner);
  }
  index.finish();
  return index;
}

// The table keeps only owners that own work (annotations around no launch drop out), renumbered; where more than one
// process owns work, each name carries its process.
void keep_used_names(const OwnerNames& all, WorkOwners& owners) {
  std::vector<std::uint16_t> renumber(all.names().size(), kNoOwner);
  for (const auto& lane_owners : owners.of_event)
    for (const std::uint16_t o : lane_owners)
      if (o != kNoOwner) renumber[o] = 0;
  std::set<std::int64_t> pids;
  for (std::size_t i = 0; i < renumber.size(); ++i) {
    if (renumber[i] == kNoOwner) continue;
    renumber[i] = static_cast<std::uint16_t>(owners.range_names.size());
    owners.range_names.push_back(all.names()[i]);
    owners.pids.push_back(all.pids()[i]);
    pids.insert(all.pids()[i]);
  }
  owners.names.reserve(owners.range_names.size());
  for (std::size_t i = 0; i < owners.range_names.size(); ++i)
    owners.names.push_back(pids.size() > 1
                               ? "pid " + std::to_string(owners.pids[i]) + " \u00b7 " + owners.range_names[i]
                               : owners.range_names[i]);
  for (auto& lane_owners : owners.of_event)
    for (std::uint16_t& o : lane_owners)
      if (o != kNoOwner) o = renumber[o];
}

}  // namespace

WorkOwners work_owners(const Trace& trace) {
  WorkOwners owners;
  OwnerNames names;
  const std::map<ThreadKey, SpanIndex> forwards = forward_ranges(trace, names);
  std::unordered_map<LaneIndex, SpanIndex> annotations;
  owners.of_event.resize(trace.lanes().size());
  for (const Lane& lane : trace.lanes())
    if (lane.is_gpu())
      for (const Event& e : lane.events) owners.gpu_events += is_gpu_activity(e.kind) ? 1 : 0;
  for (const Flow& flow : trace.flows()) {
    if (flow.to.lane >= trace.lanes().size() || flow.from.lane >= trace.lanes().size()) continue;
    const Lane& target = trace.lane(flow.to.lane);
    const Lane& launcher = trace.lane(flow.from.lane);
    if (!target.is_gpu() || launcher.is_gpu() || flow.to.index >= target.events.size() ||
        flow.from.index >= launcher.events.size() || !is_gpu_activity(target.events[flow.to.index].kind))
      continue;
    const TimeNs launch_ns = launcher.events[flow.from.index].start_ns;
    std::uint16_t owner = kNoOwner;
    if (const auto it = forwards.find({launcher.key.pid, launcher.key.tid}); it != forwards.end())
      owner = it->second.innermost_at(launch_ns);
    if (owner == kNoOwner) owner = annotations_of(trace, flow.from.lane, annotations, names).innermost_at(launch_ns);
    if (owner == kNoOwner) continue;
    std::vector<std::uint16_t>& lane_owners = owners.of_event[flow.to.lane];
    if (lane_owners.empty()) lane_owners.assign(target.events.size(), kNoOwner);
    if (lane_owners[flow.to.index] == kNoOwner) ++owners.owned_events;
    lane_owners[flow.to.index] = owner;
  }
  keep_used_names(names, owners);
  owners.colors = owner_colors(owners.names);
  return owners;
}

std::uint16_t WorkOwners::find(std::int64_t pid, std::string_view name) const {
  for (std::size_t i = 0; i < range_names.size() && i < pids.size(); ++i)
    if (pids[i] == pid && range_names[i] == name) return static_cast<std::uint16_t>(i);
  return kNoOwner;
}

}  // namespace gtv::ui
