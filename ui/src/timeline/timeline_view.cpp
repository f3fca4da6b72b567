#include "gtv/ui/timeline_view.h"

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QScrollBar>
#include <algorithm>
#include <cmath>
#include <limits>

#include "gtv/ui/collective_row.h"
#include "gtv/ui/event_lane_row.h"
#include "gtv/ui/event_text.h"
#include "gtv/ui/lane_plottable.h"
#include "gtv/ui/timeline_layers.h"

namespace gtv::ui {

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  plot_ = new QCustomPlot(this);
  scrollbar_ = new QScrollBar(Qt::Vertical, this);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(plot_, 1);
  layout->addWidget(scrollbar_);
  plot_->setInteractions({});
  plot_->setFocusPolicy(Qt::StrongFocus);
  plot_->setMouseTracking(true);
  plot_->installEventFilter(this);
  plot_->setNoAntialiasingOnDrag(true);
  plot_->xAxis2->setVisible(true);
  plot_->yAxis->setVisible(false);
  plot_->yAxis->setRange(0, 1);
  auto ticker = QSharedPointer<TimeTicker>::create();
  ticker_ = ticker.get();
  plot_->xAxis->setTicker(ticker);
  plot_->xAxis2->setTicker(ticker);
  plot_->axisRect()->setAutoMargins(QCP::msTop | QCP::msBottom);
  lanes_ = new LanePlottable(plot_->xAxis, plot_->yAxis, &state_);
  new LaneHeaders(plot_, &state_, plot_->axisRect());
  new TimelineOverlays(plot_, &state_, plot_->axisRect());
  connect(scrollbar_, &QScrollBar::valueChanged, this, [this](int value) {
    if (static_cast<int>(state_.scroll_px) == value) return;
    state_.scroll_px = value;
    request_replot();
    emit scrolled();
  });
  connect(plot_, &QCustomPlot::afterLayout, this, [this] {
    // A view scrolled to its end stays there when the plot's height changes: its last row stays whole.
    const bool at_end = state_.scroll_px > 0 && state_.scroll_px >= max_scroll_seen_px_;
    if (!laid_out_ || plot_->axisRect()->rect().height() != bands_axis_px_) {
      laid_out_ = true;
      fit_bands_to_axis();
    }
    if (at_end) state_.scroll_px = max_scroll_px();
    update_scrollbar();
  });
  apply_theme_to_plot();
}

TimelineView::~TimelineView() = default;

void TimelineView::set_trace(std::shared_ptr<const Trace> trace) {
  state_.trace = std::move(trace);
  state_.lane_state = {};
  state_.selected.reset();
  state_.measure.reset();
  state_.search_active = false;
  search_results_.clear();
  state_.name_colors.clear();
  emit selection_changed();
  if (state_.trace) {
    const StringPool& strings = state_.trace->strings();
    state_.name_colors.resize(strings.size());
    for (StringId id = 0; id < strings.size(); ++id) state_.name_colors[id] = kernel_color(strings.view(id));
  }
  state_.lane_colors.clear();
  state_.lod_summaries.clear();
  if (state_.trace)
    for (const Lane& lane : state_.trace->lanes()) {
      state_.lane_colors.push_back(stream_color(lane.device(), lane.stream()));
      state_.lod_summaries.push_back(summarise_lod(lane));
    }
  state_.rows = state_.trace ? make_timeline_rows(*state_.trace) : TimelineRows{};
  state_.group_summaries = state_.trace ? group_summaries(*state_.trace) : std::map<GroupKey, std::string>{};
  // The profiler's own pseudo-processes start collapsed (and last): they say nothing about the program.
  for (const RowDesc& d : row_descs(state_.rows))
    if (d.bookkeeping) state_.lane_state.collapsed_groups.insert(d.group);
  color_mode_chosen_ = false;
  if (state_.color_mode != ColorMode::KernelName) {
    state_.color_mode = ColorMode::KernelName;
    emit color_mode_changed();
  }
  ticker_->set_origin_ns(axis_origin_ns_ ? *axis_origin_ns_ : state_.trace ? state_.trace->start_ns() : 0);
  relayout();
  fit();
}

