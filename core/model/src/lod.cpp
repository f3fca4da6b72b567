#include "gtv/model/lod.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gtv {
namespace {

// Walks one depth of a lane. An event at least one pixel wide is emitted alone, always; a sub-pixel event is
// merged with the sub-pixel events that start in its pixel column, and the block grows column by column while the
// next event is also sub-pixel and starts within a pixel of the block's end. Events at one depth are disjoint, so
// after a sub-pixel event at most one wide event starts in the same column, and it is the column's last: one look
// at that event keeps it out of the block. Each step is one binary search, so the cost follows the number of pixel
// columns, not the number of events.
class DepthWalker {
 public:
  DepthWalker(const Lane& lane, int depth, const LodRequest& req, std::vector<LodSpan>& out,
              const std::vector<LodSummary::Block>* blocks)
      : events_(lane.events),
        index_(lane.by_depth[static_cast<std::size_t>(depth)]),
        depth_(depth),
        req_(req),
        ns_per_px_((static_cast<double>(req.t1_ns) - static_cast<double>(req.t0_ns)) / std::max(req.width_px, 1e-9)),
        out_(out),
        blocks_(blocks != nullptr &&
                        blocks->size() == (index_.size() + LodSummary::kBlockEvents - 1) / LodSummary::kBlockEvents
                    ? blocks
                    : nullptr) {}

  void run(std::size_t first) {
    std::size_t i = first;
    while (i < index_.size() && at(i).start_ns < req_.t1_ns) {
      if (wide(i)) {
        emit(i, i + 1);
        ++i;
      } else {
        i = merge_from(i);
      }
    }
  }

 private:
  [[nodiscard]] const Event& at(std::size_t i) const { return events_[index_[i]]; }
  [[nodiscard]] bool wide(std::size_t i) const { return static_cast<double>(at(i).duration_ns) >= ns_per_px_; }

  // Where a block that takes at(i)'s column ends: the first event of a later column, or the wide event that closes
  // the column (it is drawn alone).
  [[nodiscard]] std::size_t column_block_end(std::size_t i) {
    const std::size_t next = next_column(i, at(i).start_ns);
    return next - 1 > i && wide(next - 1) ? next - 1 : next;
  }

  // First position after i whose event starts in a later pixel column than t_ns.
  [[nodiscard]] std::size_t next_column(std::size_t i, TimeNs t_ns) {
    // In double: the request comes from the view and may span more than an int64 holds.
    const double t0 = static_cast<double>(req_.t0_ns);
    const double column = std::floor((static_cast<double>(std::max(t_ns, req_.t0_ns)) - t0) / ns_per_px_);
    const double end = std::ceil(t0 + (column + 1) * ns_per_px_);
    const TimeNs column_end = end >= 0x1p63 ? std::numeric_limits<TimeNs>::max() : static_cast<TimeNs>(end);
    // Probes near a guess instead of halving the rest of the lane: on ten million events nearly every probe of a
    // plain binary search is a cache miss. The guess is where the previous column's search ended, moved on by as
    // many events as that column held; from it, strides that double bracket the answer, then a binary search in
    // the bracket. Any guess gives the same answer; a good one takes a few probes near each other.
    const auto before = [&](std::size_t k) { return at(k).start_ns < column_end; };
    std::size_t lo = i + 1, hi = index_.size();  // before(k) for every k < lo; not before(k) for every k >= hi
    const std::size_t guess = std::min(hi, lo + advance_);
    if (guess < hi && before(guess)) {
      lo = guess + 1;
      for (std::size_t stride = 1; lo + stride - 1 < hi; stride *= 2) {
        const std::size_t k = lo + stride - 1;
        if (!before(k)) {
          hi = k;
          break;
        }
        lo = k + 1;
      }
    } else {
      hi = guess;
      for (std::size_t stride = 1; hi - lo > stride; stride *= 2) {
        const std::size_t k = hi - stride;
        if (before(k)) {
          lo = k + 1;
          break;
        }
        hi = k;
      }
    }
    auto it = std::lower_bound(index_.begin() + static_cast<std::ptrdiff_t>(lo),
                               index_.begin() + static_cast<std::ptrdiff_t>(hi), column_end,
                               [&](std::uint32_t e, TimeNs t) { return events_[e].start_ns < t; });
    advance_ = static_cast<std::size_t>(it - index_.begin()) - (i + 1);
    return static_cast<std::size_t>(it - index_.begin());
  }

  // The last position of the summary blocks from j's on whose events and gaps are all under a pixel and that start
  // before the request's end, or j. The column walk would pass every one of them into the block it grows: from
  // that position it ends the block where it would have.
  [[nodiscard]] std::size_t last_of_narrow_blocks(std::size_t j) const {
    if (blocks_ == nullptr) return j;
    std::size_t last = j;
    for (std::size_t b = j / LodSummary::kBlockEvents; b < blocks_->size(); ++b) {
      const LodSummary::Block& block = (*blocks_)[b];
      if (static_cast<double>(block.longest_ns) >= ns_per_px_ ||
          static_cast<double>(block.widest_gap_ns) >= ns_per_px_ || block.last_start_ns >= req_.t1_ns)
        break;
      last = std::min((b + 1) * LodSummary::kBlockEvents, index_.size()) - 1;
    }
    return std::max(last, j);
  }

