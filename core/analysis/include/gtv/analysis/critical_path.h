#pragma once
// What bounds the region of interest: its critical path (core/causal), broken down by what each stretch was (GPU k
// computing, a copy, the host launching, the host's own work, a wait, tracing overhead, waiting for another rank),
// and each cause on it checked by removing it and replaying the run: the saving is what the region would gain.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/analysis/region.h"
#include "gtv/analysis/warmup.h"
#include "gtv/causal/critical_path.h"

namespace gtv::analysis {

// What held a GPU's work back in a stream gap or a launch latency on the path, from the recorded times of the work,
// the previous work of its stream and its launch call.
enum class GpuStartWait : std::uint8_t {
  None,
  DispatchGap,         // its launch returned before the previous work ended; started within kDispatchGapNs of it
  LaunchStillRunning,  // its launch call was still running when the previous work of its stream ended
  QueuedLonger,        // its launch returned before the previous work ended; started more than kDispatchGapNs after
  StagedCopy,          // a copy from pageable memory: its call staged the data in a pinned buffer before it started
};
// The longest gap between the end of a stream's work and the start of work already launched behind it that is the
// GPU's own dispatch. Over the 64 bundled H200 recordings, the 34,705 such gaps in which no other stream of the GPU
// ran: median 1.4 us, 99th percentile 3.6 us, 99.9th 8.6 us (copies to kernels take 9-10.2 us); 19 are longer: 16
// over 100 us (event waits) and 12.3, 15.1 and 22.5 us.
inline constexpr TimeNs kDispatchGapNs = 12 * kNsPerUs;

struct PathSegment {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  causal::SegmentKind kind = causal::SegmentKind::NotRecorded;
  bool has_event = false;
  EventRef event;            // the event whose time or input it is
  std::int64_t device = -1;  // GPU segments: the GPU, else -1
  int cause = -1;            // the cause it counts for (index into CriticalPathAnalysis::causes): its own, or for GPU
                             // time reached through a wait, that wait
  int first_use = -1;        // a first-use call's time: its WarmUpCause, else -1
  GpuStartWait start_wait = GpuStartWait::None;  // StreamGap and LaunchLatency: what held the work back
  [[nodiscard]] TimeNs length_ns() const { return end_ns - start_ns; }
};

// What a host thread's time on the path was where its kind alone says less: its work before its first CUDA call (no
// gap between calls: no replay moves a thread's first call), or a silence inside a range that says what the thread
// waited for (the collective a worker thread serves; a multiprocessing DataLoader's __next__).
enum class ShareContext : std::uint8_t { None, BeforeFirstCall, InsideCollective, InsideDataLoaderWait };

// Time on the path of one kind at one place.
struct PathShare {
  causal::SegmentKind kind = causal::SegmentKind::NotRecorded;
  std::string where;  // "GPU 0", "thread 1685", "rank 1 · GPU 0"
  ShareContext context = ShareContext::None;
  std::string range;  // the range of an Inside context ("gloo:all_reduce"), else empty
  TimeNs total_ns = 0;
  std::size_t segments = 0;
};

// "before_first_call", "inside_collective", "inside_data_loader_wait", "none".
[[nodiscard]] std::string_view context_key(ShareContext context);

// The host's own work between calls on the path inside one record_function range (the innermost one it ran in that
// is not a profiler step), summed over the threads that ran ranges of that name; `range` empty: outside any such
// range. A thread without ranges of its own (the autograd engine's) counts in the range its process's main thread
// (the one with the most ranges) was in. A thread's work before its first call is left out (no cause's, as in
// CauseSaving "host_own_work").
struct RangeWork {
  std::string range;
  TimeNs total_ns = 0;
};

// A cause on the path, checked by removing it and replaying.
struct CauseSaving {
  std::string key;        // stable: "lazy_loading", "tracing_overhead", "first_use", "host_launch", "host_own_work",
                          // "wait" (with `detail` naming the call)
  std::string cause;      // in words: "lazy module loading", "the host's waits in cudaMemcpyAsync to pageable memory"
  std::string detail;     // a wait: the call waited in ("cudaMemcpyAsync to pageable memory"); else empty
  TimeNs on_path_ns = 0;  // its own time on the critical path (for a wait: the host's part of it)
  TimeNs waited_ns = 0;   // a wait: the GPU work on the critical path the host waited for in it
  TimeNs saving_ns = 0;   // how much shorter the region would be without it
  // Where the GPUs' own work caps the saving: the replay's saving (which may let kernels that ran one at a time run
  // side by side at no cost), and what caps it ("GPU 0's work takes 1.20 ms of the 1.43 ms"); else -1 and empty.
  TimeNs replayed_ns = -1;
  std::string capped_by;
};

struct CriticalPathAnalysis {
  Region region;
  TimeNs length_ns = 0;               // the path's length: the region's, replayed unchanged
  TimeNs replay_error_ns = 0;         // unchanged replay against the recording, on the region's length
  bool truncated = false;             // corrupt links stopped the walk: the segments do not tile the region
  std::vector<PathSegment> segments;  // in time order, tiling the region
  std::vector<PathShare> shares;      // largest first
  std::vector<CauseSaving> causes;    // in the order the path met them (segments point at them by index)
  // The host's own work on the path by range, most first; empty when none of it ran inside a range.
  std::vector<RangeWork> own_work_by_range;
  std::vector<std::string> anomalies;  // what the graph left out, in words
  std::vector<std::string> lines;
  std::string headline;
};

// `threads`: how many threads (the caller's among them) may replay the causes at once; the result is the same.
[[nodiscard]] CriticalPathAnalysis analyze_critical_path(const Trace& trace, const causal::HappensBefore& graph,
                                                         const Region& region, const WarmUp& warmup,
                                                         unsigned threads = 1);

// "GPU 0 computing", "thread 1685 launching": a share's words.
[[nodiscard]] std::string share_phrase(const PathShare& share);

}  // namespace gtv::analysis