void TimelineView::set_overlays(OverlayData overlays) {
  state_.overlays = std::move(overlays);
  // The rows again with what the analysis found: forward ranges in their model's colour (the owners), and the rows
  // drawn from the analysis. They point into state_.overlays.
  if (state_.trace) state_.rows = make_timeline_rows(*state_.trace, state_.overlays);
  const ColorMode before = state_.color_mode;
  if (!color_mode_chosen_)
    state_.color_mode = state_.overlays.owners && state_.overlays.owners->own_most_gpu_work() ? ColorMode::Owner
                                                                                              : ColorMode::KernelName;
  if (state_.color_mode != before) emit color_mode_changed();
  relayout();
}

void TimelineView::set_color_mode(ColorMode mode) {
  color_mode_chosen_ = true;
  if (state_.color_mode == mode) return;
  state_.color_mode = mode;
  emit color_mode_changed();
  request_replot();
}

void TimelineView::cycle_color_mode() {
  set_color_mode(static_cast<ColorMode>((static_cast<int>(state_.color_mode) + 1) % kColorModeCount));
}

void TimelineView::set_labels_before_ns(std::optional<TimeNs> t_ns) {
  if (state_.labels_before_ns == t_ns) return;
  state_.labels_before_ns = t_ns;
  if (!state_.overlays.brackets.empty()) request_replot();
}

void TimelineView::set_theme(const Theme& theme) {
  state_.theme = theme;
  apply_theme_to_plot();
  relayout();
}

void TimelineView::apply_theme_to_plot() {
  const Theme& t = state_.theme;
  plot_->setBackground(t.background);
  plot_->axisRect()->setBackground(Qt::NoBrush);  // the plot background shows through: one fill less per replot
  for (QCPAxis* axis : {plot_->xAxis, plot_->xAxis2}) {
    axis->setBasePen(QPen(t.text));
    axis->setTickPen(QPen(t.text));
    axis->setSubTickPen(QPen(t.text));
    axis->setTickLabelColor(t.text);
    axis->setTickLabelFont(t.font(8));
    axis->setLabelColor(t.text);
    axis->grid()->setPen(QPen(t.grid, 0, Qt::DotLine));
  }
  plot_->xAxis->setLabel(axis_label_.isEmpty() ? QStringLiteral("time since trace start") : axis_label_);
  plot_->xAxis->setLabelFont(t.font(8));
}

double TimelineView::header_width_px() const {
  // An export's preset (figure mode) wins over the column the user dragged.
  return label_width_px_ ? *label_width_px_ : label_column_px(label_column_width_px_, width(), state_.theme.font_scale);
}

void TimelineView::set_label_width_px(std::optional<double> width_px) {
  label_width_px_ = width_px;
  relayout();
}

void TimelineView::set_lane_state(LaneViewState lane_state) {
  end_auto_fit();
  state_.lane_state = std::move(lane_state);
  relayout();
}

void TimelineView::set_label_column_width(double px) {
  if (!std::isfinite(px) || px == label_column_width_px_) return;
  label_column_width_px_ = px;
  apply_label_column();
}

void TimelineView::apply_label_column() {
  const int left = static_cast<int>(header_width_px());
  if (plot_->axisRect()->margins().left() == left) return;
  plot_->axisRect()->setMargins(QMargins(left, 0, 0, 0));
  update_scrollbar();
  request_replot();
}

void TimelineView::set_gpu_rows_first(bool first) {
  gpu_rows_first_ = first;
  relayout();
}

void TimelineView::set_figure_mode(bool figure) {
  state_.figure = figure;
  request_replot();
}

