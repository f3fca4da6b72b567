#include "gtv/analysis/host_blocking.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include "gtv/analysis/format.h"
#include "gtv/analysis/intervals.h"
#include "gtv/base/sorted_runs.h"
#include "gtv/model/cuda_calls.h"
#include "report/record_names.h"

namespace gtv::analysis {
namespace {

// A launch costs a few microseconds; one that took a millisecond waited for something.
constexpr TimeNs kLongLaunchNs = kNsPerMs;
// A launch that returns after its kernel ended waited for it, unless the kernel was so short that it could run
// while an asynchronous launch call was still returning: in the seed loop's asynchronous recordings 1-7 of 546
// launches end after their kernel, all of kernels under 20 us; with CUDA_LAUNCH_BLOCKING=1 all 546 do.
constexpr TimeNs kSynchronousLaunchMinKernelNs = 20 * kNsPerUs;

using detail::contains;
using detail::FirstKernelRuns;

bool is_pageable(MemoryKind kind) { return kind == MemoryKind::Pageable; }
bool is_launch_call(std::string_view n) { return cuda_call(n) == CudaCall::KernelLaunch; }

// GPU activity per device, for the question a long launch raises: did queued GPU work finish while it waited?
class GpuActivity {
 public:
  explicit GpuActivity(const Trace& trace) {
    for (const Lane& lane : trace.lanes()) {
      if (!lane.is_gpu()) continue;
      for (const Event& e : lane.events) {
        if (!is_gpu_activity(e.kind)) continue;
        by_device_[lane.device()].push_back({e.end_ns(), e.start_ns});
      }
    }
    for (auto& [device, spans] : by_device_) sort_runs(spans);
  }

  // Work already running when the call began and finished before it returned (on `device`, any GPU if -1).
  [[nodiscard]] bool drained_during(std::int64_t device, TimeNs start_ns, TimeNs end_ns) const {
    for (const auto& [d, spans] : by_device_) {
      if (device >= 0 && d != device) continue;
      auto it = std::upper_bound(spans.begin(), spans.end(), Span{start_ns, std::numeric_limits<TimeNs>::max()});
      for (; it != spans.end() && it->end_ns <= end_ns; ++it)
        if (it->start_ns < start_ns) return true;
    }
    return false;
  }

 private:
  struct Span {
    TimeNs end_ns = 0;
    TimeNs start_ns = 0;
    friend auto operator<=>(const Span&, const Span&) = default;
  };
  std::map<std::int64_t, std::vector<Span>> by_device_;  // sorted by end
};

// Kind of a host event, or nullopt. Cached per name for the name-only part.
class Classifier {
 public:
  explicit Classifier(const Trace& trace) : trace_(trace), by_name_(trace.strings().size(), kUnknown) {}

  std::optional<BlockingKind> classify(const Lane& lane, EventRef ref, BlockingCall& call) {
    const Event& e = lane.events[ref.index];
    if (e.kind == EventKind::Sync) {
      // CUPTI records a synchronization inside calls that do not block too (cudaEventQuery checks an event and
      // returns): only a record inside a blocking call, or inside no call at all, is a wait of the host.
      if (inside_call_that_does_not_block(e)) return std::nullopt;
      return sync_activity_kind(trace_.name(e));
    }
    if (e.kind == EventKind::Overhead) return queue_full(lane, ref, call);
    if (e.kind != EventKind::Runtime && e.kind != EventKind::Driver) return std::nullopt;
    std::int8_t& cached = by_name_[e.name];
    if (cached == kUnknown) cached = name_kind(trace_.name(e));
    if (cached >= 0) return static_cast<BlockingKind>(cached);
    if (cached == kLaunch) {
      if (auto drain = lazy_loading_drain(lane, ref, call)) return drain;
      return synchronous_launch(ref, call);
    }
    if (cached != kAsyncCopy) return std::nullopt;
    const auto flow = trace_.flow_of(ref);
    if (!flow || !(flow->from == ref)) return std::nullopt;  // no partner: cannot tell the memory kind
    const MemcpyDetail* copy = trace_.memcpy_detail(trace_.event(flow->to));
    if (!copy || !(is_pageable(copy->src_kind) || is_pageable(copy->dst_kind))) return std::nullopt;
    call.device = trace_.lane(flow->to.lane).device();
    call.to_pageable = is_pageable(copy->dst_kind);
    return BlockingKind::PageableAsyncCopy;
  }

