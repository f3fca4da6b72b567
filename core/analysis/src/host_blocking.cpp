#include "gtv/analysis/host_blocking.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include "gtv/analysis/format.h"
#include "gtv/analysis/intervals.h"

namespace gtv::analysis {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool is_pageable(MemoryKind kind) { return kind == MemoryKind::Pageable; }

// Kind of a host event, or nullopt. Cached per name for the name-only part.
class Classifier {
 public:
  explicit Classifier(const Trace& trace) : trace_(trace), by_name_(trace.strings().size(), kUnknown) {}

  std::optional<BlockingKind> classify(const Event& e, EventRef ref, BlockingCall& call) {
    if (e.kind == EventKind::Sync) return sync_activity_kind(trace_.name(e));
    if (e.kind != EventKind::Runtime && e.kind != EventKind::Driver) return std::nullopt;
    std::int8_t& cached = by_name_[e.name];
    if (cached == kUnknown) cached = name_kind(trace_.name(e));
    if (cached >= 0) return static_cast<BlockingKind>(cached);
    if (cached != kAsyncCopy) return std::nullopt;
    const auto flow = trace_.flow_of(ref);
    if (!flow || !(flow->from == ref)) return std::nullopt;  // no partner: cannot tell the memory kind
    const MemcpyDetail* copy = trace_.memcpy_detail(trace_.event(flow->to));
    if (!copy || !(is_pageable(copy->src_kind) || is_pageable(copy->dst_kind))) return std::nullopt;
    call.device = trace_.lane(flow->to.lane).device();
    call.to_pageable = is_pageable(copy->dst_kind);
    return BlockingKind::PageableAsyncCopy;
  }

 private:
  static constexpr std::int8_t kUnknown = -3, kAsyncCopy = -2, kNone = -1;
  static std::int8_t name_kind(std::string_view name) {
    BlockingKind kind{};
    if (blocking_kind_of_call(name, kind)) return static_cast<std::int8_t>(kind);
    return is_async_copy_call(name) ? kAsyncCopy : kNone;
  }
  static BlockingKind sync_activity_kind(std::string_view name) {
    if (contains(name, "Stream")) return BlockingKind::StreamSync;
    if (contains(name, "Event")) return BlockingKind::EventSync;
    if (contains(name, "Context") || contains(name, "Device")) return BlockingKind::DeviceSync;
    return BlockingKind::OtherSync;
  }
  const Trace& trace_;
  std::vector<std::int8_t> by_name_;
};

void scan_lane(const Trace& trace, const Lane& lane, LaneIndex l, Classifier& classifier, HostBlocking& out) {
  ThreadBlocking t{lane.key.pid, lane.key.tid, lane.name, 0, 0, 0, 0};
  TimeNs first = 0, last = 0, covered_end = std::numeric_limits<TimeNs>::min();
  for (std::uint32_t i = 0; i < lane.events.size(); ++i) {
    const Event& e = lane.events[i];
    first = i == 0 ? e.start_ns : first;
    last = std::max(last, e.end_ns());
    BlockingCall call{lane.key.pid, lane.key.tid, {}, BlockingKind::StreamSync, e.start_ns, e.duration_ns, -1, false};
    const auto kind = classifier.classify(e, EventRef{l, i}, call);
    if (!kind) continue;
    if (e.end_ns() <= covered_end) continue;  // nested in a blocking call already counted
    t.blocked_ns += e.end_ns() - std::max(e.start_ns, covered_end);
    if (e.start_ns >= covered_end) {
      ++t.call_count;
      call.name = trace.name(e);
      call.kind = *kind;
      out.calls.push_back(std::move(call));
    }
    covered_end = e.end_ns();
  }
  if (t.call_count == 0) return;
  t.span_ns = last - first;
  t.blocked_share = safe_ratio(double(t.blocked_ns), double(t.span_ns));
  out.total_blocked_ns += t.blocked_ns;
  out.threads.push_back(std::move(t));
}

std::string what_blocked(const BlockingCall& c) {
  switch (c.kind) {
    case BlockingKind::PageableAsyncCopy:
      return c.name + (c.to_pageable ? " to pageable memory" : " from pageable memory");
    case BlockingKind::SyncCopy: return "Synchronous " + c.name;
    default: return c.name;
  }
}

// "Thread 646 (python3)" from the lane name "thread 646 (python3)"; the tid is not repeated.
std::string thread_label(std::int64_t tid, const std::string& name) {
  const std::string plain = "thread " + std::to_string(tid);
  if (name.empty() || name == plain) return "Thread " + std::to_string(tid);
  if (name.rfind(plain, 0) == 0) return "T" + name.substr(1);
  return "Thread " + std::to_string(tid) + " (" + name + ")";
}

std::vector<std::string> findings_for(HostBlocking& h) {
  struct Group {
    TimeNs total_ns = 0;
    std::size_t count = 0;
  };
  std::map<std::tuple<std::string, std::int64_t, std::int64_t>, Group> groups;  // (what, pid, tid)
  for (const BlockingCall& c : h.calls) {
    Group& g = groups[{what_blocked(c), c.pid, c.tid}];
    g.total_ns += c.duration_ns;
    ++g.count;
  }
  std::vector<std::pair<TimeNs, std::string>> ranked;
  TimeNs headline_ns = -1;
  for (const auto& [key, g] : groups) {
    const auto& [what, pid, tid] = key;
    ranked.emplace_back(g.total_ns, what + " blocked the host for " + format_duration(g.total_ns) + " (" +
                                        std::to_string(g.count) + " call(s), thread " + std::to_string(tid) + ").");
    if (g.total_ns > headline_ns) {
      headline_ns = g.total_ns;
      h.headline = ranked.back().second;
    }
  }
  for (const ThreadBlocking& t : h.threads)
    ranked.emplace_back(t.blocked_ns, thread_label(t.tid, t.name) + " waited for the GPU " +
                                          format_duration(t.blocked_ns) + " of its " + format_duration(t.span_ns) +
                                          " (" + percent(t.blocked_share) + ").");
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (auto& [ns, text] : ranked) out.push_back(std::move(text));
  if (out.empty()) out.emplace_back("No host thread waited for the GPU: no synchronizing calls or blocking copies.");
  return out;
}

}  // namespace