LayoutOptions TimelineView::layout_options(const Theme& theme) {
  LayoutOptions options;
  options.depth_px = theme.depth_px();
  options.header_px = theme.header_px();
  options.lane_gap_px = 4 * theme.font_scale;
  return options;
}

void TimelineView::relayout() {
  const LayoutOptions options = layout_options(state_.theme);
  if (state_.trace) {
    std::vector<RowDesc> rows = row_descs(state_.rows);
    if (!state_.overlays.rank_clocks.empty()) {
      const std::vector<LaneDesc> lanes = lane_descs(*state_.trace);
      const std::vector<std::string> labels = rank_group_labels(*state_.trace, lanes, state_.overlays.rank_clocks);
      for (RowDesc& d : rows)
        if (d.lane && *d.lane < labels.size()) d.group_label = labels[*d.lane];
    }
    state_.layout = LaneLayout(rows, state_.lane_state, options);
  } else {
    state_.layout = LaneLayout();
  }
  fit_bands_to_axis();
  apply_label_column();
  update_scrollbar();
  emit lanes_changed();
  request_replot();
}

std::vector<BandRequest> TimelineView::band_requests() const {
  std::vector<BandRequest> bands;
  for (std::size_t i = 0; i < state_.rows.size(); ++i) {
    const RowDesc d = state_.rows[i]->desc();
    if (!is_band(d.place)) continue;
    bands.push_back({i, d.place, state_.rows[i]->band_size(state_), d.keep_rank, d.sheds_rows});
  }
  return bands;
}

double TimelineView::whole_plot_height_px() {
  replot_now();  // lays out, so the axis margins are known
  const double margins_px = plot_->height() - plot_->axisRect()->rect().height();
  return margins_px + state_.layout.total_height_px() + full_band_px(band_requests());
}

void TimelineView::fit_bands_to_axis() {
  const std::vector<BandRequest> bands = band_requests();
  const double min_lanes_px = std::min(state_.layout.total_height_px(), readable_lanes_px(state_.layout.options()));
  double wanted_lanes_px = 0;  // the GPUs and the rows under them, where the view wants them whole
  if (gpu_rows_first_) {
    const auto& rows = state_.layout.rows();
    const auto gpu =
        std::find_if(rows.begin(), rows.end(), [](const LaneRow& r) { return r.kind == RowKind::DeviceHeader; });
    if (gpu != rows.end()) wanted_lanes_px = state_.layout.total_height_px() - gpu->top_px;
  }
  // Before the plot is first laid out its height is not known: every band whole.
  bands_axis_px_ = plot_->axisRect()->rect().height();
  state_.bands = fit_bands(bands, min_lanes_px, wanted_lanes_px,
                           laid_out_ ? std::max(bands_axis_px_, 0) : std::numeric_limits<double>::infinity());
  band_sizes_.clear();
  for (const BandRequest& b : bands) band_sizes_.push_back(b.size);
}

TimeWindow TimelineView::bounds() const {
  if (bounds_) return *bounds_;
  if (!state_.trace) return {0, kNsPerMs};
  return fit_window(state_.trace->start_ns(), state_.trace->end_ns(), 0.05);
}

void TimelineView::set_bounds(std::optional<TimeWindow> bounds) {
  bounds_ = bounds;
  set_window(state_.window);
}

void TimelineView::set_window(TimeWindow window) {
  state_.window = clamp_window(window, bounds());
  apply_window();
}

void TimelineView::apply_window() {
  // A band that wants other room in this window (the warm-up labels, there while warm-up is in view) is fitted again.
  const std::vector<BandRequest> bands = band_requests();
  if (!std::equal(bands.begin(), bands.end(), band_sizes_.begin(), band_sizes_.end(),
                  [](const BandRequest& b, const BandSize& size) { return b.size == size; }))
    relayout();
  const QCPRange range(static_cast<double>(state_.window.t0_ns), static_cast<double>(state_.window.t1_ns));
  plot_->xAxis->setRange(range);
  plot_->xAxis2->setRange(range);
  emit window_changed();
  request_replot();
}

