#pragma once
// The critical path of the report's region as a row under every lane (analysis/critical_path.h): each stretch in
// the colour of what it was (a GPU computing, copying, the host launching, blocked in a waiting call, loading
// modules, ...); zoomed out, each pixel in the colour of the kind with the most time in it. Its tooltip says what the
// stretch was, where and how long; a click selects the event it belongs to.
#include <cstdint>
#include <limits>
#include <optional>

#include "gtv/ui/kind_columns.h"
#include "gtv/ui/overlay_data.h"
#include "gtv/ui/palette.h"
#include "gtv/ui/timeline_row.h"

namespace gtv::ui {

// The row's group: a header of its own under the lanes, never a process's or a GPU's.
inline constexpr GroupKey kCriticalPathGroup{LaneKind::HostThread, std::numeric_limits<std::int64_t>::min()};

// Colour of a causal::SegmentKind (as an index); the hues of the idle rows and event kinds where the meaning is the
// same (the host blocked is the idle rows' red, a copy the copies' red-brown).
[[nodiscard]] Rgb critical_segment_color(int kind);

class CriticalPathRow : public TimelineRow {
 public:
  explicit CriticalPathRow(const CriticalPathSpans& path);  // path must outlive the row

  [[nodiscard]] RowDesc desc() const override;
  void draw(const RowPaint& paint) const override;
  [[nodiscard]] QString tooltip_at(TimeNs t_ns, int depth, TimeNs pixel_ns, TimeNs origin_ns) const override;
  [[nodiscard]] std::optional<EventRef> event_at(TimeNs t_ns, int depth, TimeNs pixel_ns) const override;
  // The kinds of stretch on the path, most time first: the colours of this path's row.
  [[nodiscard]] std::vector<LegendGroup> legend() const override;

 private:
  [[nodiscard]] const CriticalStretch* stretch_at(TimeNs t_ns, TimeNs pixel_ns) const;
  [[nodiscard]] KindRun run_at(std::size_t i) const;
  const CriticalPathSpans* path_;
  KindColumns columns_;  // the stretches by pixel column
};

}  // namespace gtv::ui
