#include "owners.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "plan.h"

namespace gtv::whatif {
namespace {

struct Span {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::string name;
};

using ThreadKey = std::pair<std::int64_t, std::int64_t>;

bool glob(std::string_view pattern, std::string_view name) {
  // Iterative '*' matching with one backtrack point: linear in practice, no recursion.
  std::size_t p = 0, n = 0, star = std::string_view::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (p < pattern.size() && pattern[p] == name[n]) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

// Every named interval of the host threads a pattern may match: gtv's ranges, user annotations, nn.Module ranges.
template <typename Keep>
std::map<ThreadKey, std::vector<Span>> candidate_spans(const Trace& trace, Keep keep) {
  std::map<ThreadKey, std::vector<Span>> out;
  for (const Range& r : trace.ranges())
    if (keep(r.kind, r.name)) out[{r.pid, r.tid}].push_back({r.start_ns, r.end_ns, r.name});
  for (const Lane& lane : trace.lanes()) {
    if (lane.is_gpu()) continue;
    for (const Event& e : lane.events) {
      if (e.kind != EventKind::Annotation && e.kind != EventKind::Other) continue;
      const std::string_view name = trace.name(e);
      if (e.kind == EventKind::Other && name.rfind("nn.Module: ", 0) != 0) continue;
      if (keep(RangeKind::User, name))
        out[{lane.key.pid, lane.key.tid}].push_back({e.start_ns, e.end_ns(), std::string(name)});
    }
  }
  return out;
}

// Per thread, the outermost spans only, in start order.
void keep_outermost(std::vector<Span>& spans) {
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return std::tie(a.start_ns, b.end_ns) < std::tie(b.start_ns, a.end_ns);
  });
  std::vector<Span> out;
  for (Span& s : spans)
    if (out.empty() || s.start_ns >= out.back().end_ns) out.push_back(std::move(s));
  spans = std::move(out);
}

Owners assign(const causal::HappensBefore& g, std::map<ThreadKey, std::vector<Span>>&& by_thread, std::string source) {
  const Trace& trace = g.trace();
  Owners o;
  o.of_node.assign(g.size(), -1);
  o.range_of_node.assign(g.size(), -1);
  o.source = std::move(source);
  // Owner names by first start, over all threads.
  std::vector<const Span*> all;
  for (auto& [key, spans] : by_thread) {
    keep_outermost(spans);
    for (const Span& s : spans) all.push_back(&s);
  }
  std::stable_sort(all.begin(), all.end(), [](const Span* a, const Span* b) { return a->start_ns < b->start_ns; });
  std::map<std::string, int> index;
  for (const Span* s : all)
    if (index.emplace(s->name, int(o.names.size())).second) o.names.push_back(s->name);
  int ranges = 0;
  for (const auto& [key, spans] : by_thread) {
    const int first_range = ranges;
    ranges += int(spans.size());
    const auto lane = trace.find_lane(host_lane_key(key.first, key.second));
    if (!lane) continue;
    const causal::HappensBefore::IdRange ids = g.lane_nodes(*lane);
    std::size_t r = 0;
    for (NodeId n = ids.first; n < ids.last; ++n) {
      const TimeNs s = g.recorded_start(n);
      while (r < spans.size() && spans[r].end_ns <= s) ++r;
      if (r >= spans.size() || spans[r].start_ns > s) continue;
      o.of_node[n] = index[spans[r].name];
      o.range_of_node[n] = first_range + int(r);
    }
  }
  // Names no call fell in own nothing: dropped, the indices kept dense.
  std::vector<int> used(o.names.size(), 0);
  for (const int i : o.of_node)
    if (i >= 0) used[std::size_t(i)] = 1;
  std::vector<int> renumber(o.names.size(), -1);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < o.names.size(); ++i)
    if (used[i]) {
      renumber[i] = int(names.size());
      names.push_back(std::move(o.names[i]));
    }
  for (int& i : o.of_node)
    if (i >= 0) i = renumber[std::size_t(i)];
  o.names = std::move(names);
  return o;
}

}  // namespace

