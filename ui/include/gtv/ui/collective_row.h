#pragma once
// The collectives of one rank of a merged run, as a row under the rank's GPU (NCCL) or process (Gloo): each matched
// collective from the rank's arrival to its end, the wait for peers in one colour and the transfer after it in
// another (analysis/stragglers.h: only waits that happened). The arrival is a tick; where the others waited for this
// rank (it arrived last, or was the root they needed) the tick is the straggler colour, and on the ranks that
// waited a dashed line marks that arrival, so one collective lines up across the rows. The tooltip names the
// collective, this rank's wait and transfer, and whom the others waited for; a click selects the rank's kernel or
// range.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gtv/ui/color_roles.h"
#include "gtv/ui/overlay_data.h"
#include "gtv/ui/palette.h"
#include "gtv/ui/timeline_row.h"

namespace gtv::ui {

inline constexpr Rgb kCollectiveWaitColor = role_color(ColorRole::PeerRank);  // the idle rows' "peer rank" colour
inline constexpr Rgb kCollectiveTransferColor = role_color(ColorRole::CollectiveTransfer);
inline constexpr Rgb kCollectiveUncountedColor = role_color(ColorRole::UnknownCause);  // waits not counted
inline constexpr Rgb kLastArrivalColor = role_color(ColorRole::LastArrival);

class CollectiveRow : public TimelineRow {
 public:
  explicit CollectiveRow(const RankCollectives& rank);  // rank must outlive the row

  [[nodiscard]] RowDesc desc() const override;
  void draw(const RowPaint& paint) const override;
  [[nodiscard]] QString tooltip_at(TimeNs t_ns, int depth, TimeNs pixel_ns, TimeNs origin_ns) const override;
  [[nodiscard]] bool has_content_in(TimeNs t0_ns, TimeNs t1_ns) const override;
  [[nodiscard]] std::optional<EventRef> event_at(TimeNs t_ns, int depth, TimeNs pixel_ns) const override;
  // Its colours, in one group with every other rank's row: the uncounted colour only where this rank has a part
  // whose waits are not counted.
  [[nodiscard]] std::vector<LegendGroup> legend() const override;

  // The part under t_ns (within pixel_ns), nullptr when none.
  [[nodiscard]] const CollectivePart* part_at(TimeNs t_ns, TimeNs pixel_ns) const;

 private:
  // The first part that may reach t_ns or later.
  [[nodiscard]] std::size_t first_reaching(TimeNs t_ns) const;
  const RankCollectives* rank_;
  std::vector<TimeNs> max_end_ns_;  // per part: the latest end of it and the parts before it
};

// Group header labels with each rank's clock (OverlayData::rank_clocks) after its "rank N · " prefix, in the
// header of the rank's first group only (its other headers keep their room for the process or GPU): labels[i] is
// lane i's group label, lanes as lane_descs gives them.
[[nodiscard]] std::vector<std::string> with_rank_clocks(
    std::vector<std::string> labels, const std::vector<LaneDesc>& lanes,
    const std::vector<std::pair<std::int64_t, std::string>>& clocks);
// group_labels(trace) with the ranks' clocks.
[[nodiscard]] std::vector<std::string> rank_group_labels(
    const Trace& trace, const std::vector<LaneDesc>& lanes,
    const std::vector<std::pair<std::int64_t, std::string>>& clocks);

}  // namespace gtv::ui