  std::size_t merge_from(std::size_t i) {
    std::size_t j = column_block_end(last_of_narrow_blocks(i));
    while (j < index_.size() && at(j).start_ns < req_.t1_ns && !wide(j) &&
           static_cast<double>(at(j).start_ns - at(j - 1).end_ns()) < ns_per_px_) {
      j = column_block_end(last_of_narrow_blocks(j));
    }
    emit(i, j);
    return j;
  }

  void emit(std::size_t begin, std::size_t end) {
    LodSpan span;
    span.start_ns = at(begin).start_ns;
    span.end_ns = at(end - 1).end_ns();  // events at one depth are disjoint: the last ends last
    span.first_index = index_[begin];
    span.count = static_cast<std::uint32_t>(end - begin);
    span.depth = static_cast<std::uint16_t>(depth_);
    out_.push_back(span);
  }

  const std::vector<Event>& events_;
  const std::vector<std::uint32_t>& index_;
  int depth_;
  const LodRequest& req_;
  double ns_per_px_;
  std::vector<LodSpan>& out_;
  const std::vector<LodSummary::Block>* blocks_;  // this depth's summary, or null
  std::size_t advance_ = 0;                       // events the last column search moved over: the next search's guess
};

}  // namespace

std::size_t first_ending_after(const Lane& lane, int depth, TimeNs t_ns) {
  const auto& index = lane.by_depth[static_cast<std::size_t>(depth)];
  auto it = std::partition_point(index.begin(), index.end(),
                                 [&](std::uint32_t e) { return lane.events[e].end_ns() <= t_ns; });
  return static_cast<std::size_t>(it - index.begin());
}

std::size_t first_ending_after(const Lane& lane, int depth, TimeNs t_ns, std::size_t from) {
  const auto& index = lane.by_depth[static_cast<std::size_t>(depth)];
  const auto ends_by = [&](std::size_t k) { return lane.events[index[k]].end_ns() <= t_ns; };
  if (from >= index.size() || !ends_by(from)) return from;
  std::size_t lo = from + 1, step = 1;  // ends_by(k) for every k < lo
  while (lo + step <= index.size() && ends_by(lo + step - 1)) {
    lo += step;
    step *= 2;
  }
  const std::size_t hi = std::min(index.size(), lo + step);
  auto it = std::partition_point(index.begin() + static_cast<std::ptrdiff_t>(lo),
                                 index.begin() + static_cast<std::ptrdiff_t>(hi),
                                 [&](std::uint32_t e) { return lane.events[e].end_ns() <= t_ns; });
  return static_cast<std::size_t>(it - index.begin());
}

LodSummary summarise_lod(const Lane& lane) {
  LodSummary summary;
  summary.by_depth.resize(lane.by_depth.size());
  for (std::size_t d = 0; d < lane.by_depth.size(); ++d) {
    const std::vector<std::uint32_t>& index = lane.by_depth[d];
    std::vector<LodSummary::Block>& blocks = summary.by_depth[d];
    blocks.resize((index.size() + LodSummary::kBlockEvents - 1) / LodSummary::kBlockEvents);
    for (std::size_t k = 0; k < index.size(); ++k) {
      const Event& e = lane.events[index[k]];
      LodSummary::Block& block = blocks[k / LodSummary::kBlockEvents];
      block.longest_ns = std::max(block.longest_ns, e.duration_ns);
      if (k > 0) block.widest_gap_ns = std::max(block.widest_gap_ns, e.start_ns - lane.events[index[k - 1]].end_ns());
      block.last_start_ns = e.start_ns;
    }
  }
  return summary;
}

void query_lod(const Lane& lane, const LodRequest& request, std::vector<LodSpan>& out, const LodSummary* summary) {
  out.clear();
  if (request.t1_ns <= request.t0_ns || request.width_px <= 0) return;
  for (int depth = 0; depth < lane.depth_count(); ++depth) {
    const auto d = static_cast<std::size_t>(depth);
    DepthWalker walker(lane, depth, request, out,
                       summary != nullptr && d < summary->by_depth.size() ? &summary->by_depth[d] : nullptr);
    walker.run(first_ending_after(lane, depth, request.t0_ns));
  }
}

std::vector<LodSpan> query_lod(const Lane& lane, const LodRequest& request) {
  std::vector<LodSpan> out;
  query_lod(lane, request, out);
  return out;
}

std::int64_t event_at(const Lane& lane, int depth, TimeNs t_ns, TimeNs tolerance_ns) {
  if (depth < 0 || depth >= lane.depth_count()) return -1;
  const auto& index = lane.by_depth[static_cast<std::size_t>(depth)];
  // t_ns and tolerance_ns come from the pointer, not the trace: saturate so no sum can overflow.
  const TimeNs from_ns = saturating_sub(t_ns, tolerance_ns), to_ns = saturating_add(t_ns, tolerance_ns);
  std::size_t i = first_ending_after(lane, depth, from_ns);
  std::int64_t best = -1;
  TimeNs best_distance = 0;
  for (; i < index.size() && lane.events[index[i]].start_ns <= to_ns; ++i) {
    const Event& e = lane.events[index[i]];
    const TimeNs distance = t_ns < e.start_ns ? saturating_sub(e.start_ns, t_ns)
                                              : (t_ns > e.end_ns() ? saturating_sub(t_ns, e.end_ns()) : 0);
    if (best < 0 || distance < best_distance) {
      best = index[i];
      best_distance = distance;
    }
    if (distance == 0) break;
  }
  return best;
}

}  // namespace gtv
