// Mouse, wheel and keyboard input of TimelineView, and the operations they trigger (search, lane toggles).
#include <qcustomplot.h>

#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QTimer>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "gtv/ui/critical_path_row.h"
#include "gtv/ui/event_lane_row.h"
#include "gtv/ui/timeline_view.h"

namespace gtv::ui {
namespace {

constexpr double kKeyZoomFactor = 1.5;
constexpr double kKeyPanFraction = 0.1;    // of the width per key press
constexpr double kWheelPanFraction = 0.1;  // of the width per wheel step
constexpr double kClickSlopPx = 3;
constexpr double kLabelEdgeGrabPx = 4;  // either side of the label column's edge

}  // namespace

TimeWindow centred_match_window(TimeNs start_ns, TimeNs duration_ns, TimeNs span_ns, TimeNs trace_start_ns,
                                TimeNs trace_end_ns) {
  const TimeNs centre_ns = start_ns + duration_ns / 2;
  span_ns = std::max(span_ns, duration_ns + duration_ns / 5);  // the whole match, with a margin
  TimeNs half_ns = span_ns / 2;
  // Near the trace's start or end the window narrows about the match rather than show time outside the trace,
  // as far as the match still fits.
  const TimeNs room_ns = std::min(centre_ns - trace_start_ns, trace_end_ns - centre_ns);
  if (half_ns > room_ns) half_ns = std::max(room_ns, (duration_ns * 3 + 4) / 5);
  TimeWindow window{centre_ns - half_ns, centre_ns + half_ns};
  if (window.t0_ns < trace_start_ns) window = {trace_start_ns, trace_start_ns + 2 * half_ns};
  if (window.t1_ns > trace_end_ns) window = {trace_end_ns - 2 * half_ns, trace_end_ns};
  return window;
}

bool TimelineView::eventFilter(QObject* watched, QEvent* event) {
  if (watched != plot_) return QWidget::eventFilter(watched, event);
  switch (event->type()) {
    case QEvent::Wheel:
      return on_wheel(static_cast<QWheelEvent*>(event));
    case QEvent::MouseButtonPress:
      return on_press(static_cast<QMouseEvent*>(event));
    case QEvent::MouseMove:
      return on_move(static_cast<QMouseEvent*>(event));
    case QEvent::MouseButtonRelease:
      return on_release(static_cast<QMouseEvent*>(event));
    case QEvent::MouseButtonDblClick:
      return true;
    case QEvent::KeyPress:
      return on_key(static_cast<QKeyEvent*>(event));
    case QEvent::Show:
    case QEvent::Resize:
      apply_label_column();  // the column keeps no more than its share of the new width
      // After the plot has taken its new size and laid out its axes.
      if (auto_fit_base_) QTimer::singleShot(0, this, [this] { apply_pending_gpu_fit(); });
      return QWidget::eventFilter(watched, event);
    case QEvent::Leave:
      hover_pos_.reset();
      return QWidget::eventFilter(watched, event);
    default:
      return QWidget::eventFilter(watched, event);
  }
}

bool TimelineView::on_wheel(QWheelEvent* event) {
  // Perfetto's and Nsight Systems' convention: the wheel scrolls the rows, Ctrl+wheel zooms at the mouse,
  // Shift+wheel (or a sideways wheel or touchpad swipe) pans in time.
  const QPoint delta = event->angleDelta();
  const Qt::KeyboardModifiers mods = event->modifiers();
  if (mods & Qt::ControlModifier) {
    zoom_at(event->position().x(), std::pow(1.25, delta.y() / 120.0));
  } else if ((mods & Qt::ShiftModifier) || delta.x() != 0) {
    // Some platforms turn Shift+wheel into a sideways wheel themselves: then the step is in x.
    const double steps = (delta.x() != 0 ? delta.x() : delta.y()) / 120.0;
    pan_by_px(-steps * kWheelPanFraction * lane_rect().width());
  } else {
    set_scroll_px(state_.scroll_px - delta.y() / 120.0 * 3 * state_.theme.depth_px());
  }
  return true;
}

bool TimelineView::on_press(QMouseEvent* event) {
  const QPointF pos = event->position();
  plot_->setFocus();
  if (event->button() == Qt::LeftButton && on_label_column_edge(pos)) {
    drag_ = Drag::LabelEdge;
    press_pos_ = pos;
    moved_ = false;
    return true;
  }
  if (pos.x() < lane_rect().left()) {
    on_header_click(pos, event->button() == Qt::RightButton);
    return true;
  }
  if (event->button() != Qt::LeftButton) return true;
  press_pos_ = pos;
  press_window_ = state_.window;
  press_scroll_px_ = state_.scroll_px;
  moved_ = false;
  if (event->modifiers() & Qt::ShiftModifier) {
    drag_ = Drag::Measure;
  } else if (event->modifiers() & Qt::ControlModifier) {
    drag_ = Drag::Box;
  } else {
    drag_ = Drag::Pan;
  }
  return true;
}

bool TimelineView::on_move(QMouseEvent* event) {
  const QPointF pos = event->position();
  if (over_time_area(pos))
    hover_pos_ = pos;
  else
    hover_pos_.reset();
  if (drag_ == Drag::None) {
    if (on_label_column_edge(pos))
      plot_->setCursor(Qt::SplitHCursor);
    else
      plot_->unsetCursor();
    const QString tip = tooltip_at(pos);
    if (tip.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(event->globalPosition().toPoint(), tip, plot_);
    return true;
  }
  moved_ = moved_ || (pos - press_pos_).manhattanLength() > kClickSlopPx;
  if (!moved_) return true;
  if (drag_ == Drag::LabelEdge) {
    const double scale = state_.theme.font_scale;
    set_label_column_width(label_column_px(pos.x() / scale, width(), scale) / scale);
    return true;
  }
  const QRectF area = lane_rect();
  const TimeMapping map(press_window_, area.width());
  switch (drag_) {
    case Drag::Pan:
      set_window(pan_window(press_window_, press_pos_.x() - pos.x(), area.width()));
      set_scroll_px(press_scroll_px_ + press_pos_.y() - pos.y());
      break;
    case Drag::Measure: {
      const TimeNs a = map.time_at(press_pos_.x() - area.left());
      const TimeNs b = map.time_at(pos.x() - area.left());
      set_measure(TimeWindow{std::min(a, b), std::max(a, b)});
      break;
    }
    case Drag::Box:
      state_.box = QRectF(press_pos_, pos).normalized();
      request_replot();
      break;
    case Drag::None:
    case Drag::LabelEdge:
      break;
  }
  return true;
}

bool TimelineView::on_release(QMouseEvent* event) {
  const Drag drag = drag_;
  drag_ = Drag::None;
  if (drag == Drag::None) return true;
  const QPointF pos = event->position();
  if (drag == Drag::LabelEdge) {
    if (moved_) emit label_column_resized(label_column_width_px_);
    return true;
  }
  if (!moved_) {
    select(clicked_event_at(pos));
    if (drag == Drag::Measure) set_measure(std::nullopt);
    return true;
  }
  if (drag == Drag::Box) {
    state_.box.reset();
    const QRectF area = lane_rect();
    const TimeMapping map(press_window_, area.width());
    const double x0 = std::min(press_pos_.x(), pos.x()) - area.left();
    const double x1 = std::max(press_pos_.x(), pos.x()) - area.left();
    if (x1 - x0 >= 2) set_window({map.time_at(x0), map.time_at(x1)});
    request_replot();
  }
  return true;
}

bool TimelineView::on_key(QKeyEvent* event) {
  const double width = lane_rect().width();
  switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
    case Qt::Key_W:
      zoom_by_key(kKeyZoomFactor);
      return true;
    case Qt::Key_Minus:
    case Qt::Key_S:
      zoom_by_key(1 / kKeyZoomFactor);
      return true;
    case Qt::Key_Left:
    case Qt::Key_A:
      pan_by_px(-kKeyPanFraction * width);
      return true;
    case Qt::Key_Right:
    case Qt::Key_D:
      pan_by_px(kKeyPanFraction * width);
      return true;
    case Qt::Key_Up:
      set_scroll_px(state_.scroll_px - state_.theme.depth_px() * 3);
      return true;
    case Qt::Key_Down:
      set_scroll_px(state_.scroll_px + state_.theme.depth_px() * 3);
      return true;
    case Qt::Key_F:
      if (state_.selected || state_.measure)
        zoom_to_selection();
      else
        fit();
      return true;
    case Qt::Key_C:
      cycle_color_mode();
      return true;
    case Qt::Key_Escape:
      select(std::nullopt);
      set_measure(std::nullopt);
      return true;
    default:
      return false;
  }
}

bool TimelineView::on_label_column_edge(QPointF pos) const {
  const QRectF axis = plot_->axisRect()->rect();
  return std::fabs(pos.x() - axis.left()) <= kLabelEdgeGrabPx && pos.y() >= axis.top() && pos.y() <= axis.bottom();
}

bool TimelineView::over_time_area(QPointF pos) const {
  // The lanes, the brackets above them and the strips below: everything drawn on the time axis.
  const QRectF lanes = lane_rect();
  return QRectF(plot_->axisRect()->rect()).contains(pos) && pos.x() >= lanes.left() && pos.x() <= lanes.right();
}

void TimelineView::zoom_by_key(double factor) {
  if (hover_pos_ && over_time_area(*hover_pos_))
    zoom_at(hover_pos_->x(), factor);
  else
    zoom_by(factor);
}

void TimelineView::on_header_click(QPointF pos, bool context_menu) {
  const QRectF area = lane_rect();
  const int row = state_.layout.row_at(pos.y() - area.top() + state_.scroll_px);
  if (row < 0) return;
  const LaneRow r = state_.layout.rows()[static_cast<std::size_t>(row)];
  const TimelineRow* timeline_row = state_.row(r);
  if (!context_menu) {
    if (!timeline_row)
      toggle_group(r.group);
    else if (r.can_collapse)
      toggle_row_collapsed(timeline_row->desc().id);
    return;
  }
  QMenu menu(this);
  if (timeline_row) {
    menu.addAction(r.lane ? tr("Hide lane") : tr("Hide row"), this,
                   [this, id = timeline_row->desc().id] { set_row_hidden(id, true); });
  }
  menu.addAction(tr("Show all lanes"), this, [this] { show_all_lanes(); });
  menu.exec(plot_->mapToGlobal(pos.toPoint()));
}

void TimelineView::toggle_lane_collapsed(LaneIndex lane) {
  if (state_.trace) toggle_row_collapsed(event_lane_row_id(state_.trace->lane(lane).key));
}

void TimelineView::set_lane_hidden(LaneIndex lane, bool hidden) {
  if (state_.trace) set_row_hidden(event_lane_row_id(state_.trace->lane(lane).key), hidden);
}

void TimelineView::toggle_row_collapsed(const std::string& id) {
  end_auto_fit();
  auto& set = state_.lane_state.collapsed_rows;
  if (!set.erase(id)) set.insert(id);
  relayout();
}

void TimelineView::set_row_hidden(const std::string& id, bool hidden) {
  end_auto_fit();
  if (hidden)
    state_.lane_state.hidden_rows.insert(id);
  else
    state_.lane_state.hidden_rows.erase(id);
  relayout();
}

void TimelineView::focus_on_gpu_lanes() {
  end_auto_fit();
  if (!state_.trace) return;
  for (const auto& row : state_.rows) {
    const RowDesc d = row->desc();
    if (d.lane && d.group.first == LaneKind::HostThread) state_.lane_state.collapsed_rows.insert(d.id);
    if (d.gives_way_to_gpus) state_.lane_state.hidden_rows.insert(d.id);
  }
  relayout();
}

double TimelineView::gpu_rows_bottom_px() const {
  double bottom_px = 0;
  for (const LaneRow& r : state_.layout.rows())
    if (r.group.first == LaneKind::GpuStream || r.group == kCriticalPathGroup)
      bottom_px = std::max(bottom_px, r.bottom_px());
  return bottom_px;
}

void TimelineView::fit_gpus_in_view() {
  auto_fit_base_ = state_.lane_state;
  apply_pending_gpu_fit();
}

void TimelineView::end_auto_fit() { auto_fit_base_.reset(); }

void TimelineView::apply_pending_gpu_fit() {
  // Only once the plot is on screen: a tab that is still loading has not given it its height yet. Until the user
  // changes a row, each new size fits again from the rows as they were before the first fit, so what the view
  // shows depends on its size, never on the sizes it went through.
  if (!auto_fit_base_ || !plot_->isVisible() || !state_.trace) return;
  state_.lane_state = *auto_fit_base_;
  relayout();
  replot_now();  // the axis rect at the plot's current size
  const auto fits = [&] { return gpu_rows_bottom_px() <= lane_rect().height(); };
  if (fits()) return;
  const TimeWindow window = state_.window;
  const auto host_rows = [&](bool lanes) {
    std::vector<const TimelineRow*> rows;
    for (const auto& row : state_.rows) {
      const RowDesc d = row->desc();
      if (!is_band(d.place) && d.group.first == LaneKind::HostThread && d.lane.has_value() == lanes)
        rows.push_back(row.get());
    }
    return rows;
  };
  const auto empty = [&](const TimelineRow* row) { return !row->has_content_in(window.t0_ns, window.t1_ns); };
  // Host rows give way one at a time, least useful first, until the GPU rows fit, so no more goes than must:
  // rows and lanes with nothing in the view (rows hidden, lanes collapsed), then each host lane's depth from the
  // bottom up, then counter series (listed in the Lanes panel to show again), then empty host lanes and the host's
  // range rows hidden, then host lanes from the bottom up; a whole host group goes to its header only when one lane
  // of it is still too much.
  std::vector<std::pair<std::set<std::string>*, std::string>> steps;
  auto& hidden = state_.lane_state.hidden_rows;
  auto& collapsed = state_.lane_state.collapsed_rows;
  const std::vector<const TimelineRow*> rows = host_rows(false);
  const std::vector<const TimelineRow*> lanes = host_rows(true);
  for (const TimelineRow* row : rows)
    if (empty(row)) steps.emplace_back(&hidden, row->desc().id);
  for (const TimelineRow* row : lanes)
    if (empty(row)) steps.emplace_back(&collapsed, row->desc().id);
  for (auto it = lanes.rbegin(); it != lanes.rend(); ++it) steps.emplace_back(&collapsed, (*it)->desc().id);
  for (const auto& row : state_.rows)
    if (const RowDesc d = row->desc(); d.gives_way_to_gpus) steps.emplace_back(&hidden, d.id);
  for (const TimelineRow* row : lanes)
    if (empty(row)) steps.emplace_back(&hidden, row->desc().id);
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) steps.emplace_back(&hidden, (*it)->desc().id);
  for (auto it = lanes.rbegin(); it != lanes.rend() && std::next(it) != lanes.rend(); ++it)
    steps.emplace_back(&hidden, (*it)->desc().id);
  for (const auto& [set, id] : steps) {
    if (!set->insert(id).second) continue;
    relayout();
    if (fits()) return;
  }
  for (const LaneRow& r : state_.layout.rows())
    if (r.kind == RowKind::ProcessHeader && r.group != kCriticalPathGroup)
      state_.lane_state.collapsed_groups.insert(r.group);
  relayout();
}

