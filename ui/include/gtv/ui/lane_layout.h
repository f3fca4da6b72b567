#pragma once
// Vertical layout of the timeline: a header row per host process and per GPU, then its rows in three places: the
// rows placed at the group's top (recorded ranges), its event lanes (one row per visible lane, whose height follows
// its nesting depth), the rows placed at its bottom (counters). Every row is a TimelineRow known by its RowDesc and
// its string id: collapsed rows take one depth row; hidden rows and the rows of a collapsed group take none.
// Profiler bookkeeping groups (Kineto's own pseudo-processes) come last. Pure math in pixels from the top of the lane
// area, unit tested. In a run merged from rank files, groups come rank by rank (rank 0's processes and GPUs, then
// rank 1's).
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtv/model/trace.h"

namespace gtv::ui {

// Row: a TimelineRow (an event lane, ranges, counters), found by LaneRow::row.
enum class RowKind : std::uint8_t { ProcessHeader, DeviceHeader, Row };

// Where a row goes: in its group above its event lanes (ranges), among them (an event lane), below them (counters);
// or across the whole plot above every lane (AboveLanes: the measurement brackets) or below them (BelowLanes: the
// warm-up labels, the GPUs-busy strip, the idle rows). A row above or below the lanes is a band: it does not scroll
// with the lanes, is in no group, and takes the room the plot's height leaves it (fit_bands).
enum class RowPlace : std::uint8_t { Top, Lanes, Bottom, AboveLanes, BelowLanes };
[[nodiscard]] inline bool is_band(RowPlace place) {
  return place == RowPlace::AboveLanes || place == RowPlace::BelowLanes;
}

// A group is a process (host lanes) or a device (GPU lanes).
using GroupKey = std::pair<LaneKind, std::int64_t>;

// What is known about one event lane before it becomes a row (lane_descs), so tests need no Trace.
struct LaneDesc {
  LaneKey key;
  std::string name;
  int depth_count = 1;
  bool bookkeeping = false;  // its process holds only the profiler's own records (lane_descs)
  std::int64_t rank = -1;    // in a run merged from rank files, its rank: groups are shown rank by rank
};

// A row as the layout sees it (TimelineRow::desc gives these).
struct RowDesc {
  GroupKey group{LaneKind::HostThread, 0};
  RowPlace place = RowPlace::Top;
  std::string id;  // stable across loads of one file: LaneViewState keys rows by it
  std::string label;
  int depth_rows = 1;
  // The header of its group: the group's first event lane names it; a group of other rows alone is headed by the
  // first such row's label (default: "Process N" / "GPU N").
  std::string group_label;
  bool can_collapse = false;      // to one depth row (an event lane of nested events)
  bool bookkeeping = false;       // an event lane of the profiler's own records (lane_descs)
  std::int64_t rank = -1;         // an event lane's rank in a run merged from rank files
  std::optional<LaneIndex> lane;  // the event lane it draws, if it is one
  // A row that gives way to the GPU lanes (a counter series): hidden when the view focuses on the GPUs and when they
  // do not fit the first view; the Lanes panel lists it to show again.
  bool gives_way_to_gpus = false;
  // A band (is_band(place)): where the plot is too short for every band whole, bands keep their room in order of
  // keep_rank, lower first (those under kLanesKeepRank before the lanes get the room a view wants for them whole);
  // one that sheds_rows keeps as many of its depth rows as fit, any other all or none.
  int keep_rank = 0;
  bool sheds_rows = false;
  // A band the iteration marks run across (drawn before them); the marks stop at any other band.
  bool under_marks = false;
};

struct LaneRow {
  RowKind kind = RowKind::Row;
  GroupKey group{LaneKind::HostThread, 0};
  std::size_t row = 0;            // RowKind::Row only: index into the RowDescs given to the layout
  std::optional<LaneIndex> lane;  // RowKind::Row only: the event lane it draws, if it is one
  double top_px = 0;
  double height_px = 0;
  int depth_rows = 0;  // depth rows drawn (1 when collapsed)
  bool collapsed = false;
  bool can_collapse = false;
  std::string label;
  [[nodiscard]] double bottom_px() const { return top_px + height_px; }
};

// The label column left of the lanes: its edge can be dragged, as in Perfetto and Nsight Systems. Widths are at
// font scale 1 (the column grows with the presentation font); the column keeps at least kMinLabelColumnPx and leaves
// the time axis at least half the view.
inline constexpr double kDefaultLabelColumnPx = 240;
inline constexpr double kMinLabelColumnPx = 120;
inline constexpr double kMaxLabelColumnShare = 0.5;
// The column's width in pixels for a wanted width (at font scale 1) in a view view_width_px wide.
[[nodiscard]] double label_column_px(double wanted_px, double view_width_px, double font_scale);

struct LayoutOptions {
  double depth_px = 20;    // height of one depth row
  double header_px = 22;   // process / GPU header rows
  double lane_gap_px = 4;  // space under each lane
};

// The least lane area that still reads: a group header and one row of events.
[[nodiscard]] inline double readable_lanes_px(const LayoutOptions& o) {
  return o.header_px + o.depth_px + o.lane_gap_px;
}

// Which rows and groups are collapsed or hidden; rows by RowDesc::id.
struct LaneViewState {
  std::set<std::string> collapsed_rows;  // of rows that can collapse
  std::set<std::string> hidden_rows;
  // Rows drawn with at most this many depth rows (a figure: the depths its window uses).
  std::map<std::string, int> shown_depths;
  std::set<GroupKey> collapsed_groups;
  std::set<GroupKey> hidden_groups;  // neither header nor rows (a figure leaves out what it does not show)
};

class LaneLayout {
 public:
  LaneLayout() = default;
  // Rows in display order within each place of a group (event lanes in Trace::lanes() order). Groups come in the
  // order of their first event lane, then groups of other rows alone, each headed by its RowDesc::group_label.
  LaneLayout(const std::vector<RowDesc>& rows, const LaneViewState& state, const LayoutOptions& options);