void TimelineView::fit() {
  if (!state_.trace) {
    set_window(bounds());
    return;
  }
  set_window(fit_window(state_.trace->start_ns(), state_.trace->end_ns()));
}

TimeMapping TimelineView::mapping() const { return TimeMapping(state_.window, lane_rect().width()); }

void TimelineView::zoom_at(double x_px, double factor) {
  const TimeNs anchor = mapping().time_at(x_px - lane_rect().left());
  set_window(zoom_window(state_.window, anchor, factor));
}

void TimelineView::zoom_by(double factor) {
  set_window(zoom_window(state_.window, state_.window.t0_ns + state_.window.span_ns() / 2, factor));
}

void TimelineView::pan_by_px(double dx_px) { set_window(pan_window(state_.window, dx_px, lane_rect().width())); }

void TimelineView::zoom_to_selection() {
  if (state_.measure && state_.measure->span_ns() > 0) {
    set_window(fit_window(state_.measure->t0_ns, state_.measure->t1_ns, 0.05));
  } else if (state_.selected && state_.trace) {
    const Event& e = state_.trace->event(*state_.selected);
    set_window(fit_window(e.start_ns, e.end_ns(), 0.25));
  }
}

double TimelineView::max_scroll_px() const {
  const double rest_px = state_.layout.total_height_px() - lane_rect().height();
  if (rest_px <= 0) return 0;
  // Scrolled to the end, the view starts at a row's top and ends with the last row whole (room to spare under it),
  // so no row is cut at either edge: not against the bands above the lanes, nor against the strips under them.
  for (const LaneRow& row : state_.layout.rows())
    if (row.top_px >= rest_px) return row.top_px;
  return rest_px;
}

void TimelineView::set_scroll_px(double y_px) {
  const double before = state_.scroll_px;
  state_.scroll_px = std::clamp(y_px, 0.0, max_scroll_px());
  update_scrollbar();
  request_replot();
  if (state_.scroll_px != before) emit scrolled();
}

void TimelineView::update_scrollbar() {
  const double visible = lane_rect().height();
  const double max_scroll = max_scroll_px();
  max_scroll_seen_px_ = max_scroll;
  const QSignalBlocker block(scrollbar_);
  scrollbar_->setRange(0, static_cast<int>(max_scroll));
  scrollbar_->setPageStep(std::max(1, static_cast<int>(visible)));
  scrollbar_->setSingleStep(static_cast<int>(state_.theme.depth_px()));
  if (state_.scroll_px > max_scroll) {
    // The view grew (or its rows shrank) past the scroll: it moves up to the top of the row at the new limit, so no
    // row is cut at the top edge.
    double top_px = 0;
    for (const LaneRow& row : state_.layout.rows())
      if (row.top_px <= max_scroll) top_px = std::max(top_px, row.top_px);
    state_.scroll_px = top_px;
  }
  scrollbar_->setValue(static_cast<int>(state_.scroll_px));
}

QRectF TimelineView::lane_rect() const { return state_.lane_rect(plot_->axisRect()->rect()); }

std::optional<TimelineView::RowAt> TimelineView::row_at(QPointF pos) const {
  if (!state_.trace) return std::nullopt;
  const QRectF area = lane_rect();
  if (!area.contains(pos)) return std::nullopt;
  const double layout_y = pos.y() - area.top() + state_.scroll_px;
  const int row = state_.layout.row_at(layout_y);
  const int depth = state_.layout.depth_at(row, layout_y);
  if (depth < 0) return std::nullopt;
  const LaneRow& laid = state_.layout.rows()[static_cast<std::size_t>(row)];
  const TimelineRow* timeline_row = state_.row(laid);
  if (!timeline_row) return std::nullopt;
  const TimeMapping map = mapping();
  RowHit hit;
  hit.t_ns = map.time_at(pos.x() - area.left());
  hit.depth = depth;
  hit.ns_per_px = map.ns_per_px();
  hit.origin_ns = state_.trace->start_ns();
  hit.window = state_.window;
  hit.width_px = area.width();
  return RowAt{timeline_row, laid.lane, hit};
}

