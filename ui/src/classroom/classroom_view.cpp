#include "gtv/ui/classroom_view.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QShortcut>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <set>

#include "gtv/analysis/compare.h"
#include "gtv/experiments/catalog.h"
#include "gtv/ui/app_palette.h"
#include "gtv/ui/document_analysis.h"
#include "gtv/ui/event_lane_row.h"
#include "gtv/ui/exercise_panel.h"
#include "gtv/ui/flow_layout.h"
#include "gtv/ui/playback_stats.h"
#include "gtv/ui/run_alignment.h"
#include "gtv/ui/time_mapping.h"
#include "gtv/ui/timeline_view.h"

namespace gtv::ui {

// Drawn over the plot: everything after the cursor is covered by the background at high opacity (faded), the
// cursor is a bright line, and while the GPU lanes are hidden a prompt asks the class to predict them.
class PlaybackOverlay : public QWidget {
 public:
  PlaybackOverlay(TimelineView* view, QWidget* parent) : QWidget(parent), view_(view) {
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    parent->installEventFilter(this);
    setGeometry(parent->rect());
  }
  void set_cursor(TimeNs t_ns) {
    cursor_ns_ = t_ns;
    update();
  }
  void set_prompt(const QString& prompt) {
    prompt_ = prompt;
    update();
  }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched == parentWidget() && event->type() == QEvent::Resize) setGeometry(parentWidget()->rect());
    return false;
  }
  void paintEvent(QPaintEvent*) override {
    // The lanes' width, but the axis rect's height: the brackets above and the overlap strip below fade too.
    const QRectF axis = view_->plot()->axisRect()->rect();
    const QRectF lanes(view_->lane_rect().left(), axis.top(), view_->lane_rect().width(), axis.height());
    const TimeWindow w = view_->window();
    if (lanes.width() <= 0 || w.span_ns() <= 0) return;
    const double x =
        lanes.left() + static_cast<double>(cursor_ns_ - w.t0_ns) / static_cast<double>(w.span_ns()) * lanes.width();
    const Theme& theme = view_->theme();
    QPainter p(this);
    const double fade_left = std::clamp(x, lanes.left(), lanes.right());
    QColor fade = theme.background;
    fade.setAlpha(225);
    p.fillRect(QRectF(QPointF(fade_left, lanes.top()), lanes.bottomRight()), fade);
    if (x >= lanes.left() && x <= lanes.right()) {
      p.setPen(QPen(QColor(0xff, 0xd0, 0x00), 3));
      p.drawLine(QPointF(x, lanes.top()), QPointF(x, lanes.bottom()));
    }
    if (!prompt_.isEmpty()) {
      p.setPen(QColor(0xff, 0xd0, 0x00));
      p.setFont(theme.font(12, true));
      p.drawText(lanes.adjusted(10, 10, -10, -10), Qt::AlignBottom | Qt::AlignHCenter | Qt::TextWordWrap, prompt_);
    }
  }

 private:
  TimelineView* view_;
  TimeNs cursor_ns_ = 0;
  QString prompt_;
};

Theme classroom_theme(double font_scale) {
  Theme t;
  t.dark = true;
  t.font_scale = font_scale;
  t.background = QColor(0, 0, 0);
  t.text = QColor(0xff, 0xff, 0xff);
  t.header_background = QColor(0x10, 0x10, 0x10);
  t.group_background = QColor(0x30, 0x30, 0x30);
  t.lane_stripe = QColor(0x0c, 0x0c, 0x0c);
  t.grid = QColor(0x60, 0x60, 0x60);
  t.selection = QColor(0xff, 0xff, 0xff);
  t.search_match = QColor(0xff, 0xff, 0x00);
  t.flow = QColor(0xff, 0x40, 0xa0);
  t.measure = QColor(0x40, 0xc0, 0xff);
  return t;
}

PlaybackSpan classroom_playback_span(const Trace& trace, const analysis::Report* report) {
  if (report != nullptr && report->region.from_measurements && report->region.length_ns() > 0)
    return {report->region.start_ns, report->region.end_ns};
  // The report's steady part; a view given a bare trace (no document's analysis) finds it itself.
  const std::optional<analysis::SteadyPart> steady = report != nullptr ? report->steady : analysis::steady_part(trace);
  if (steady && steady->length_ns() > 0) return {steady->start_ns, steady->end_ns};
  return {trace.start_ns(), trace.end_ns()};
}

