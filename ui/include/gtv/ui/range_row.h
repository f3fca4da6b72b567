#pragma once
// The ranges a host thread recorded (scenario, phases, warm-up, iterations, model forwards; the `gtv` section's
// ranges) as one row, nested by depth like events in a lane. A forward range has its model's colour, the colour its
// GPU work has in the "model / range" colour mode, so a kernel is matched to its model by eye.
#include <cstdint>
#include <string>
#include <vector>

#include "gtv/model/trace.h"
#include "gtv/ui/palette.h"
#include "gtv/ui/timeline_row.h"

namespace gtv::ui {

struct WorkOwners;  // work_owner.h

struct PlacedRange {
  const Range* range = nullptr;
  int depth = 0;
  Rgb color = 0;
};

// Depth of each range (given sorted by start, longer first on ties): the number of ranges still open at its start,
// so ranges at one depth never overlap. Pure, unit tested.
[[nodiscard]] std::vector<int> range_depths(const std::vector<const Range*>& sorted_ranges);
// A range's fill: its owner's colour for a forward range that owns GPU work, else one colour per kind.
[[nodiscard]] Rgb range_color(const Range& range, const WorkOwners* owners);

class RangeRow : public TimelineRow {
 public:
  // ranges: the ranges of one thread (pid, tid); they must outlive the row (they live in the Trace).
  RangeRow(std::int64_t pid, std::int64_t tid, const std::vector<const Range*>& ranges, const WorkOwners* owners);

  // The ranges of a predicted run (a what-if), labelled as predicted rather than recorded.
  void set_predicted() { predicted_ = true; }

  [[nodiscard]] RowDesc desc() const override;
  void draw(const RowPaint& paint) const override;
  [[nodiscard]] QString tooltip_at(TimeNs t_ns, int depth, TimeNs pixel_ns, TimeNs origin_ns) const override;
  [[nodiscard]] const std::vector<PlacedRange>& placed() const { return placed_; }
  [[nodiscard]] bool has_content_in(TimeNs t0_ns, TimeNs t1_ns) const override;
  // The range drawn at t_ns in depth row `depth` (within slop_ns), or nullptr.
  [[nodiscard]] const PlacedRange* range_at(TimeNs t_ns, int depth, TimeNs slop_ns) const;

 private:
  std::int64_t pid_;
  std::int64_t tid_;
  std::vector<PlacedRange> placed_;  // sorted by start
  int depth_rows_ = 1;
  bool predicted_ = false;
};

}  // namespace gtv::ui