bool owner_pattern_matches(const std::string& pattern, std::string_view name) {
  if (pattern.find('*') != std::string::npos) return glob(pattern, name);
  return name.find(pattern) != std::string_view::npos;
}

Owners find_owners(const causal::HappensBefore& g, const std::string& pattern) {
  const Trace& trace = g.trace();
  if (!pattern.empty())
    return assign(
        g,
        candidate_spans(trace, [&](RangeKind, std::string_view name) { return owner_pattern_matches(pattern, name); }),
        "the ranges matching --owners '" + pattern + "'");
  Owners o =
      assign(g, candidate_spans(trace, [](RangeKind kind, std::string_view) { return kind == RangeKind::Forward; }),
             "gtv's model forward ranges");
  if (!o.empty()) return o;
  return assign(g,
                candidate_spans(trace,
                                [](RangeKind kind, std::string_view name) {
                                  return kind == RangeKind::User && model_of_range(std::string(name)) >= 0;
                                }),
                "the record_function or NVTX ranges named \"model N\"");
}

namespace {

std::string thread_text(const Trace& trace, LaneIndex lane) {
  return "thread " + std::to_string(trace.lane(lane).key.tid);
}

}  // namespace

std::optional<std::string> dependent_threads(const causal::HappensBefore& g, const std::vector<LaneIndex>& lanes) {
  const Trace& trace = g.trace();
  const std::set<LaneIndex> in(lanes.begin(), lanes.end());
  std::map<std::pair<LaneIndex, LaneIndex>, std::size_t> backward;
  for (const Flow& f : trace.backward_links())
    if (f.from.lane != f.to.lane && in.count(f.from.lane) && in.count(f.to.lane)) ++backward[{f.from.lane, f.to.lane}];
  if (!backward.empty()) {
    const auto& [pair, count] = *std::max_element(backward.begin(), backward.end(),
                                                  [](const auto& a, const auto& b) { return a.second < b.second; });
    return thread_text(trace, pair.second) + " runs the backward of " + std::to_string(count) +
           (count == 1 ? " op " : " ops ") + thread_text(trace, pair.first) +
           " ran forward (Kineto's forward-to-backward links: PyTorch's autograd engine thread, which the main thread "
           "hands each backward and waits for)";
  }
  // Lazy loading's drain and the driver's locks are what processes of their own would remove: not a dependency.
  for (const causal::Edge& e : g.edges()) {
    if (e.kind == causal::EdgeKind::Collective || e.kind == causal::EdgeKind::LazyLoadDrain ||
        e.kind == causal::EdgeKind::QueueFull || g.node(e.from).kind != causal::NodeKind::HostCall ||
        g.node(e.to).kind != causal::NodeKind::HostCall)
      continue;
    const LaneIndex a = g.lane_of(e.from), b = g.lane_of(e.to);
    if (a == b || !in.count(a) || !in.count(b)) continue;
    return thread_text(trace, b) + " waits for " + thread_text(trace, a) + " (a " + std::string(to_string(e.kind)) +
           " edge)";
  }
  return std::nullopt;
}

std::string no_owners_reason(const std::string& pattern) {
  const std::string how =
      "record them by wrapping each model's work in one line of Python, `with torch.profiler.record_function(\"model "
      "0\"):` (\"model 1\" for the next), or name ranges the trace already has with --owners PATTERN (with "
      "profile(with_modules=True): --owners 'nn.Module: Linear_*')";
  if (!pattern.empty())
    return "no host call lies in a range matching --owners '" + pattern +
           "' (record_function, NVTX, nn.Module or gtv ranges): the trace does not say which work is whose; " + how;
  return "the trace does not say which work is whose: it has no work owners (gtv's \"model N forward\" ranges, "
         "record_function or NVTX ranges named \"model N\", or ranges given with --owners); " +
         how;
}

}  // namespace gtv::whatif