std::optional<PlaybackSpan> chosen_playback_range(std::optional<TimeWindow> measured,
                                                  std::optional<TimeWindow> selected_event,
                                                  std::optional<TimeWindow> from_trace_tab) {
  for (const auto& range : {measured, selected_event, from_trace_tab})
    if (range && range->span_ns() > 0) return PlaybackSpan{range->t0_ns, range->t1_ns};
  return std::nullopt;
}

std::optional<TimeWindow> timeline_measured(const TimelineView& view) { return view.measured(); }

std::optional<TimeWindow> timeline_selected_span(const TimelineView& view) {
  const auto ref = view.selected();
  if (!ref || view.trace() == nullptr) return std::nullopt;
  const Event& e = view.trace()->event(*ref);
  return TimeWindow{e.start_ns, e.end_ns()};
}

QString scenario_lesson(const QString& scenario) {
  return QString::fromStdString(exp::scenario_lesson(scenario.toStdString()));
}

ClassroomView::ClassroomView(QWidget* parent)
    : QWidget(parent), lesson_(new QLabel(this)), view_(new TimelineView(this)), timer_(new QTimer(this)) {
  const Theme theme = classroom_theme();
  setAutoFillBackground(true);
  // Dark in either application theme (buttons too): a projector shows the black stage, not a light toolbar.
  QPalette pal = dark_app_palette();
  pal.setColor(QPalette::Window, theme.background);
  pal.setColor(QPalette::WindowText, theme.text);
  setPalette(pal);
  lesson_->setWordWrap(true);
  lesson_->setStyleSheet(QStringLiteral("color: #ffd000; padding: 8px;"));
  view_->set_theme(theme);
  overlay_ = new PlaybackOverlay(view_, view_->plot());
  connect(view_, &TimelineView::window_changed, overlay_, qOverload<>(&QWidget::update));
  connect(view_, &TimelineView::lanes_changed, overlay_, qOverload<>(&QWidget::update));

  // The buttons wrap to a second row rather than widen the window past a 1280 px projector.
  auto* bar = new FlowLayout;
  bar->setContentsMargins(4, 0, 4, 0);
  play_ = new QPushButton(tr("Play"), this);
  auto* restart_button = new QPushButton(tr("Restart"), this);
  auto* slower = new QPushButton(tr("Slower"), this);
  auto* faster = new QPushButton(tr("Faster"), this);
  reveal_ = new QPushButton(tr("Reveal GPUs"), this);
  reveal_->setCheckable(true);
  full_screen_ = new QPushButton(tr("Full screen"), this);
  full_screen_->setCheckable(true);
  range_ = new QPushButton(tr("Play this range"), this);
  range_->setToolTip(
      tr("Replay only the range measured (shift-drag) or the event selected, here or in the trace "
         "tab this came from; again: back to the timed work"));
  buttons_ = {play_, restart_button, range_, slower, faster, reveal_, full_screen_};
  for (QPushButton* b : buttons_) bar->addWidget(b);
  // A line of its own under the timeline: the sentence never pushes the window wider than the projector.
  status_ = new QLabel(this);
  status_->setStyleSheet(QStringLiteral("color: #ffffff; padding: 2px 8px;"));
  status_->setWordWrap(true);
  connect(play_, &QPushButton::clicked, this, [this] { is_playing() ? pause() : play(); });
  connect(restart_button, &QPushButton::clicked, this, &ClassroomView::restart);
  connect(range_, &QPushButton::clicked, this, [this] { play_range(chosen_range_ ? std::nullopt : offered_range()); });
  connect(view_, &TimelineView::measure_changed, this, &ClassroomView::update_range_button);
  connect(view_, &TimelineView::selection_changed, this, &ClassroomView::update_range_button);
  connect(slower, &QPushButton::clicked, this, [this] { set_playback_duration_ms(duration_ms_ * 2); });
  connect(faster, &QPushButton::clicked, this, [this] { set_playback_duration_ms(duration_ms_ / 2); });
  connect(reveal_, &QPushButton::toggled, this, &ClassroomView::set_gpu_revealed);
  connect(full_screen_, &QPushButton::toggled, this, &ClassroomView::set_full_screen);
  connect(timer_, &QTimer::timeout, this, &ClassroomView::step);
  // A presenter's clicker or keyboard: Space plays and pauses, R reveals, Home restarts.
  auto shortcut = [this](const QKeySequence& keys, auto slot, Qt::ShortcutContext context) {
    auto* s = new QShortcut(keys, this);
    s->setContext(context);
    connect(s, &QShortcut::activated, this, slot);
    return s;
  };
  shortcut(
      QKeySequence(Qt::Key_Space), [this] { is_playing() ? pause() : play(); }, Qt::WidgetWithChildrenShortcut);
  shortcut(
      QKeySequence(Qt::Key_R), [this] { set_gpu_revealed(!revealed_); }, Qt::WidgetWithChildrenShortcut);
  shortcut(
      QKeySequence(Qt::Key_Home), [this] { restart(); }, Qt::WidgetWithChildrenShortcut);
  // Full screen is the window's: F11 and Escape work wherever the focus is (the tab bar, the toolbar, nowhere) while
  // this classroom is the tab in front; a hidden tab's shortcuts are not active.
  shortcut(
      QKeySequence(Qt::Key_F11), [this] { set_full_screen(!is_full_screen()); }, Qt::WindowShortcut);
  escape_ = shortcut(
      QKeySequence(Qt::Key_Escape), [this] { set_full_screen(false); }, Qt::WindowShortcut);
  escape_->setEnabled(false);
  // A click on the timeline seeks the playback cursor; the timeline still sees it (selection, dragging).
  view_->plot()->installEventFilter(this);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(lesson_);
  layout->addWidget(view_, 1);
  layout->addWidget(status_);
  layout->addLayout(bar);
  apply_fonts();
}