  // Calls seen so far on the lane being scanned: the latest launch encloses a queue-full record inside it; the open
  // calls enclose a synchronization record.
  void note_call(const Event& e, EventRef ref) {
    if (e.kind != EventKind::Runtime && e.kind != EventKind::Driver) return;
    if (is_launch_call(trace_.name(e))) launch_ = ref;
    close_calls_before(e.start_ns);
    open_calls_.push_back(&e);
  }
  void start_lane() {
    launch_.reset();
    open_calls_.clear();
  }

 private:
  static constexpr std::int8_t kUnknown = -4, kLaunch = -3, kAsyncCopy = -2, kNone = -1;
  static std::int8_t name_kind(std::string_view name) {
    BlockingKind kind{};
    if (blocking_kind_of_call(name, kind)) return static_cast<std::int8_t>(kind);
    if (is_launch_call(name)) return kLaunch;
    return is_async_copy_call(name) ? kAsyncCopy : kNone;
  }
  static BlockingKind sync_activity_kind(std::string_view name) {
    if (contains(name, "Stream")) return BlockingKind::StreamSync;
    if (contains(name, "Event")) return BlockingKind::EventSync;
    if (contains(name, "Context") || contains(name, "Device")) return BlockingKind::DeviceSync;
    return BlockingKind::OtherSync;
  }

  // CUPTI times the wait itself in the "command buffer full" record: that, not the whole launch, is the stall.
  std::optional<BlockingKind> queue_full(const Lane& lane, EventRef ref, BlockingCall& call) const {
    const Event& e = lane.events[ref.index];
    if (!is_queue_full_record(trace_.name(e))) return std::nullopt;
    const Event* launch = launch_ ? &lane.events[launch_->index] : nullptr;
    const bool enclosed = launch && launch->start_ns <= e.start_ns && e.end_ns() <= launch->end_ns();
    call.name = std::string(trace_.name(enclosed ? *launch : e));
    call.launch_start_ns = enclosed ? launch->start_ns : e.start_ns;
    if (const auto flow = enclosed ? trace_.flow_of(*launch_) : std::nullopt; flow && flow->from == *launch_)
      call.device = trace_.lane(flow->to.lane).device();
    return BlockingKind::LaunchQueueFull;
  }

  // Lazy loading may need the context to be idle: the driver lets the queued work finish, then loads the module.
  // A long launch is such a drain when it loads (a lazy-loading record inside it, or its kernel's first run on
  // the device) and GPU work that was running when it began finished before it returned.
  std::optional<BlockingKind> lazy_loading_drain(const Lane& lane, EventRef ref, BlockingCall& call) {
    const Event& e = lane.events[ref.index];
    if (e.duration_ns < kLongLaunchNs) return std::nullopt;
    std::int64_t device = -1;
    bool loads = contains_lazy_loading(lane, ref.index);
    if (const auto flow = trace_.flow_of(ref); flow && flow->from == ref) {
      device = trace_.lane(flow->to.lane).device();
      loads = loads || first_runs_.is_first_run(device, trace_.event(flow->to));
    }
    if (!loads || !gpu().drained_during(device, e.start_ns, e.end_ns())) return std::nullopt;
    call.device = device;
    return BlockingKind::LazyLoadingDrain;
  }

  // The call returned only after the GPU work it launched had finished: the host waited for that work.
  std::optional<BlockingKind> synchronous_launch(EventRef ref, BlockingCall& call) const {
    if (!launches_block_) return std::nullopt;
    if (launch_returned_after_its_kernel(ref) != LaunchOutcome::AfterItsKernel) return std::nullopt;
    call.device = trace_.lane(trace_.flow_of(ref)->to.lane).device();
    return BlockingKind::SynchronousLaunch;
  }