  [[nodiscard]] const std::vector<LaneRow>& rows() const { return rows_; }
  [[nodiscard]] double total_height_px() const { return total_px_; }
  [[nodiscard]] const LayoutOptions& options() const { return options_; }
  // The row under y, or -1 (y in the gap under a lane belongs to that lane).
  [[nodiscard]] int row_at(double y_px) const;
  // Row of a lane, or -1 when hidden or inside a collapsed group.
  [[nodiscard]] int row_of_lane(LaneIndex lane) const;
  // Depth row under y within a lane row, or -1 (header, gap, outside).
  [[nodiscard]] int depth_at(int row, double y_px) const;
  // Top of a depth row within a lane row.
  [[nodiscard]] double depth_top_px(int row, int depth) const;

 private:
  std::vector<LaneRow> rows_;
  void add_header(GroupKey group, const std::string& label, bool collapsed);
  void add_row(std::size_t index, const RowDesc& desc, const LaneViewState& state);

  std::vector<int> row_of_lane_;
  double y_px_ = 0;  // while building
  double total_px_ = 0;
  LayoutOptions options_;
};

// The GPUs-busy strip and an idle-cause row, at font scale 1.
inline constexpr double kBusyStripPx = 36;
inline constexpr double kIdleRowPx = 15;

// The room a band wants in a view (TimelineRow::band_size): depth_rows rows of depth_px each and pad_px under
// the last; no depth rows: none.
struct BandSize {
  int depth_rows = 0;
  double depth_px = 0;
  double pad_px = 0;
  [[nodiscard]] double height_px(int rows) const {
    return rows > 0 ? static_cast<double>(rows) * depth_px + pad_px : 0;
  }
  [[nodiscard]] double height_px() const { return height_px(depth_rows); }
  bool operator==(const BandSize&) const = default;
};
// A band as fit_bands sees it: what it wants and its RowDesc's fitting properties.
struct BandRequest {
  std::size_t row = 0;  // index into the rows
  RowPlace place = RowPlace::BelowLanes;
  BandSize size;
  int keep_rank = 0;
  bool sheds_rows = false;
};
// Bands with a keep_rank under this keep their room before the lanes get what a view wants for them whole.
inline constexpr int kLanesKeepRank = 2;
// A band as fitted: its depth rows (fewer than it wants where it sheds rows), its top from the top of the axis rect
// (above the lanes) or from the bottom of the lanes (below them).
struct BandRow {
  std::size_t row = 0;  // index into the rows
  RowPlace place = RowPlace::BelowLanes;
  int depth_rows = 0;
  double depth_px = 0;
  double top_px = 0;
  double height_px = 0;
};
// The bands given room, in row order, and the room they take above and below the lanes.
struct BandLayout {
  std::vector<BandRow> rows;
  double above_px = 0;
  double below_px = 0;
};
[[nodiscard]] double full_band_px(const std::vector<BandRequest>& bands);  // every band whole
// What fits in an axis rect of a given height: every band whole where there is room with the lanes keeping
// max(min_lanes_px, wanted_lanes_px); else the lanes keep min_lanes_px (a group header and a row of events) and the
// bands take the rest in order of keep_rank, the lanes taking up to wanted_lanes_px (a compare panel: its GPUs and
// the rows under them) where that fits whole at kLanesKeepRank. A band that does not fit whole (or, shedding rows,
// with one row) is left out, so no band ever overlaps the lanes or another band, whatever the height. Bands stack
// in row order: those above the lanes down from the axis rect's top, those below down from the lanes' bottom.
[[nodiscard]] BandLayout fit_bands(const std::vector<BandRequest>& bands, double min_lanes_px, double wanted_lanes_px,
                                   double axis_height_px);

[[nodiscard]] GroupKey group_of(const LaneKey& key);
// Whether a host lane holds only the profiler's own records: its overhead (CUPTI's buffer requests and flushes),
// its markers, Kineto's "Trace" spans. An empty lane does not.
[[nodiscard]] bool holds_only_profiler_records(const Trace& trace, const Lane& lane);
// "Process 1234" / "GPU 1": the header of a group known only from its key.
[[nodiscard]] std::string other_group_label(GroupKey group);
// LaneDescs and one label per lane's group ("Process 1234 python", "GPU 0  NVIDIA H200") from a trace. A host
// process is bookkeeping when none of its events is an operator, API call, sync or annotation: Kineto's "Spans" and
// "Traces" pseudo-processes, its overhead records.
[[nodiscard]] std::vector<LaneDesc> lane_descs(const Trace& trace);
// What each group holds, said on its header while it is collapsed: "1 stream · 364 kernels · 231 memsets" for a GPU,
// "2 threads · 6,485 events" for a process (zero counts left out).
[[nodiscard]] std::map<GroupKey, std::string> group_summaries(const Trace& trace);
[[nodiscard]] std::vector<std::string> group_labels(const Trace& trace);

}  // namespace gtv::ui