void TimelineView::set_warmup_labels(bool shown) {
  state_.warmup_labels = shown;
  relayout();
}

void TimelineView::show_all_lanes() {
  end_auto_fit();
  state_.lane_state.hidden_rows.clear();
  state_.lane_state.collapsed_groups.clear();
  relayout();
}

void TimelineView::toggle_group(GroupKey group) {
  end_auto_fit();
  auto& set = state_.lane_state.collapsed_groups;
  if (!set.erase(group)) set.insert(group);
  relayout();
}

std::size_t TimelineView::set_search(const QString& text) {
  search_results_.clear();
  state_.search_active = !text.isEmpty() && state_.trace;
  state_.name_matches.clear();
  if (state_.search_active) {
    const StringPool& strings = state_.trace->strings();
    const std::string needle = text.toLower().toStdString();
    state_.name_matches.assign(strings.size(), 0);
    for (StringId id = 1; id < strings.size(); ++id) {
      const std::string_view name = strings.view(id);
      state_.name_matches[id] = QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()))
                                    .toLower()
                                    .contains(QString::fromStdString(needle));
    }
    const auto lanes = state_.trace->lanes();
    for (LaneIndex l = 0; l < lanes.size(); ++l)
      for (std::uint32_t i = 0; i < lanes[l].events.size(); ++i)
        if (state_.name_matches[lanes[l].events[i].name]) search_results_.push_back({l, i});
    std::stable_sort(search_results_.begin(), search_results_.end(), [&](EventRef a, EventRef b) {
      return state_.trace->event(a).start_ns < state_.trace->event(b).start_ns;
    });
  }
  request_replot();
  return search_results_.size();
}

