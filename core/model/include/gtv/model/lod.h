#pragma once
// Level-of-detail query: what one lane shows in [t0, t1) at a given width in pixels. Events at least one pixel
// wide come back one by one; runs of sub-pixel events (and the gaps of under a pixel between them) are merged
// into counted blocks. The work is O(visible pixels * log n) per depth, never O(events), so a full view of
// ten million events costs about as much as a zoomed one.
#include <cstdint>
#include <vector>

#include "gtv/model/lane.h"

namespace gtv {

struct LodSpan {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::uint32_t first_index = 0;  // index into Lane::events of the first event in the span
  std::uint32_t count = 1;        // 1: a single event (first_index); >1: a merged block of that many events
  std::uint16_t depth = 0;
  friend bool operator==(const LodSpan&, const LodSpan&) = default;
};

struct LodRequest {
  TimeNs t0_ns = 0;
  TimeNs t1_ns = 0;
  double width_px = 1000;  // pixels that [t0, t1) spans
};

// Per depth of a lane, per block of kBlockEvents consecutive events at that depth: the longest event, the widest
// gap before an event (the first's from the previous block's last) and the last start. Zoomed out so far that a
// block's events and gaps are all under a pixel, query_lod passes the block whole instead of column by column: a
// frame of a ten-million-event lane reads a few megabytes of blocks in order, not a cache miss per pixel column.
struct LodSummary {
  static constexpr std::size_t kBlockEvents = 64;
  struct Block {
    TimeNs longest_ns = 0;
    TimeNs widest_gap_ns = 0;
    TimeNs last_start_ns = 0;
  };
  std::vector<std::vector<Block>> by_depth;
};
[[nodiscard]] LodSummary summarise_lod(const Lane& lane);

// Spans of lane visible in the request, ordered by depth, then start. Appends to out (cleared first). With summary
// (summarise_lod of this lane), the same spans, sooner when zoomed far out.
void query_lod(const Lane& lane, const LodRequest& request, std::vector<LodSpan>& out,
               const LodSummary* summary = nullptr);
[[nodiscard]] std::vector<LodSpan> query_lod(const Lane& lane, const LodRequest& request);

// Index into lane.by_depth[depth] of the first event at that depth that ends after t_ns (events at one depth
// are disjoint, so their ends are sorted too).
[[nodiscard]] std::size_t first_ending_after(const Lane& lane, int depth, TimeNs t_ns);
// The same, searched from `from`, an answer of this function for an earlier time (times that only go forward, as
// pixel columns do): strides that double from there bracket the answer, then a binary search in the bracket, so
// each search touches a few events near the last one instead of halving the whole lane.
[[nodiscard]] std::size_t first_ending_after(const Lane& lane, int depth, TimeNs t_ns, std::size_t from);

// The event under a point (time, depth), or -1: used for hover and click.
[[nodiscard]] std::int64_t event_at(const Lane& lane, int depth, TimeNs t_ns, TimeNs tolerance_ns = 0);

}  // namespace gtv
