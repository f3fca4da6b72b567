// The critical path in words: what bounded the region, and what each cause on it would give back if removed.
#include <algorithm>
#include <map>

#include "causes/critical_path_parts.h"
#include "gtv/analysis/format.h"
#include "gtv/analysis/intervals.h"

namespace gtv::analysis::detail {
namespace {

using causal::SegmentKind;

// A saving below this share of the cause's time on the path means other work of about the same length ran beside
// it: removing it would not shorten the region.
constexpr double kNoSavingShare = 0.05;

std::string share_of(TimeNs part_ns, TimeNs whole_ns) {
  const double r = safe_ratio(double(part_ns), double(whole_ns));
  return percent(r, r < 0.1 ? 1 : 0);
}

// Shares merged by what they are in words, so "GPU 0 computing" adds its kernels, copies and memsets.
std::vector<std::pair<std::string, TimeNs>> grouped_shares(const CriticalPathAnalysis& a) {
  std::map<std::string, TimeNs> by;
  for (const PathShare& s : a.shares) {
    PathShare g = s;
    // A GPU's work, and its queued work waiting for the multiprocessors its other streams held, is the GPU busy.
    if (s.kind == SegmentKind::Copy || s.kind == SegmentKind::Memset || s.kind == SegmentKind::HeldByOtherStreams)
      g.kind = SegmentKind::Kernel;
    by[share_phrase(g)] += s.total_ns;
  }
  std::vector<std::pair<std::string, TimeNs>> out(by.begin(), by.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  return out;
}

// First-use calls that lay only in the gaps between timed measurements: removing them would move the later
// measurements earlier and so shorten the span, but no measurement would take less time.
bool only_between_measurements(const CauseSaving& c, const CriticalPathAnalysis& a) {
  if (c.key != "first_use" || !a.region.from_measurements || !a.region.has_gaps() || a.causes.empty()) return false;
  const auto index = static_cast<int>(&c - a.causes.data());
  for (const PathSegment& s : a.segments)
    if (s.cause == index && length_within_ns(a.region.measured, s.start_ns, s.end_ns) > 0) return false;
  return true;
}

std::string saving_sentence(const CauseSaving& c, const CriticalPathAnalysis& a) {
  if (only_between_measurements(c, a))
    return "First-use calls (warm-up) took " + format_duration(c.on_path_ns) + " of the critical path of " +
           a.region.name + ", all of it between the measurements: no measurement would take less time without them.";
  if (c.key == "wait") {
    // The call's own time on the path and the GPU work it waited for are said apart: the host was in the call only
    // for the first; the second ran while the host did whatever it did before the call. The removal takes out the
    // waits' links, not the calls: a wait for no GPU work on the path keeps its time.
    const std::string call = c.cause.substr(c.cause.find(" in ") + 4);
    const std::string head =
        "In " + call + " (" + format_duration(c.on_path_ns) + " of the critical path) the host waited for " +
        (c.waited_ns > 0 ? "GPU work that took " + format_duration(c.waited_ns) + " of the critical path"
                         : std::string("no GPU work on the critical path")) +
        "; without those waits " + a.region.name;
    const bool none = double(c.saving_ns) < kNoSavingShare * double(c.waited_ns + c.on_path_ns);
    const std::string by =
        none ? std::string(" would be ") +
                   (c.saving_ns > 0 ? "only " + format_duration(c.saving_ns) + " shorter" : "no shorter")
             : " would be " + format_duration(c.saving_ns) + " shorter (" + share_of(c.saving_ns, a.length_ns) + ")";
    if (c.waited_ns == 0) return head + by + (none ? ": removing the waits keeps the calls' own time." : ".");
    return head + by +
           (none ? ": the GPU work itself bounds it." : ": the host could have launched more work meanwhile.");
  }
  const std::string head =
      "Without " + c.cause + " (" + format_duration(c.on_path_ns) + " on the critical path), " + a.region.name;
  if (c.replayed_ns >= 0)
    return head + " would be at most " + format_duration(c.saving_ns) + " shorter (" +
           share_of(c.saving_ns, a.length_ns) + "): " + c.capped_by +
           " when it overlaps no more than it did (the replay, which runs work that ran alone beside other work at no "
           "cost, gives " +
           format_duration(c.replayed_ns) + ").";
  if (c.saving_ns <= 0) return head + " would not be shorter: other work of the same length ran beside it.";
  if (double(c.saving_ns) < kNoSavingShare * double(c.on_path_ns))
    return head + " would be only " + format_duration(c.saving_ns) +
           " shorter: other work of about the same length ran beside it.";
  return head + " would be " + format_duration(c.saving_ns) + " shorter (" + share_of(c.saving_ns, a.length_ns) + ").";
}

// " to pageable memory" for a copy into pageable host memory, " from pageable memory" out of it.
std::string pageable_side(const causal::HappensBefore& g, causal::NodeId copy) {
  const MemcpyDetail* d = g.trace().memcpy_detail(g.event(copy));
  if (d && d->dst_kind == MemoryKind::Pageable) return " to pageable memory";
  if (d && d->src_kind == MemoryKind::Pageable) return " from pageable memory";
  return " of pageable memory";
}

}  // namespace

std::string wait_class(const causal::HappensBefore& g, causal::NodeId call) {
  std::string name(g.trace().name(g.event(call)));
  // A synchronize that continues the wait of the pageable copy just before it is that copy's wait: where the
  // copy's call waited for it too (.to("cpu")), both are one row, as removing one without the other saves nothing.
  const causal::NodeId copy = g.copy_wait_continued_by(call);
  if (copy != causal::kNoNode) {
    const std::span<const causal::Edge> copy_call_edges = g.edges_into(g.node(copy).launch);
    if (std::any_of(copy_call_edges.begin(), copy_call_edges.end(), [&](const causal::Edge& e) {
          return e.binding && e.kind == causal::EdgeKind::ImplicitSync && e.from == copy;
        }))
      return std::string(g.trace().name(g.event(g.node(copy).launch))) + pageable_side(g, copy);
  }
  const std::span<const causal::Edge> edges = g.edges_into(call);
  for (const causal::Edge& e : edges) {
    if (!e.binding || !e.to_end()) continue;
    switch (e.kind) {
      case causal::EdgeKind::LazyLoadDrain:
        return std::string(kLazyDrainClass);
      case causal::EdgeKind::QueueFull:
        return "launches that found the launch queue full";
      case causal::EdgeKind::ImplicitSync:
        if (name.find("Async") != std::string::npos) return name + pageable_side(g, e.from);
        if (name.find("Launch") != std::string::npos) return "launches that returned after their own kernel";
        return name;
      default:
        return name;
    }
  }
  return name;
}

void describe_critical_path(CriticalPathAnalysis& a) {
  if (a.length_ns == 0) return;
  const auto groups = grouped_shares(a);
  std::string line = "The critical path of " + a.region.name + " (" + format_duration(a.length_ns) +
                     ": the chain of work and waits whose lengthening lengthens it): ";
  for (std::size_t i = 0; i < groups.size() && i < 4; ++i)
    line += (i ? ", " : "") + groups[i].first + " " + format_duration(groups[i].second) + " (" +
            share_of(groups[i].second, a.length_ns) + ")";
  if (groups.size() > 4) line += ", and " + std::to_string(groups.size() - 4) + " smaller parts";
  a.lines.push_back(line + ".");
  if (!a.own_work_by_range.empty()) {
    TimeNs own_ns = 0;
    for (const RangeWork& r : a.own_work_by_range) own_ns += r.total_ns;
    std::string ranges = "The host's own work between calls on the critical path (" + format_duration(own_ns) +
                         "), by the innermost record_function range it ran in (for a thread without ranges of its "
                         "own, such as the autograd engine's, the range its process's main thread was in): ";
    for (std::size_t i = 0; i < a.own_work_by_range.size() && i < 4; ++i) {
      const RangeWork& r = a.own_work_by_range[i];
      ranges += (i ? ", " : "") + (r.range.empty() ? std::string("outside any range") : "'" + r.range + "'") + " " +
                format_duration(r.total_ns);
    }
    if (a.own_work_by_range.size() > 4) ranges += ", and " + std::to_string(a.own_work_by_range.size() - 4) + " more";
    a.lines.push_back(ranges + ".");
  }
  std::vector<const CauseSaving*> by_saving;
  for (const CauseSaving& c : a.causes) by_saving.push_back(&c);
  std::stable_sort(by_saving.begin(), by_saving.end(),
                   [](const CauseSaving* x, const CauseSaving* y) { return x->saving_ns > y->saving_ns; });
  for (const CauseSaving* c : by_saving)
    if (c->on_path_ns + c->waited_ns >= a.length_ns / 1000) a.lines.push_back(saving_sentence(*c, a));
  if (a.truncated) a.lines.emplace_back("The walk back along the path stopped early: the trace's links form a loop.");
  for (const std::string& anomaly : a.anomalies) a.lines.push_back("In the graph: " + anomaly + ".");
  if (groups.empty()) return;
  std::string head = "What bounds " + a.region.name + ": " + groups.front().first + ", " +
                     share_of(groups.front().second, a.length_ns) + " of its critical path";
  const CauseSaving* top = nullptr;
  for (const CauseSaving* c : by_saving)
    if (!only_between_measurements(*c, a)) {
      top = c;
      break;
    }
  if (top && top->saving_ns > 0 && double(top->saving_ns) >= 0.02 * double(a.length_ns))
    head += "; without " + top->cause + " it would be " + format_duration(top->saving_ns) + " shorter (" +
            share_of(top->saving_ns, a.length_ns) + ")";
  a.headline = head + ".";
}

}  // namespace gtv::analysis::detail