 public:
  enum class LaunchOutcome { NotTelling, BeforeItsKernelEnded, AfterItsKernel };
  // A launch tells whether launches block only when its kernel ran long enough (an asynchronous launch may also
  // return after a shorter kernel).
  [[nodiscard]] LaunchOutcome launch_returned_after_its_kernel(EventRef ref) const {
    const auto flow = trace_.flow_of(ref);
    if (!flow || !(flow->from == ref)) return LaunchOutcome::NotTelling;
    const Event& launch = trace_.event(ref);
    const Event& work = trace_.event(flow->to);
    if (!is_gpu_activity(work.kind) || work.duration_ns < kSynchronousLaunchMinKernelNs)
      return LaunchOutcome::NotTelling;
    if (launch.end_ns() < work.end_ns() || work.start_ns < launch.start_ns) return LaunchOutcome::BeforeItsKernelEnded;
    return LaunchOutcome::AfterItsKernel;
  }
  // Launches of this lane block (CUDA_LAUNCH_BLOCKING=1, or a launch that synchronizes) when at least half of those
  // that can tell returned after their kernel: a few launches of a thread that otherwise runs ahead of the GPU
  // returned late because the host was slow there (descheduled, or the profiler's own work), not because they waited.
  void set_launches_block(bool block) { launches_block_ = block; }

 private:
  void close_calls_before(TimeNs t_ns) {
    while (!open_calls_.empty() && open_calls_.back()->end_ns() <= t_ns) open_calls_.pop_back();
  }

  // The innermost call enclosing e is an API call that does not block by itself (cudaEventQuery, cudaStreamQuery).
  bool inside_call_that_does_not_block(const Event& e) {
    close_calls_before(e.start_ns);
    if (open_calls_.empty() || open_calls_.back()->end_ns() < e.end_ns()) return false;
    std::int8_t& cached = by_name_[open_calls_.back()->name];
    if (cached == kUnknown) cached = name_kind(trace_.name(*open_calls_.back()));
    return cached < 0;
  }

  bool contains_lazy_loading(const Lane& lane, std::uint32_t index) const {
    const Event& call = lane.events[index];
    for (std::uint32_t j = index + 1; j < lane.events.size() && lane.events[j].start_ns < call.end_ns(); ++j) {
      const Event& e = lane.events[j];
      if (e.kind == EventKind::Overhead && e.end_ns() <= call.end_ns() && is_loading_record(trace_.name(e)))
        return true;
    }
    return false;
  }

  const GpuActivity& gpu() {
    if (!gpu_) gpu_.emplace(trace_);  // built only for traces with a long launch
    return *gpu_;
  }