std::optional<std::size_t> TimelineView::search_position() const {
  if (!state_.selected) return std::nullopt;
  const auto it = std::find(search_results_.begin(), search_results_.end(), *state_.selected);
  if (it == search_results_.end()) return std::nullopt;
  return static_cast<std::size_t>(it - search_results_.begin());
}

void TimelineView::show_match(EventRef ref) {
  jump_to(ref);  // selects it, shows its lane and scrolls to its row
  const Event& e = state_.trace->event(ref);
  TimeNs span_ns = state_.window.span_ns();
  // A match a few pixels wide cannot be read: zoom until it takes a fifth of the window.
  if (static_cast<double>(e.duration_ns) / mapping().ns_per_px() < kReadableMatchPx)
    span_ns = 5 * std::max<TimeNs>(e.duration_ns, kMinSpanNs);
  set_window(
      centred_match_window(e.start_ns, e.duration_ns, span_ns, state_.trace->start_ns(), state_.trace->end_ns()));
  if (const int row = state_.layout.row_of_lane(ref.lane);
      row >= 0 && state_.layout.rows()[static_cast<std::size_t>(row)].depth_rows <= e.depth) {
    // A collapsed lane shows its top row only.
    end_auto_fit();
    state_.lane_state.collapsed_rows.erase(event_lane_row_id(state_.trace->lane(ref.lane).key));
    relayout();
  }
}

bool TimelineView::search_next() {
  if (search_results_.empty()) return false;
  auto it = search_results_.begin();
  if (state_.selected) {
    auto current = std::find(search_results_.begin(), search_results_.end(), *state_.selected);
    if (current != search_results_.end())
      it = std::next(current) == search_results_.end() ? search_results_.begin() : std::next(current);
  }
  show_match(*it);
  return true;
}

bool TimelineView::search_previous() {
  if (search_results_.empty()) return false;
  auto it = std::prev(search_results_.end());
  if (state_.selected) {
    auto current = std::find(search_results_.begin(), search_results_.end(), *state_.selected);
    if (current != search_results_.end() && current != search_results_.begin()) it = std::prev(current);
  }
  show_match(*it);
  return true;
}

}  // namespace gtv::ui
