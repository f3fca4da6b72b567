#pragma once
// Runs of kinds along time, summarised per pixel column: each column takes the kind that holds the most time in
// it, the one rule of the rows that summarise time zoomed out (the GPUs-busy strip, the critical path, the idle
// rows). A run is [start_ns, end_ns) of one kind in [0, kinds); runs are sorted by start and do not overlap. Every
// block of kBlockRuns runs keeps its time per kind, so a column that covers thousands of runs adds up a few blocks
// instead of visiting every run: a frame of a whole 10M-event trace costs about its pixels, not its runs. Plain
// numbers (no Qt), unit tested against a run-by-run sum.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "gtv/base/time.h"

namespace gtv::ui {

struct KindRun {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int kind = 0;
};

// One pixel column: the kind with the most time in it (-1: no run there) and that time; and among the kinds above 0
// (a busy count above zero), the one with the most time and their time together, so a row can show work that holds
// less than half of a column.
struct KindColumn {
  int kind = -1;
  TimeNs kind_ns = 0;
  int above_zero_kind = -1;
  TimeNs above_zero_ns = 0;
};

class KindColumns {
 public:
  static constexpr std::size_t kBlockRuns = 128;

  KindColumns() = default;
  // run_at(i) gives run i (a KindRun) of count.
  template <typename RunAt>
  KindColumns(std::size_t count, int kinds, const RunAt& run_at) : count_(count), kinds_(std::max(kinds, 1)) {
    const std::size_t blocks = count / kBlockRuns;  // whole blocks only: the last few runs are visited one by one
    block_ns_.assign(blocks * static_cast<std::size_t>(kinds_), 0);
    block_end_ns_.resize(blocks);
    for (std::size_t b = 0; b < blocks; ++b) {
      for (std::size_t i = b * kBlockRuns; i < (b + 1) * kBlockRuns; ++i) {
        const KindRun r = run_at(i);
        block_ns_[b * static_cast<std::size_t>(kinds_) + static_cast<std::size_t>(clamp_kind(r.kind))] +=
            r.end_ns - r.start_ns;
      }
      block_end_ns_[b] = run_at((b + 1) * kBlockRuns - 1).end_ns;
    }
  }

  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] int kinds() const { return kinds_; }

  // The columns of window [t0_ns, t1_ns) drawn width_px pixels wide (column c covers [t0 + c*w, t0 + (c+1)*w) with
  // w = (t1 - t0) / width_px), into out (resized to width_px). run_at as given to the constructor.
  template <typename RunAt>
  void columns(const RunAt& run_at, TimeNs t0_ns, TimeNs t1_ns, int width_px, std::vector<KindColumn>& out) const {
    out.assign(static_cast<std::size_t>(std::max(width_px, 0)), KindColumn{});
    if (width_px <= 0 || t1_ns <= t0_ns || count_ == 0) return;
    const double ns_per_px = static_cast<double>(t1_ns - t0_ns) / width_px;
    const auto column_end = [&](int c) {
      return c + 1 >= width_px ? t1_ns : t0_ns + static_cast<TimeNs>(std::llround((c + 1) * ns_per_px));
    };
    std::vector<TimeNs> kind_ns(static_cast<std::size_t>(kinds_), 0);
    int column = 0;
    TimeNs col_start = t0_ns, col_end = column_end(0);
    const auto finish_column = [&] {
      const auto top = std::max_element(kind_ns.begin(), kind_ns.end());
      KindColumn& col = out[static_cast<std::size_t>(column)];
      if (*top > 0) {
        col.kind = static_cast<int>(top - kind_ns.begin());
        col.kind_ns = *top;
      }
      const auto top_above = std::max_element(kind_ns.begin() + 1, kind_ns.end());
      if (top_above != kind_ns.end() && *top_above > 0) {
        col.above_zero_kind = static_cast<int>(top_above - kind_ns.begin());
        for (auto k = kind_ns.begin() + 1; k != kind_ns.end(); ++k) col.above_zero_ns += *k;
      }
      std::fill(kind_ns.begin(), kind_ns.end(), 0);
      ++column;
      col_start = col_end;
      if (column < width_px) col_end = column_end(column);
    };
    std::size_t i = first_ending_after(run_at, t0_ns);
    while (i < count_ && column < width_px) {
      // A whole block inside the column: its time per kind at once.
      if (i % kBlockRuns == 0 && i / kBlockRuns < block_end_ns_.size() && run_at(i).start_ns >= col_start &&
          block_end_ns_[i / kBlockRuns] <= col_end) {
        const TimeNs* block = &block_ns_[(i / kBlockRuns) * static_cast<std::size_t>(kinds_)];
        for (std::size_t k = 0; k < kind_ns.size(); ++k) kind_ns[k] += block[k];
        i += kBlockRuns;
        continue;
      }
      const KindRun r = run_at(i);
      if (r.start_ns >= t1_ns) break;
      while (column < width_px && r.start_ns >= col_end) finish_column();
      if (column >= width_px) break;
      const auto kind = static_cast<std::size_t>(clamp_kind(r.kind));
      // The run's part in each column it reaches; a run wider than a column fills it alone.
      for (bool more = column < width_px; more; more = column < width_px) {
        const TimeNs from = std::max(r.start_ns, col_start), to = std::min(r.end_ns, col_end);
        if (to > from) kind_ns[kind] += to - from;
        if (r.end_ns < col_end) break;
        finish_column();  // moves column on
      }
      ++i;
    }
    if (column < width_px) finish_column();
  }

 private:
  [[nodiscard]] int clamp_kind(int kind) const { return std::clamp(kind, 0, kinds_ - 1); }
  // The first run ending after t_ns (runs do not overlap, so their ends are sorted too).
  template <typename RunAt>
  [[nodiscard]] std::size_t first_ending_after(const RunAt& run_at, TimeNs t_ns) const {
    std::size_t lo = 0, hi = count_;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (run_at(mid).end_ns <= t_ns)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  }

  std::size_t count_ = 0;
  int kinds_ = 1;
  std::vector<TimeNs> block_ns_;      // per whole block, per kind: its runs' time
  std::vector<TimeNs> block_end_ns_;  // per whole block: its last run's end
};

}  // namespace gtv::ui
