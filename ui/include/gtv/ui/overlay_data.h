#pragma once
// Analysis results the timeline draws over the lanes, as plain values so the view does not depend on how the
// analysis computes them: warm-up spans, idle intervals by cause, measurement brackets, iteration marks, the
// GPUs-busy strip. Derived once from the document's analysis::Report (document_analysis.cpp).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gtv/analysis/intervals.h"
#include "gtv/base/time.h"
#include "gtv/model/records.h"

namespace gtv::ui {

struct WorkOwners;  // work_owner.h

// One span of first-use work: exactly the calls or kernel run of a warm-up finding, never a segment around them.
struct ShadedSegment {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::string label;        // "warm-up: module loading (GPU 0)"
  std::string tooltip;      // the finding in words: cause, device, calls, cost
  std::size_t finding = 0;  // index of its finding: spans of one finding share a label row
};

// One idle interval of one GPU, attributed to one cause.
struct IdleBand {
  std::int64_t device = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int cause = 0;        // analysis::IdleCause as an index: the colour (idle_cause_color)
  std::string tooltip;  // "GPU 1 idle 4.43 ms: host blocked (cudaMemcpyAsync to pageable memory)"
};

// One measurement's host interval (or its truth, host start to the end of its GPU work) above the lanes.
struct Bracket {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::string name;     // the measurement's name: "first matmul N=4 on cuda:0" (may be empty)
  std::string figure;   // method and number: "stopwatch 56.6 ms", "truth 65.2 ms"
  int method = 0;       // colour index
  std::string tooltip;  // every word of it, for a label that had to be shortened
  [[nodiscard]] std::string label() const { return name.empty() ? figure : name + " \u2014 " + figure; }
};

struct Mark {
  TimeNs time_ns = 0;
  std::string label;
};

// A step function: from each point until the next, `value` GPUs were busy.
struct Step {
  TimeNs time_ns = 0;
  int value = 0;
};

// One stretch of the critical path (analysis/critical_path.h), copied from the report for its row.
struct CriticalStretch {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int kind = 0;                   // causal::SegmentKind as an index: the colour (critical_segment_color)
  std::optional<EventRef> event;  // the event whose time or input it is: a click selects it
  int place = -1;                 // index into CriticalPathSpans::places, where it happened; -1: unknown
};

// The critical path of the report's region: the chain of work and waits whose lengthening lengthens the region.
struct CriticalPathSpans {
  std::string region;    // "timed loop", "ProfilerStep#3", "whole trace"
  std::string headline;  // the analysis's verdict sentence
  TimeNs length_ns = 0;
  std::vector<CriticalStretch> stretches;  // by start, tiling the region
  std::vector<std::string> places;         // "GPU 0 / stream 7", "Process 12 / thread 1685": one per lane on it
  [[nodiscard]] bool empty() const { return stretches.empty(); }
};

// One GPU's communication against computation, copied from the report for its timeline row (communication_row.h).
struct CommunicationSpans {
  std::int64_t device = 0;
  std::string gpu;     // "rank 1 · GPU 0"
  std::string totals;  // the analysis's sentence for the GPU
  std::vector<analysis::Interval> overlap;
  std::vector<analysis::Interval> exposed;
};

// One rank's part in one matched collective (analysis/stragglers.h), for the rank's collective row
// (collective_row.h): from its arrival it waited for peers until wait_end_ns, then moved data until end_ns.
struct CollectivePart {
  TimeNs arrival_ns = 0;
  TimeNs wait_end_ns = 0;  // arrival_ns when it waited for nobody (or its wait is unknown)
  TimeNs end_ns = 0;
  TimeNs last_arrival_ns = -1;  // when the rank the others waited for arrived; -1 when nobody waited
  std::uint32_t instance = 0;   // index into RankCollectives::instances
  bool culprit = false;         // this rank is the one the others waited for at this collective
  bool counted = true;          // false: a kind or an instance whose waits gtv does not count (clocks, no root)
  EventRef ref;                 // the rank's kernel or Gloo range: a click selects it
};

// One collective joined across the ranks, in words: what each rank's tooltip says about the others.
struct CollectiveInstance {
  std::string name;     // "all-reduce #3"
  std::string summary;  // "rank 2 arrived last, 10.0 ms after the first; the others waited 24.6 ms (rank 0 ...)"
};

// The collectives of one rank as its row draws them; parts by arrival.
struct RankCollectives {
  std::int64_t rank = 0;
  bool on_gpu = true;      // NCCL kernels (the row goes under a GPU), else Gloo ranges (under a process)
  std::int64_t group = 0;  // the GPU (device id) or the process (pid) the collectives ran in
  std::string where;       // "rank 1 · GPU 0", "rank 2 · Process 4242"
  std::vector<CollectivePart> parts;
  std::shared_ptr<const std::vector<CollectiveInstance>> instances;  // shared by every rank's row
};

struct OverlayData {
  std::vector<ShadedSegment> warmup;          // by start
  std::vector<IdleBand> idle;                 // by device, then start (per device the intervals do not overlap)
  std::vector<std::int64_t> idle_devices;     // one idle row per device, in this order
  std::vector<std::string> idle_labels;       // "GPU 1", "rank 1 · GPU 0": the name of each row's GPU
  std::vector<std::string> idle_cause_names;  // per cause index: "host blocked", ... (the strip's legend)
  std::vector<Bracket> brackets;
  std::vector<Mark> iterations;
  // The busy strip under the lanes: how many GPUs were busy; on a trace with one GPU, how many of its streams (the
  // overlap a single GPU can have). busy_gpus holds the count, gpu_count the most there could be.
  std::vector<Step> busy_gpus;
  int gpu_count = 0;
  std::string strip_unit = "GPUs";        // "GPUs", or "streams of GPU 0"
  std::string strip_label = "GPUs busy";  // the strip's name in the label column
  // Who launched each GPU event (shared, not copied: one entry per event): the timeline's colours by model.
  std::shared_ptr<const WorkOwners> owners;
  std::vector<CommunicationSpans> communication;  // GPUs that ran communication kernels, by device
  CriticalPathSpans critical_path;                // empty when the report found no region or no path
  std::vector<RankCollectives> collectives;       // a merged run with matched collectives: one per rank, by rank
  // Per rank (by rank number) what the collectives that end together say of its clock against the first rank's,
  // for its group headers: "reference clock", "clock +187 us ±2.5 ms", "clock shifted -302 us ±1.0 us"
  // (moved by the merge); empty without a merged run or a collective that measures clocks.
  std::vector<std::pair<std::int64_t, std::string>> rank_clocks;
};

// The idle intervals of one device (a slice of o.idle, by start).
[[nodiscard]] std::span<const IdleBand> idle_of_device(const OverlayData& o, std::int64_t device);
// The first of `bands` (one device's, by start) that ends at or after t0_ns: where a draw of [t0, t1] begins.
[[nodiscard]] std::size_t first_idle_ending_after(std::span<const IdleBand> bands, TimeNs t0_ns);
// Hit tests for tooltips: the idle interval of `device` or the warm-up span under time t_ns, within tolerance_ns
// (a pixel's worth of time, so a span narrower than a pixel can still be hovered); nullptr when none.
[[nodiscard]] const IdleBand* idle_band_at(const OverlayData& o, std::int64_t device, TimeNs t_ns, TimeNs tolerance_ns);
[[nodiscard]] const ShadedSegment* warmup_at(const OverlayData& o, TimeNs t_ns, TimeNs tolerance_ns);

// The GPUs-busy strip over [t0_ns, t1_ns) (one pixel's time): the fewest and most GPUs busy there, and the exact
// bounds of the steps that cover it. nullopt outside the strip's steps.
struct BusyOverSpan {
  int min_busy = 0;
  int max_busy = 0;
  TimeNs start_ns = 0;  // start of the first step that covers t0_ns
  TimeNs end_ns = 0;    // end of the last step that covers the span
  std::size_t steps = 0;
};
[[nodiscard]] std::optional<BusyOverSpan> busy_over(const OverlayData& o, TimeNs t0_ns, TimeNs t1_ns);

}  // namespace gtv::ui