  const Trace& trace_;
  std::vector<std::int8_t> by_name_;
  std::optional<EventRef> launch_;        // on the lane being scanned
  std::vector<const Event*> open_calls_;  // API calls on the lane being scanned that may still enclose what follows
  std::optional<GpuActivity> gpu_;
  FirstKernelRuns first_runs_{trace_};
  bool launches_block_ = true;
};

// Waits for room in the command queue inside one launch are one call, as the launch is.
bool same_launch(const BlockingCall& a, const BlockingCall& b) {
  return a.kind == BlockingKind::LaunchQueueFull && b.kind == BlockingKind::LaunchQueueFull && a.pid == b.pid &&
         a.tid == b.tid && a.launch_start_ns == b.launch_start_ns;
}

void scan_lane(const Trace& trace, const Lane& lane, LaneIndex l, Classifier& classifier, HostBlocking& out) {
  ThreadBlocking t{lane.key.pid, lane.key.tid, lane.name, 0, 0, 0, 0};
  TimeNs first = 0, last = 0, covered_end = std::numeric_limits<TimeNs>::min();
  const std::size_t calls_before = out.calls.size();
  classifier.start_lane();
  std::size_t telling = 0, after = 0;
  for (std::uint32_t i = 0; i < lane.events.size(); ++i) {
    const Event& e = lane.events[i];
    if ((e.kind != EventKind::Runtime && e.kind != EventKind::Driver) || !is_launch_call(trace.name(e))) continue;
    const auto outcome = classifier.launch_returned_after_its_kernel(EventRef{l, i});
    telling += outcome != Classifier::LaunchOutcome::NotTelling ? 1 : 0;
    after += outcome == Classifier::LaunchOutcome::AfterItsKernel ? 1 : 0;
  }
  classifier.set_launches_block(2 * after >= telling);
  for (std::uint32_t i = 0; i < lane.events.size(); ++i) {
    const Event& e = lane.events[i];
    first = i == 0 ? e.start_ns : first;
    last = std::max(last, e.end_ns());
    BlockingCall call{lane.key.pid, lane.key.tid, {}, BlockingKind::StreamSync, e.start_ns, e.duration_ns, -1, false};
    const auto kind = classifier.classify(lane, EventRef{l, i}, call);
    classifier.note_call(e, EventRef{l, i});
    if (!kind) continue;
    if (e.end_ns() <= covered_end) continue;  // nested in a blocking call already counted
    t.blocked_ns += e.end_ns() - std::max(e.start_ns, covered_end);
    if (e.start_ns >= covered_end) {
      if (call.name.empty()) call.name = trace.name(e);
      call.kind = *kind;
      const bool repeat = out.calls.size() > calls_before && same_launch(out.calls.back(), call);
      t.call_count += repeat ? 0 : 1;
      out.calls.push_back(std::move(call));
    }
    covered_end = e.end_ns();
  }
  if (out.calls.size() == calls_before) return;
  t.span_ns = last - first;
  t.blocked_share = safe_ratio(double(t.blocked_ns), double(t.span_ns));
  out.total_blocked_ns += t.blocked_ns;
  out.threads.push_back(std::move(t));
}

// "Thread 646 (python3)" from the lane name "thread 646 (python3)"; the tid is not repeated.
std::string thread_label(std::int64_t tid, const std::string& name) {
  const std::string plain = "thread " + std::to_string(tid);
  if (name.empty() || name == plain) return "Thread " + std::to_string(tid);
  if (name.rfind(plain, 0) == 0) return "T" + name.substr(1);
  return "Thread " + std::to_string(tid) + " (" + name + ")";
}

// A phrase opening a sentence: "synchronous cudaMemcpy" -> "Synchronous cudaMemcpy"; an identifier such as
// "cudaDeviceSynchronize" keeps its spelling.
std::string sentence_start(std::string phrase) {
  const std::string_view first_word = std::string_view(phrase).substr(0, phrase.find(' '));
  const bool identifier = std::any_of(first_word.begin(), first_word.end(),
                                      [](char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; });
  if (!phrase.empty() && !identifier)
    phrase[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(phrase[0])));
  return phrase;
}

struct CallGroup {
  BlockingKind kind = BlockingKind::StreamSync;
  std::string call_name;  // the API call, for kinds whose phrase does not name it
  TimeNs total_ns = 0;
  std::size_t count = 0;
  const BlockingCall* last = nullptr;
};

// One stall of one thread in words, its total and count in the same sentence.
std::string group_sentence(const std::string& what, std::int64_t tid, const CallGroup& g) {
  const std::string tail = " (" + std::to_string(g.count) + " call(s), thread " + std::to_string(tid) + ").";
  const std::string total = format_duration(g.total_ns);
  switch (g.kind) {
    case BlockingKind::LaunchQueueFull:
      return "Launch queue full: launches waited " + total + " for room in the GPU's command queue" + tail;
    case BlockingKind::LazyLoadingDrain:
      return "Lazy module loading drained the GPU: launches blocked the host for " + total +
             " while the driver let the queued GPU work finish and loaded their kernels" + tail;
    case BlockingKind::ImplicitSync:
      return g.call_name + " blocked the host for " + total + ": it synchronizes the device implicitly" + tail;
    case BlockingKind::SynchronousLaunch:
      return "Synchronous launches: launch calls returned only after their kernels finished, blocking the host for "
             "at least " +
             total + tail.substr(0, tail.size() - 2) + "; only launches of kernels of " +
             format_duration(kSynchronousLaunchMinKernelNs) +
             " or longer are counted, as an asynchronous launch may also return after a shorter kernel); "
             "CUDA_LAUNCH_BLOCKING=1 does this.";
    default:
      return sentence_start(what) + " blocked the host for " + total + tail;
  }
}

std::vector<std::string> findings_for(HostBlocking& h) {
  std::map<std::tuple<std::string, std::int64_t, std::int64_t>, CallGroup> groups;  // (what, pid, tid)
  for (const BlockingCall& c : h.calls) {
    CallGroup& g = groups[{describe_blocking(c), c.pid, c.tid}];
    g.kind = c.kind;
    g.call_name = c.name;
    g.total_ns += c.duration_ns;
    g.count += g.last && same_launch(*g.last, c) ? 0 : 1;
    g.last = &c;
  }
  std::vector<std::pair<TimeNs, std::string>> ranked;
  TimeNs headline_ns = -1;
  for (const auto& [key, g] : groups) {
    const auto& [what, pid, tid] = key;
    ranked.emplace_back(g.total_ns, group_sentence(what, tid, g));
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
  out.reserve(ranked.size() + 1);
  for (auto& [ns, text] : ranked) out.push_back(std::move(text));
  if (out.empty()) out.emplace_back("No host thread waited for the GPU: no synchronizing calls or blocking copies.");
  return out;
}

// Calls are sorted by start, so the waits of one launch are neighbours within their thread.
std::vector<StallTotal> stall_totals(const std::vector<BlockingCall>& calls) {
  std::array<StallTotal, kBlockingKindCount> by_kind{};
  std::map<std::pair<std::int64_t, std::int64_t>, const BlockingCall*> previous;  // per thread
  for (const BlockingCall& c : calls) {
    StallTotal& s = by_kind[static_cast<std::size_t>(c.kind)];
    const BlockingCall*& prev = previous[{c.pid, c.tid}];
    s.kind = c.kind;
    s.total_ns += c.duration_ns;
    s.call_count += prev && same_launch(*prev, c) ? 0 : 1;
    prev = &c;
  }
  std::vector<StallTotal> out;
  for (const StallTotal& s : by_kind)
    if (s.call_count > 0) out.push_back(s);
  std::stable_sort(out.begin(), out.end(),
                   [](const StallTotal& a, const StallTotal& b) { return a.total_ns > b.total_ns; });
  return out;
}

}  // namespace

std::string_view to_string(BlockingKind kind) { return entry_of(kBlockingKinds, kind).words; }

std::string_view blocking_kind_key(BlockingKind kind) { return entry_of(kBlockingKinds, kind).key; }

std::string describe_blocking(const BlockingCall& c) {
  switch (c.kind) {
    case BlockingKind::PageableAsyncCopy:
      return c.name + (c.to_pageable ? " to pageable memory" : " from pageable memory");
    case BlockingKind::SyncCopy:
      return "synchronous " + c.name;
    case BlockingKind::ImplicitSync:
      return c.name + " (implicit synchronization)";
    case BlockingKind::LaunchQueueFull:
      return "launch queue full";
    case BlockingKind::LazyLoadingDrain:
      return "lazy module loading drained the GPU";
    case BlockingKind::SynchronousLaunch:
      return "synchronous launches waiting for their kernels";
    default:
      return c.name;
  }
}

bool blocking_kind_of_call(std::string_view n, BlockingKind& kind) {
  auto is = [&](BlockingKind k) { return kind = k, true; };
  switch (cuda_call(n)) {
    case CudaCall::StreamSynchronize:
      return is(BlockingKind::StreamSync);
    case CudaCall::DeviceSynchronize:
      return is(BlockingKind::DeviceSync);
    case CudaCall::EventSynchronize:
      return is(BlockingKind::EventSync);
    case CudaCall::SyncCopy:
      return is(BlockingKind::SyncCopy);
    case CudaCall::Free:  // CUDA's stream-ordered allocator exists to avoid exactly this wait
      return is(BlockingKind::ImplicitSync);
    case CudaCall::Other:
    case CudaCall::Query:
    case CudaCall::AsyncCopy:
    case CudaCall::KernelLaunch:
    case CudaCall::OtherLaunch:
      break;
  }
  return false;
}

bool is_async_copy_call(std::string_view n) { return cuda_call(n) == CudaCall::AsyncCopy; }

HostBlocking analyze_host_blocking(const Trace& trace) {
  HostBlocking out;
  Classifier classifier(trace);
  for (LaneIndex l = 0; l < trace.lanes().size(); ++l)
    if (!trace.lane(l).is_gpu()) scan_lane(trace, trace.lane(l), l, classifier, out);
  std::stable_sort(out.calls.begin(), out.calls.end(),
                   [](const BlockingCall& a, const BlockingCall& b) { return a.start_ns < b.start_ns; });
  out.stalls = stall_totals(out.calls);
  out.findings = findings_for(out);
  return out;
}

}  // namespace gtv::analysis