std::optional<EventRef> TimelineView::event_at(QPointF pos) const {
  const auto at = row_at(pos);
  return at && at->lane ? at->row->event_under(at->hit) : std::nullopt;
}

std::optional<QPointF> TimelineView::event_center(EventRef ref) const {
  const int row = state_.layout.row_of_lane(ref.lane);
  if (!state_.trace || row < 0) return std::nullopt;
  const Event& e = state_.trace->event(ref);
  const QRectF area = lane_rect();
  const TimeMapping map = mapping();
  const double x = area.left() + (map.x_of(e.start_ns) + map.x_of(e.end_ns())) / 2;
  const double y = state_.row_y(area, state_.layout.depth_top_px(row, e.depth)) + state_.layout.options().depth_px / 2;
  return QPointF(x, y);
}

QString TimelineView::label_tooltip_at(QPointF pos) const {
  if (!state_.trace) return {};
  const QRectF lanes = lane_rect();
  if (pos.x() < 0 || pos.x() >= lanes.left() || pos.y() < lanes.top() || pos.y() >= lanes.bottom()) return {};
  const int row = state_.layout.row_at(pos.y() - lanes.top() + state_.scroll_px);
  if (row < 0 || static_cast<std::size_t>(row) >= state_.layout.rows().size()) return {};
  return QString::fromStdString(state_.layout.rows()[static_cast<std::size_t>(row)].label);
}

QString TimelineView::tooltip_at(QPointF pos) const {
  if (QString label = label_tooltip_at(pos); !label.isEmpty()) return label;
  if (QString text = row_tooltip_at(pos); !text.isEmpty()) return text;
  return overlay_tooltip_at(pos);
}

std::optional<EventRef> TimelineView::clicked_event_at(QPointF pos) const {
  const auto at = row_at(pos);
  return at ? at->row->event_under(at->hit) : std::nullopt;
}

QString TimelineView::row_tooltip_at(QPointF pos) const {
  const auto at = row_at(pos);
  return at ? at->row->tooltip_under(at->hit) : QString();
}

QString TimelineView::band_tooltip_at(QPointF pos) const {
  const QRectF axis = plot_->axisRect()->rect();
  const TimeMapping map = mapping();
  for (std::size_t i = 0; i < state_.bands.rows.size(); ++i) {
    const BandRow& band = state_.bands.rows[i];
    const QRectF rect = state_.band_rect(axis, i);
    // Above the lanes a band ends where the next begins; below them a point on an edge is the upper band's.
    const bool inside =
        band.place == RowPlace::AboveLanes ? pos.y() >= rect.top() && pos.y() < rect.bottom() : rect.contains(pos);
    if (!inside) continue;
    RowHit hit;
    hit.t_ns = map.time_at(pos.x() - rect.left());
    hit.depth =
        std::clamp(static_cast<int>(std::ceil((pos.y() - rect.top()) / band.depth_px)) - 1, 0, band.depth_rows - 1);
    hit.ns_per_px = map.ns_per_px();
    hit.origin_ns = state_.trace->start_ns();
    hit.window = state_.window;
    hit.width_px = rect.width();
    hit.pos_px = pos;
    hit.rect = rect;
    hit.depth_rows = band.depth_rows;
    hit.state = &state_;
    if (QString text = state_.rows[band.row]->tooltip_under(hit); !text.isEmpty()) return text;
  }
  return {};
}

