#pragma once
// TimelineView: the lanes of one trace on a time axis. A QCustomPlot with one LanePlottable (LOD drawing), a
// header layer with lane names and an overlay layer; input is handled here (see timeline_input.cpp) so every
// zoom and pan goes through the tested TimeWindow math.
#include <QString>
#include <QWidget>
#include <memory>
#include <optional>

#include "gtv/ui/timeline_state.h"

class QCustomPlot;
class QScrollBar;

namespace gtv::ui {

class LanePlottable;
class TimeTicker;

// The window search's Next shows a match in: span_ns wide (at least the match and a fifth more), centred on the
// match; near the trace's start or end narrower, still centred, rather than show time outside the trace, as far
// as the match fits; a match at the very edge starts or ends the window.
[[nodiscard]] TimeWindow centred_match_window(TimeNs start_ns, TimeNs duration_ns, TimeNs span_ns,
                                              TimeNs trace_start_ns, TimeNs trace_end_ns);

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);
  ~TimelineView() override;

  void set_trace(std::shared_ptr<const Trace> trace);
  [[nodiscard]] const Trace* trace() const { return state_.trace.get(); }
  // Also picks the colour mode, unless one was chosen for this trace: by model/range when owners own most GPU work.
  void set_overlays(OverlayData overlays);
  // What events are coloured by (kept per view, so per tab); C cycles through the modes.
  void set_color_mode(ColorMode mode);
  [[nodiscard]] ColorMode color_mode() const { return state_.color_mode; }
  void cycle_color_mode();
  // Bracket labels stay left of t_ns (nullopt: anywhere in the plot).
  void set_labels_before_ns(std::optional<TimeNs> t_ns);
  void set_theme(const Theme& theme);
  [[nodiscard]] const Theme& theme() const { return state_.theme; }
  // The label column's width at font scale 1 (kDefaultLabelColumnPx until set or dragged); what is drawn is
  // label_column_px() of it, so the time axis keeps half the view.
  void set_label_column_width(double px);
  [[nodiscard]] double label_column_width() const { return label_column_width_px_; }

  // Time window; set_window clamps to bounds() (the trace extent with a small margin).
  [[nodiscard]] TimeWindow window() const { return state_.window; }
  [[nodiscard]] TimeWindow bounds() const;
  // Replaces bounds() (nullopt: the trace's extent again), so a view can share an axis with a longer run.
  void set_bounds(std::optional<TimeWindow> bounds);
  void set_window(TimeWindow window);
  void fit();
  void zoom_at(double x_px, double factor);  // x in plot pixels; factor > 1 zooms in
  void zoom_by(double factor);               // around the centre
  void pan_by_px(double dx_px);
  void zoom_to_selection();
  [[nodiscard]] double scroll_px() const { return state_.scroll_px; }
  void set_scroll_px(double y_px);
  // How far the lanes scroll: to the first row top from which every row below fits (0 when all fit).
  [[nodiscard]] double max_scroll_px() const;

  [[nodiscard]] const LaneLayout& layout() const { return state_.layout; }
  // Row heights for a theme (its font scale).
  [[nodiscard]] static LayoutOptions layout_options(const Theme& theme);
  // Collapses host rows until every GPU row is in view without scrolling (the first view of a trace, with the critical
  // path under them): host rows and lanes with nothing in the window, then all host lanes, then counter rows, then
  // empty host lanes and the host's range rows hidden, then host lanes from the bottom up, then host groups to their
  // headers. Done when the plot is on screen, at its real height, and again from the same start at each new size
  // until the user collapses, hides or shows a row.
  void fit_gpus_in_view();
  // The bottom of the last GPU row in the layout (0: none).
  [[nodiscard]] double gpu_rows_bottom_px() const;
  [[nodiscard]] QRectF lane_rect() const;  // lane area in plot pixels
  // The plot's height that draws every row of the layout and every band whole, at the view's width (lays it out).
  [[nodiscard]] double whole_plot_height_px();
  [[nodiscard]] std::optional<EventRef> event_at(QPointF plot_pos) const;
  // What a click there selects: the event under it, or the event a row's stretch stands for (the critical path).
  [[nodiscard]] std::optional<EventRef> clicked_event_at(QPointF plot_pos) const;
  [[nodiscard]] std::optional<QPointF> event_center(EventRef ref) const;
  // Events first; where there is none, the bands above and below the lanes, then the warm-up spans over them.
  [[nodiscard]] QString tooltip_at(QPointF plot_pos) const;
  [[nodiscard]] QString overlay_tooltip_at(QPointF plot_pos) const;
  // Over a row (an event lane, ranges, counters): what it shows there.
  [[nodiscard]] QString row_tooltip_at(QPointF plot_pos) const;
  // Over a band (a row above or below the lanes: brackets, the GPUs-busy strip, the idle rows): what it shows there.
  [[nodiscard]] QString band_tooltip_at(QPointF plot_pos) const;

  void select(std::optional<EventRef> ref);
  [[nodiscard]] std::optional<EventRef> selected() const { return state_.selected; }
  // Selects ref and brings it into view (keeping the zoom unless the event is wider than the window).
  void jump_to(EventRef ref);
  // Jumps to the launch or kernel linked to the selection by a flow, else to the op at the other end of its
  // forward-backward link; false if there is neither.
  bool jump_to_flow();
  // Jumps to the other end of the selection's first dependency link (the work it waited for, else what waited
  // for it); false if it has none.
  bool jump_to_dependency();

  // Highlights events whose name contains text (case-insensitive); returns how many events match.
  std::size_t set_search(const QString& text);
  [[nodiscard]] const std::vector<EventRef>& search_results() const { return search_results_; }
  // Next and previous select the match and bring it into view, zoomed in until it is readable.
  bool search_next();
  bool search_previous();
  // Where the selection is among the matches (0-based), if it is one.
  [[nodiscard]] std::optional<std::size_t> search_position() const;

  // A lane's row (event_lane_row_id) by the lane's index.
  void toggle_lane_collapsed(LaneIndex lane);
  void set_lane_hidden(LaneIndex lane, bool hidden);
  void show_all_lanes();
  void toggle_group(GroupKey group);
  // Every row (event lanes, recorded ranges, counters), and collapsing or hiding one by its RowDesc::id.
  [[nodiscard]] const TimelineRows& timeline_rows() const { return state_.rows; }
  void toggle_row_collapsed(const std::string& id);
  void set_row_hidden(const std::string& id, bool hidden);
  // Host lanes take one row each and counter rows none, so the GPU lanes fit in a small view (compare panels, the
  // classroom); the recorded ranges stay, they show where the iterations and models are.
  void focus_on_gpu_lanes();
  void set_warmup_labels(bool shown);
  // The GPU rows and the rows under them (the critical path) are shown whole, where the plot can hold them, before
  // bracket rows and warm-up labels get room (a compare panel).
  void set_gpu_rows_first(bool first);
  // The time axis counts from origin_ns, named by label ("time from ..."); nullopt: from the trace's start.
  void set_axis_origin(std::optional<TimeNs> origin_ns, const QString& label);
  [[nodiscard]] const LaneViewState& lane_state() const { return state_.lane_state; }
  // Replaces which lanes and rows are collapsed or hidden (a figure shows its own choice, then puts this back).
  void set_lane_state(LaneViewState lane_state);
  // Figure mode: names without the window's affordances (figure_rows.h chooses the rows).
  void set_figure_mode(bool figure);
  // The label column's width (nullopt: 240 px times the font scale).
  void set_label_width_px(std::optional<double> width_px);
  [[nodiscard]] double label_width_px() const { return header_width_px(); }
  [[nodiscard]] std::optional<double> label_width_override_px() const { return label_width_px_; }

  [[nodiscard]] std::optional<TimeWindow> measured() const { return state_.measure; }
  void set_measure(std::optional<TimeWindow> range);

  [[nodiscard]] QCustomPlot* plot() const { return plot_; }
  [[nodiscard]] const TimelineState& state() const { return state_; }
  [[nodiscard]] LanePlottable* lanes_plottable() const { return lanes_; }
  // Lays out and draws now (tests, export, benchmark).
  void replot_now();

 signals:
  void window_changed();
  // The lanes scrolled up or down (scroll_px changed).
  void scrolled();
  void selection_changed();
  void measure_changed();
  void lanes_changed();
  // The user dragged the label column's edge: its new width at font scale 1 (kept in the settings by the tab).
  void label_column_resized(double px);
  void color_mode_changed();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void apply_pending_gpu_fit();
  void end_auto_fit();                          // the user changed a row: sizes no longer refit
  std::optional<LaneViewState> auto_fit_base_;  // the rows before fit_gpus_in_view, while it refits at each size
  struct RowAt {
    const TimelineRow* row;
    std::optional<LaneIndex> lane;  // the event lane it draws, if it is one
    RowHit hit;
  };
  // The row and its depth row under a plot position, if any.
  [[nodiscard]] std::optional<RowAt> row_at(QPointF plot_pos) const;
  void relayout();
  // The bands above and under the lanes at the plot's current height (fit_bands): none covers the lanes.
  void fit_bands_to_axis();
  // The room each band wants at the view's theme and window (TimelineRow::band_size), in row order.
  [[nodiscard]] std::vector<BandRequest> band_requests() const;
  bool gpu_rows_first_ = false;       // set_gpu_rows_first
  double max_scroll_seen_px_ = 0;     // max_scroll_px() when the scroll bar was last set
  bool laid_out_ = false;             // the plot has been laid out once: its axis rect height is known
  int bands_axis_px_ = 0;             // the axis rect height the bands were fitted to
  std::vector<BandSize> band_sizes_;  // what the bands wanted when last fitted: a window change refits
  void apply_window();
  void update_scrollbar();
  void request_replot();
  void apply_theme_to_plot();
  [[nodiscard]] double header_width_px() const;
  [[nodiscard]] TimeMapping mapping() const;
  // input (timeline_input.cpp)
  bool on_wheel(class QWheelEvent* event);
  bool on_press(class QMouseEvent* event);
  bool on_move(class QMouseEvent* event);
  bool on_release(class QMouseEvent* event);
  bool on_key(class QKeyEvent* event);
  void zoom_by_key(double factor);  // around the mouse when it is over the time area, else the centre
  [[nodiscard]] bool over_time_area(QPointF plot_pos) const;
  void on_header_click(QPointF pos, bool context_menu);
  void show_match(EventRef ref);
  static constexpr double kReadableMatchPx = 24;
  [[nodiscard]] bool on_label_column_edge(QPointF plot_pos) const;
  // Over the label column: the row's whole label, which the column may show elided.
  [[nodiscard]] QString label_tooltip_at(QPointF plot_pos) const;
  void apply_label_column();  // the plot's left margin from the width and the view's width

  enum class Drag { None, Pan, Box, Measure, LabelEdge };
  TimelineState state_;
  QCustomPlot* plot_ = nullptr;
  QScrollBar* scrollbar_ = nullptr;
  LanePlottable* lanes_ = nullptr;
  TimeTicker* ticker_ = nullptr;          // owned by the axes
  std::optional<TimeNs> axis_origin_ns_;  // set_axis_origin; none: the trace's start
  QString axis_label_;
  std::vector<EventRef> search_results_;
  Drag drag_ = Drag::None;
  QPointF press_pos_;
  TimeWindow press_window_;
  double press_scroll_px_ = 0;
  bool moved_ = false;
  // Where the mouse is over the time area (cleared when it leaves): W/S zoom around it, as Perfetto does.
  std::optional<QPointF> hover_pos_;
  double label_column_width_px_ = kDefaultLabelColumnPx;  // the column as the user dragged it
  bool color_mode_chosen_ = false;        // the user picked a colour mode for this trace: overlays keep it
  std::optional<TimeWindow> bounds_;      // set_bounds
  std::optional<double> label_width_px_;  // set_label_width_px: an export's preset, over the dragged width
};

}  // namespace gtv::ui