void ClassroomView::set_text_scale(double scale) {
  text_scale_ = scale;
  apply_fonts();
}

void ClassroomView::apply_fonts() {
  const Theme theme = classroom_theme(classroom_theme().font_scale * text_scale_);
  lesson_->setFont(theme.font(11, true));
  for (QPushButton* b : buttons_) b->setFont(theme.font(7, true));
  status_->setFont(theme.font(8, true));
  view_->set_theme(exercise_ != nullptr ? classroom_theme(exercise_timeline_scale()) : theme);
  if (exercise_ != nullptr) {
    exercise_->set_text_scale(text_scale_);
    exercise_->set_timeline_scale(exercise_timeline_scale());
    show_exercise_step();
  }
}

void ClassroomView::set_trace(std::shared_ptr<const Trace> trace, const QString& scenario,
                              std::shared_ptr<const DocumentAnalysis> analysis) {
  trace_ = std::move(trace);
  analysis_ = std::move(analysis);
  view_->set_trace(trace_);
  std::set<std::int64_t> gpus;
  for (const Lane& lane : trace_->lanes())
    if (lane.is_gpu()) gpus.insert(lane.device());
  one_gpu_ = gpus.size() == 1;
  view_->focus_on_gpu_lanes();
  show_launching_threads();
  // The critical path answers a later question (what bounds the loop); the projector needs the room for the GPUs.
  view_->set_row_hidden("critical path", true);
  view_->set_warmup_labels(false);  // the bands stay; the projector has no room for their names
  const QString name = scenario.isEmpty() ? QString::fromStdString(trace_->metadata().scenario) : scenario;
  const QString lesson = scenario_lesson(name);
  lesson_->setText(lesson.isEmpty() ? name : QStringLiteral("%1: %2").arg(name, lesson));
  revealed_ = false;
  reveal_->setChecked(false);
  timed_span_ = classroom_playback_span(*trace_, analysis_ ? &analysis_->report() : nullptr);
  span_ = timed_span_;
  chosen_range_ = false;
  update_range_button();
  apply_lane_visibility();
  // The class watches the timed work from its start; F still fits the whole recording.
  view_->fit();
  zoom_to_span();
  set_cursor_ns(span_.start_ns);
}

// The lesson is launches queueing up ahead of the GPU: the threads that launched GPU work show their calls, down to
// the launches; threads that launched nothing (the tracer's own, data loaders) are hidden.
void ClassroomView::show_launching_threads() {
  std::vector<char> launched(trace_->lanes().size(), 0);
  for (const Flow& f : trace_->flows())
    if (f.kind == FlowKind::LaunchToGpu && f.from.lane < launched.size()) launched[f.from.lane] = 1;
  const auto& lanes = trace_->lanes();
  for (LaneIndex i = 0; i < lanes.size(); ++i) {
    if (lanes[i].is_gpu()) continue;
    if (launched[i] == 0) {
      view_->set_lane_hidden(i, true);
    } else if (view_->lane_state().collapsed_rows.count(event_lane_row_id(lanes[i].key)) != 0) {
      view_->toggle_lane_collapsed(i);
    }
  }
}

