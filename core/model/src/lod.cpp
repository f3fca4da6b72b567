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
  DepthWalker(const Lane& lane, int depth, const LodRequest& req, std::vector<LodSpan>& out)
      : events_(lane.events),
        index_(lane.by_depth[static_cast<std::size_t>(depth)]),
        depth_(depth),
        req_(req),
        ns_per_px_((static_cast<double>(req.t1_ns) - static_cast<double>(req.t0_ns)) / std::max(req.width_px, 1e-9)),
        out_(out) {}

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
  [[nodiscard]] std::size_t column_block_end(std::size_t i) const {
    const std::size_t next = next_column(i, at(i).start_ns);
    return next - 1 > i && wide(next - 1) ? next - 1 : next;
  }

  // First position after i whose event starts in a later pixel column than t_ns.
  [[nodiscard]] std::size_t next_column(std::size_t i, TimeNs t_ns) const {
    // In double: the request comes from the view and may span more than an int64 holds.
    const double t0 = static_cast<double>(req_.t0_ns);
    const double column = std::floor((static_cast<double>(std::max(t_ns, req_.t0_ns)) - t0) / ns_per_px_);
    const double end = std::ceil(t0 + (column + 1) * ns_per_px_);
    const TimeNs column_end = end >= 0x1p63 ? std::numeric_limits<TimeNs>::max() : static_cast<TimeNs>(end);
    auto it = std::lower_bound(index_.begin() + static_cast<std::ptrdiff_t>(i) + 1, index_.end(), column_end,
                               [&](std::uint32_t e, TimeNs t) { return events_[e].start_ns < t; });
    return static_cast<std::size_t>(it - index_.begin());
  }

  std::size_t merge_from(std::size_t i) {
    std::size_t j = column_block_end(i);
    while (j < index_.size() && at(j).start_ns < req_.t1_ns && !wide(j) &&
           static_cast<double>(at(j).start_ns - at(j - 1).end_ns()) < ns_per_px_) {
      j = column_block_end(j);
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
};

}  // namespace

std::size_t first_ending_after(const Lane& lane, int depth, TimeNs t_ns) {
  const auto& index = lane.by_depth[static_cast<std::size_t>(depth)];
  auto it = std::partition_point(index.begin(), index.end(),
                                 [&](std::uint32_t e) { return lane.events[e].end_ns() <= t_ns; });
  return static_cast<std::size_t>(it - index.begin());
}

void query_lod(const Lane& lane, const LodRequest& request, std::vector<LodSpan>& out) {
  out.clear();
  if (request.t1_ns <= request.t0_ns || request.width_px <= 0) return;
  for (int depth = 0; depth < lane.depth_count(); ++depth) {
    DepthWalker walker(lane, depth, request, out);
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
