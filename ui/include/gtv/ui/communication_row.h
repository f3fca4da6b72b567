#pragma once
// Communication against computation on one GPU, as a row under its lanes (analysis/communication.h): the time its
// NCCL kernels ran beside computation kernels in one colour, the time they ran alone (exposed: the GPU did nothing
// but wait for and move data) in another. The spans are the analysis's merged intervals, so a paint visits only
// those in the window; spans narrower than a pixel still take one.
#include <string>
#include <vector>

#include "gtv/ui/overlay_data.h"
#include "gtv/ui/palette.h"
#include "gtv/ui/timeline_row.h"

namespace gtv::ui {

inline constexpr Rgb kCommunicationOverlapColor = role_color(ColorRole::NcclOverlap);  // hidden behind work
inline constexpr Rgb kCommunicationExposedColor = role_color(ColorRole::NcclExposed);  // alone: exposed

class CommunicationRow : public TimelineRow {
 public:
  explicit CommunicationRow(const CommunicationSpans& spans);  // spans must outlive the row

  [[nodiscard]] RowDesc desc() const override;
  void draw(const RowPaint& paint) const override;
  [[nodiscard]] QString tooltip_at(TimeNs t_ns, int depth, TimeNs pixel_ns, TimeNs origin_ns) const override;
  // Its two colours, in one group with every other GPU's row.
  [[nodiscard]] std::vector<LegendGroup> legend() const override;

 private:
  const CommunicationSpans* spans_;
};

}  // namespace gtv::ui