QString ClassroomView::lesson() const { return lesson_->text(); }

QString ClassroomView::status_text() const { return status_->text(); }

void ClassroomView::set_playback_duration_ms(int duration_ms) { duration_ms_ = std::max(duration_ms, tick_ms()); }

TimeNs ClassroomView::step_ns() const {
  if (!trace_) return 1;
  const TimeNs span = span_.end_ns - span_.start_ns;
  const TimeNs steps = std::max<TimeNs>(1, duration_ms_ / tick_ms());
  return std::max<TimeNs>(1, (span + steps - 1) / steps);
}

void ClassroomView::set_cursor_ns(TimeNs t_ns) {
  cursor_ns_ = trace_ ? std::clamp(t_ns, trace_->start_ns(), trace_->end_ns()) : t_ns;
  overlay_->set_cursor(cursor_ns_);
  view_->set_labels_before_ns(cursor_ns_);  // labels past the cursor would be faded out
  update_status();
  follow_cursor();
  emit cursor_moved(cursor_ns_);
}

void ClassroomView::update_status() {
  if (!trace_) return;
  // Running GPU work would answer the prediction, so it is shown with the GPU lanes.
  const PlaybackStats stats = playback_stats(*trace_, cursor_ns_);
  // An exercise plays the window its question is about (a first forward pass, a stopwatch's work), not the timed work.
  const QString span = exercise_ != nullptr ? tr("the window asked about") : tr("the timed work");
  QString text = tr("%1 into %2").arg(QString::fromStdString(format_duration(cursor_ns_ - span_.start_ns)), span);
  if (cursor_ns_ < span_.start_ns)
    text = tr("%1 before %2").arg(QString::fromStdString(format_duration(span_.start_ns - cursor_ns_)), span);
  text += stats.queued_launches == 1 ? tr(" · 1 launch waiting for the GPU")
                                     : tr(" · %1 launches waiting for the GPU").arg(stats.queued_launches);
  if (revealed_ && stats.running_gpu_ops == 0)
    text += one_gpu_ ? tr(" · the GPU is idle") : tr(" · every GPU is idle");
  else if (revealed_)
    text += (stats.running_gpu_ops == 1 ? tr(" · 1 kernel or copy running")
                                        : tr(" · %1 kernels and copies running").arg(stats.running_gpu_ops)) +
            (one_gpu_ ? tr(" on the GPU") : tr(" on the GPUs"));
  status_->setText(text);
}

void ClassroomView::follow_cursor() {
  // Keep the cursor in view when the teacher has zoomed in: page so it sits at a fifth of the window.
  const TimeWindow w = view_->window();
  if (cursor_ns_ >= w.t0_ns && cursor_ns_ <= w.t1_ns) return;
  const TimeNs t0 = cursor_ns_ - w.span_ns() / 5;
  view_->set_window({t0, t0 + w.span_ns()});
}

void ClassroomView::set_source_range(std::optional<TimeWindow> range) {
  source_range_ = range;
  update_range_button();
}

std::optional<PlaybackSpan> ClassroomView::offered_range() const {
  return chosen_playback_range(timeline_measured(*view_), timeline_selected_span(*view_), source_range_);
}

void ClassroomView::play_range(std::optional<PlaybackSpan> range) {
  if (!trace_) return;
  pause();
  chosen_range_ = range.has_value();
  span_ = timed_span_;
  if (range) {
    span_.start_ns = std::clamp(range->start_ns, trace_->start_ns(), trace_->end_ns());
    span_.end_ns = std::clamp(range->end_ns, span_.start_ns, trace_->end_ns());
  }
  update_range_button();
  set_cursor_ns(span_.start_ns);
  zoom_to_span();
  if (range) play();
}

void ClassroomView::update_range_button() {
  range_->setText(chosen_range_ ? tr("Play the timed work") : tr("Play this range"));
  range_->setEnabled(chosen_range_ || offered_range().has_value());
}

void ClassroomView::zoom_to_span() {
  if (exercise_ != nullptr && !chosen_range_) {
    view_->set_window(exercise_->question_window());  // the scale the variant is drawn at
    return;
  }
  if (span_.end_ns > span_.start_ns) view_->set_window(fit_window(span_.start_ns, span_.end_ns, 0.03));
}