// Over a band: what it shows there; over the lanes where no event is: the warm-up span.
QString TimelineView::overlay_tooltip_at(QPointF pos) const {
  if (!state_.trace) return {};
  const QRectF lanes = lane_rect();
  if (pos.x() < lanes.left() || pos.x() > lanes.right()) return {};
  if (QString text = band_tooltip_at(pos); !text.isEmpty()) return text;
  if (!lanes.contains(pos)) return {};
  const TimeMapping map = mapping();
  const TimeNs t = map.time_at(pos.x() - lanes.left());
  const auto tolerance = static_cast<TimeNs>(2 * map.ns_per_px());
  const ShadedSegment* span = warmup_at(state_.overlays, t, tolerance);
  if (!span) return {};
  return QString::fromStdString(span->tooltip + "\nthis span: " + format_duration(span->end_ns - span->start_ns));
}

void TimelineView::select(std::optional<EventRef> ref) {
  if (state_.selected == ref) return;
  state_.selected = ref;
  emit selection_changed();
  request_replot();
}

void TimelineView::jump_to(EventRef ref) {
  if (!state_.trace) return;
  select(ref);
  const Event& e = state_.trace->event(ref);
  const TimeNs span = state_.window.span_ns();
  if (e.duration_ns * 10 > span * 9) {
    set_window(fit_window(e.start_ns, e.end_ns(), 0.25));
  } else {
    const TimeNs centre = e.start_ns + e.duration_ns / 2;
    set_window({centre - span / 2, centre - span / 2 + span});
  }
  if (state_.layout.row_of_lane(ref.lane) < 0) {  // hidden, or its group collapsed: show it
    end_auto_fit();
    state_.lane_state.hidden_rows.erase(event_lane_row_id(state_.trace->lane(ref.lane).key));
    state_.lane_state.collapsed_groups.erase(group_of(state_.trace->lane(ref.lane).key));
    relayout();
  }
  const int row = state_.layout.row_of_lane(ref.lane);
  if (row >= 0) {
    const double y = state_.layout.depth_top_px(row, e.depth);
    if (y < state_.scroll_px || y > state_.scroll_px + lane_rect().height() - state_.layout.options().depth_px)
      set_scroll_px(y - lane_rect().height() / 3);
  }
}

bool TimelineView::jump_to_flow() {
  if (!state_.trace || !state_.selected) return false;
  // A launch and its GPU work first; an op without one jumps between its forward and backward.
  auto flow = state_.trace->flow_of(*state_.selected);
  if (!flow) flow = state_.trace->backward_link_of(*state_.selected);
  if (!flow) return false;
  jump_to(flow->from == *state_.selected ? flow->to : flow->from);
  return true;
}

bool TimelineView::jump_to_dependency() {
  if (!state_.trace || !state_.selected) return false;
  const std::vector<Flow> links = state_.trace->dependencies_of(*state_.selected);
  if (links.empty()) return false;
  // Links that end at the selection come last: the work it waited for is the more useful jump.
  const Flow& link = links.back().to == *state_.selected ? links.back() : links.front();
  jump_to(link.from == *state_.selected ? link.to : link.from);
  return true;
}

void TimelineView::set_measure(std::optional<TimeWindow> range) {
  state_.measure = range;
  emit measure_changed();
  request_replot();
}

void TimelineView::request_replot() { plot_->replot(QCustomPlot::rpQueuedReplot); }

void TimelineView::replot_now() {
  // A hidden view (headless export, tests) gets no resize events: lay it out and size the plot here.
  if (!isVisible()) {
    QWidget::layout()->activate();
    plot_->setViewport(plot_->rect());
    apply_label_column();
  }
  plot_->replot(QCustomPlot::rpImmediateRefresh);
}

void TimelineView::set_axis_origin(std::optional<TimeNs> origin_ns, const QString& label) {
  axis_origin_ns_ = origin_ns;
  axis_label_ = origin_ns ? label : QString();
  ticker_->set_origin_ns(origin_ns ? *origin_ns : state_.trace ? state_.trace->start_ns() : 0);
  plot_->xAxis->setLabel(axis_label_.isEmpty() ? QStringLiteral("time since trace start") : axis_label_);
  request_replot();
}

}  // namespace gtv::ui