std::string_view to_string(BlockingKind kind) {
  static constexpr std::array<std::string_view, 6> kNames{"stream synchronize", "device synchronize",
                                                          "event synchronize",  "synchronization",
                                                          "synchronous copy",   "async copy with pageable memory"};
  return kNames[static_cast<std::size_t>(kind)];
}

bool blocking_kind_of_call(std::string_view n, BlockingKind& kind) {
  auto is = [&](BlockingKind k) { return kind = k, true; };
  if (n == "cudaStreamSynchronize" || n == "cuStreamSynchronize") return is(BlockingKind::StreamSync);
  if (n == "cudaDeviceSynchronize" || n == "cuCtxSynchronize" || n == "cudaThreadSynchronize")
    return is(BlockingKind::DeviceSync);
  if (n == "cudaEventSynchronize" || n == "cuEventSynchronize") return is(BlockingKind::EventSync);
  const bool copy = starts_with(n, "cudaMemcpy") || starts_with(n, "cuMemcpy");
  if (copy && !contains(n, "Async")) return is(BlockingKind::SyncCopy);
  return false;
}

bool is_async_copy_call(std::string_view n) {
  return (starts_with(n, "cudaMemcpy") || starts_with(n, "cuMemcpy")) && contains(n, "Async");
}

HostBlocking analyze_host_blocking(const Trace& trace) {
  HostBlocking out;
  Classifier classifier(trace);
  for (LaneIndex l = 0; l < trace.lanes().size(); ++l)
    if (!trace.lane(l).is_gpu()) scan_lane(trace, trace.lane(l), l, classifier, out);
  std::stable_sort(out.calls.begin(), out.calls.end(),
                   [](const BlockingCall& a, const BlockingCall& b) { return a.start_ns < b.start_ns; });
  out.findings = findings_for(out);
  return out;
}

}  // namespace gtv::analysis