void ClassroomView::play() {
  if (!trace_) return;
  // From the start, the class watches the span being played, not the whole recording.
  if (cursor_ns_ >= span_.end_ns || cursor_ns_ <= span_.start_ns) {
    if (cursor_ns_ != span_.start_ns) set_cursor_ns(span_.start_ns);
    zoom_to_span();
  }
  timer_->start(tick_ms());
  play_->setText(tr("Pause"));
}

void ClassroomView::pause() {
  timer_->stop();
  play_->setText(tr("Play"));
}

void ClassroomView::restart() {
  if (trace_) set_cursor_ns(span_.start_ns);
}

bool ClassroomView::is_playing() const { return timer_->isActive(); }

void ClassroomView::step() {
  if (!trace_) return;
  set_cursor_ns(std::min(cursor_ns_ + step_ns(), span_.end_ns));
  if (cursor_ns_ >= span_.end_ns) {
    pause();
    emit playback_finished();
  }
}

void ClassroomView::set_gpu_revealed(bool revealed) {
  revealed_ = revealed;
  if (reveal_->isChecked() != revealed) reveal_->setChecked(revealed);
  reveal_->setText(revealed ? tr("Hide GPUs") : tr("Reveal GPUs"));
  apply_lane_visibility();
}

void ClassroomView::apply_lane_visibility() {
  if (!trace_) return;
  const auto& lanes = trace_->lanes();
  for (LaneIndex i = 0; i < lanes.size(); ++i)
    if (lanes[i].is_gpu()) view_->set_lane_hidden(i, !revealed_);
  // The overlap strip would give the answer away, so it appears with the GPU lanes.
  view_->set_overlays(revealed_ && analysis_ ? analysis_->overlays : OverlayData{});
  // Revealed, the GPU lanes come into view at the bottom, under the launches and ranges above them.
  if (revealed_) view_->set_scroll_px(view_->layout().total_height_px());
  lesson_->setVisible(revealed_ && exercise_ == nullptr);
  update_status();
  const QString hidden = exercise_ != nullptr
                             ? tr("GPU lanes hidden: when does the GPU finish? Pick a choice, then press Reveal.")
                             : tr("GPU lanes hidden: when do the GPUs run? Predict, then press Reveal GPUs.");
  overlay_->set_prompt(revealed_ ? QString() : hidden);
  view_->replot_now();
}

bool ClassroomView::lesson_shown() const { return !lesson_->isHidden(); }

void ClassroomView::set_full_screen(bool full_screen) {
  QWidget* top = window();
  if (full_screen != top->isFullScreen())
    top->setWindowState(full_screen ? top->windowState() | Qt::WindowFullScreen
                                    : top->windowState() & ~Qt::WindowFullScreen);
  if (full_screen_->isChecked() != full_screen) full_screen_->setChecked(full_screen);
  full_screen_->setText(full_screen ? tr("Leave full screen") : tr("Full screen"));
  escape_->setEnabled(full_screen);
  emit projector_view_changed(full_screen);
}

bool ClassroomView::is_full_screen() const { return window()->isFullScreen(); }

bool ClassroomView::eventFilter(QObject* watched, QEvent* event) {
  if (watched != view_->plot() || !trace_) return false;
  // An exercise's timeline is as tall as its rows: known once the plot has a size.
  if (event->type() == QEvent::Resize && exercise_ != nullptr)
    QTimer::singleShot(0, this, &ClassroomView::show_exercise_step);
  const auto* mouse = static_cast<QMouseEvent*>(event);
  if (event->type() == QEvent::MouseButtonPress && mouse->button() == Qt::LeftButton) {
    press_px_ = mouse->position().toPoint();
  } else if (event->type() == QEvent::MouseButtonRelease && mouse->button() == Qt::LeftButton) {
    const QPoint at = mouse->position().toPoint();
    const QRectF lanes = view_->lane_rect();
    const bool click = (at - press_px_).manhattanLength() <= 4;  // a drag pans; only a click seeks
    if (click && at.x() >= lanes.left() && at.x() <= lanes.right())
      set_cursor_ns(TimeMapping(view_->window(), lanes.width()).time_at(at.x() - lanes.left()));
  }
  return false;
}

}  // namespace gtv::ui
