#include "gtv/ui/exercise_panel.h"

#include <qcustomplot.h>

#include <QButtonGroup>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "gtv/base/install_layout.h"
#include "gtv/ui/classroom_view.h"
#include "gtv/ui/document_analysis.h"
#include "gtv/ui/event_lane_row.h"
#include "gtv/ui/flow_layout.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/timeline_row.h"
#include "gtv/ui/timeline_view.h"

namespace gtv::ui {
namespace {

constexpr double kMarginShare = 0.03;  // each side of the longer window: the ends stay clear of the plot's edges

QString text(const std::string& s) { return QString::fromStdString(s); }

QString button_style(const char* border, const char* background) {
  return QStringLiteral("QPushButton { color: #ffffff; background: %2; border: 3px solid %1; padding: 2px 12px; }")
      .arg(QLatin1String(border), QLatin1String(background));
}

}  // namespace

void show_exercise_lanes(TimelineView* view, TimeNs start_ns, TimeNs end_ns) {
  view->focus_on_gpu_lanes();
  view->set_row_hidden("critical path", true);
  view->set_warmup_labels(false);
  for (const auto& row : view->timeline_rows())
    if (row->desc().id.starts_with("ranges ")) view->set_row_hidden(row->desc().id, true);
  const Trace* trace = view->trace();
  std::vector<char> launched(trace->lanes().size(), 0);
  for (const Flow& f : trace->flows())
    if (f.kind == FlowKind::LaunchToGpu && f.from.lane < launched.size()) launched[f.from.lane] = 1;
  for (LaneIndex i = 0; i < trace->lanes().size(); ++i) {
    const Lane& lane = trace->lanes()[i];
    if (!lane.is_gpu()) {
      if (launched[i] == 0) view->set_lane_hidden(i, true);
      continue;
    }
    const bool busy = std::any_of(lane.events.begin(), lane.events.end(), [&](const Event& e) {
      return is_gpu_activity(e.kind) && e.start_ns < end_ns && e.end_ns() > start_ns;
    });
    if (!busy) view->set_lane_hidden(i, true);
    // A stream runs one kernel at a time: folded to one row it loses nothing the question needs.
    if (view->lane_state().collapsed_rows.count(event_lane_row_id(lane.key)) == 0) view->toggle_lane_collapsed(i);
  }
}

int needed_height_px(TimelineView& view) {
  view.replot_now();  // the lane area at the view's present size
  const double chrome_px = view.height() - view.lane_rect().height();
  return static_cast<int>(std::ceil(chrome_px + view.layout().total_height_px()));
}

QString bundled_traces_dir() { return QString::fromStdString((gtv::data_dir() / "traces").string()); }

ExercisePanel::ExercisePanel(TimelineView* question_view, const Theme& theme, QWidget* parent)
    : QWidget(parent),
      question_view_(question_view),
      prompt_(new QWidget(parent)),
      prompt_text_(new QLabel(prompt_)),
      question_caption_(new QLabel(prompt_)),
      choices_(new QButtonGroup(this)),
      choice_row_(new QWidget(this)),
      simulate_(new QPushButton(tr("Simulate"), this)),
      reveal_(new QPushButton(tr("Reveal"), this)),
      simulation_(new QLabel(this)),
      reveal_caption_(new QLabel(this)),
      reveal_view_(new TimelineView(this)),
      outcome_(new QLabel(this)) {
  auto* prompt_layout = new QVBoxLayout(prompt_);
  prompt_layout->setContentsMargins(8, 4, 8, 0);
  prompt_layout->setSpacing(2);
  prompt_text_->setWordWrap(true);
  prompt_text_->setStyleSheet(QStringLiteral("color: #ffd000;"));
  question_caption_->setWordWrap(true);
  question_caption_->setStyleSheet(QStringLiteral("color: #ffffff;"));
  prompt_layout->addWidget(prompt_text_);
  prompt_layout->addWidget(question_caption_);

  choices_->setExclusive(true);
  // The choices get rows of their own, wrapping where the projector is narrow; the steps and what they show go on
  // the row under them.
  auto* choice_layout = new FlowLayout(choice_row_);
  choice_layout->setContentsMargins(8, 0, 8, 0);
  auto* steps = new QHBoxLayout;
  steps->setContentsMargins(8, 0, 0, 0);
  for (QPushButton* b : {simulate_, reveal_}) steps->addWidget(b, 0, Qt::AlignTop);
  steps->addWidget(simulation_, 1);
  simulate_->setToolTip(tr("What gtv predicts from this recording alone (core/whatif)"));
  reveal_->setToolTip(tr("Draw the recording of the variant at the same time scale, and say which choice was right"));
  connect(choices_, &QButtonGroup::idClicked, this, &ExercisePanel::choose);
  connect(simulate_, &QPushButton::clicked, this, &ExercisePanel::simulate);
  connect(reveal_, &QPushButton::clicked, this, &ExercisePanel::reveal);

  simulation_->setWordWrap(true);
  simulation_->setStyleSheet(QStringLiteral("color: #60d0ff; padding: 2px 8px;"));
  simulation_->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  reveal_caption_->setWordWrap(true);
  reveal_caption_->setStyleSheet(QStringLiteral("color: #ffffff; padding: 0px 8px;"));
  outcome_->setWordWrap(true);
  outcome_->setStyleSheet(QStringLiteral("color: #80ff80; padding: 2px 8px;"));
  text_scale_ = theme.font_scale / classroom_theme().font_scale;
  apply_fonts();

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(4);
  layout->addWidget(choice_row_);
  layout->addLayout(steps);
  layout->addWidget(reveal_caption_);
  layout->addWidget(reveal_view_, 1);
  layout->addWidget(outcome_);
  layout->addStretch(0);  // before the reveal, the room the variant's timeline will take

  // Whatever height the reveal's timeline gets, its GPU lanes (last in the layout) and the strip are in view.
  reveal_view_->plot()->installEventFilter(this);
  connect(question_view_, &TimelineView::window_changed, this, &ExercisePanel::sync_reveal_from_question);
  connect(reveal_view_, &TimelineView::window_changed, this, &ExercisePanel::sync_question_from_reveal);
  show_step();
}

void ExercisePanel::set_exercise(std::shared_ptr<const Exercise> exercise) {
  exercise_ = std::move(exercise);
  chosen_ = -1;
  step_ = Step::Question;
  for (QPushButton* b : choice_buttons_) {
    choices_->removeButton(b);
    b->deleteLater();
  }
  choice_buttons_.clear();
  const Theme theme = classroom_theme(classroom_theme().font_scale * text_scale_);  // read from the back of the room
  for (std::size_t i = 0; i < exercise_->choices.size(); ++i) {
    auto* b = new QPushButton(text(exercise_->choices[i].label), choice_row_);
    b->setCheckable(true);
    b->setFont(theme.font(8, true));
    choices_->addButton(b, static_cast<int>(i));
    choice_row_->layout()->addWidget(b);
    choice_buttons_.push_back(b);
  }
  question_caption_->setText(text(exercise_->question.caption));
  question_caption_->setToolTip(text(exercise_->measured_on));
  // Both timelines count from their window's start, and may pan beyond their trace so neither is ever clamped
  // (a clamped window would break the shared scale).
  const TimeWindow qw = question_window();
  const Trace& qt = *exercise_->question.trace;
  const Trace& rt = *exercise_->reveal.trace;
  const TimeNs lo = std::min({qt.start_ns(), rt.start_ns() - offset_ns(), qw.t0_ns});
  const TimeNs hi = std::max({qt.end_ns(), rt.end_ns() - offset_ns(), qw.t1_ns});
  question_view_->set_bounds(TimeWindow{lo, hi});
  question_view_->set_axis_origin(exercise_->question.start_ns, tr("time from the start of the window asked about"));
  question_view_->set_label_width_px(std::nullopt);
  reveal_view_->set_trace({});
  show_step();
}

void ExercisePanel::set_text_scale(double scale) {
  text_scale_ = scale;
  apply_fonts();
}

void ExercisePanel::apply_fonts() {
  const Theme theme = classroom_theme(classroom_theme().font_scale * text_scale_);
  prompt_text_->setFont(theme.font(9, true));
  question_caption_->setFont(theme.font(7, true));
  for (QPushButton* b : {simulate_, reveal_}) b->setFont(theme.font(8, true));
  for (QPushButton* b : choice_buttons_) b->setFont(theme.font(8, true));
  simulation_->setFont(theme.font(8, true));
  reveal_caption_->setFont(theme.font(7, true));
  outcome_->setFont(theme.font(8, true));
  reveal_view_->set_theme(classroom_theme(timeline_scale_));
}

void ExercisePanel::set_timeline_scale(double scale) {
  timeline_scale_ = scale;
  reveal_view_->set_theme(classroom_theme(timeline_scale_));
}

int ExercisePanel::choice_count() const { return static_cast<int>(choice_buttons_.size()); }

QString ExercisePanel::choice_text(int index) const {
  return index >= 0 && index < choice_count() ? choice_buttons_[static_cast<std::size_t>(index)]->text() : QString();
}

void ExercisePanel::choose(int index) {
  if (!exercise_) return;
  chosen_ = index >= 0 && index < choice_count() ? index : -1;
  if (chosen_ >= 0) {
    choice_buttons_[static_cast<std::size_t>(chosen_)]->setChecked(true);
  } else if (QAbstractButton* b = choices_->checkedButton()) {
    choices_->setExclusive(false);
    b->setChecked(false);
    choices_->setExclusive(true);
  }
  show_step();
}

void ExercisePanel::simulate() {
  if (!exercise_ || step_ != Step::Question) return;
  step_ = Step::Simulated;
  show_step();
  emit step_changed();
}

void ExercisePanel::reveal() {
  if (!exercise_ || step_ == Step::Revealed) return;
  step_ = Step::Revealed;
  const ExerciseRecording& r = exercise_->reveal;
  syncing_ = true;  // the new trace's first window is not the teacher's: the question's sets it below
  reveal_view_->set_trace(r.trace);
  if (r.analysis) reveal_view_->set_overlays(r.analysis->overlays);
  show_exercise_lanes(reveal_view_, r.start_ns, r.end_ns);
  const TimeWindow rw = reveal_window();
  const Trace& qt = *exercise_->question.trace;
  const Trace& rt = *r.trace;
  const TimeNs lo = std::min({qt.start_ns() + offset_ns(), rt.start_ns(), rw.t0_ns});
  const TimeNs hi = std::max({qt.end_ns() + offset_ns(), rt.end_ns(), rw.t1_ns});
  reveal_view_->set_bounds(TimeWindow{lo, hi});
  reveal_view_->set_axis_origin(r.start_ns, tr("time from the start of the window asked about"));
  // One label column width for both, so one moment sits at one x in both.
  question_view_->set_label_width_px(std::nullopt);
  reveal_view_->set_label_width_px(std::nullopt);
  const double label_px = std::max(question_view_->label_width_px(), reveal_view_->label_width_px());
  question_view_->set_label_width_px(label_px);
  reveal_view_->set_label_width_px(label_px);
  show_step();
  syncing_ = false;
  // At the question's scale, wherever the teacher has zoomed or panned it to.
  sync_reveal_from_question();
  reveal_view_->replot_now();
  emit step_changed();
}

bool ExercisePanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == reveal_view_->plot() && event->type() == QEvent::Resize && step_ == Step::Revealed)
    QTimer::singleShot(0, this, [this] {
      reveal_view_->replot_now();  // the lane area at the new size
      reveal_view_->set_scroll_px(reveal_view_->layout().total_height_px());
    });
  return false;
}

bool ExercisePanel::reveal_shown() const { return step_ == Step::Revealed && !reveal_view_->isHidden(); }

QString ExercisePanel::simulation_text() const { return simulation_->isHidden() ? QString() : simulation_->text(); }

QString ExercisePanel::outcome_text() const { return outcome_->isHidden() ? QString() : outcome_->text(); }

TimeNs ExercisePanel::window_span_ns() const {
  if (!exercise_) return 1;
  const TimeNs longer = std::max(exercise_->question.length_ns(), exercise_->reveal.length_ns());
  return std::max<TimeNs>(kMinSpanNs, longer + 2 * static_cast<TimeNs>(kMarginShare * static_cast<double>(longer)));
}

TimeNs ExercisePanel::offset_ns() const {
  return exercise_ ? exercise_->reveal.start_ns - exercise_->question.start_ns : 0;
}

TimeWindow ExercisePanel::question_window() const {
  if (!exercise_) return {};
  const TimeNs longer = std::max(exercise_->question.length_ns(), exercise_->reveal.length_ns());
  const TimeNs t0 = exercise_->question.start_ns - static_cast<TimeNs>(kMarginShare * static_cast<double>(longer));
  return {t0, t0 + window_span_ns()};
}

TimeWindow ExercisePanel::reveal_window() const {
  const TimeWindow q = question_window();
  return {q.t0_ns + offset_ns(), q.t1_ns + offset_ns()};
}

void ExercisePanel::sync_reveal_from_question() {
  if (syncing_ || step_ != Step::Revealed || reveal_view_->trace() == nullptr) return;
  syncing_ = true;
  const TimeWindow w = question_view_->window();
  reveal_view_->set_window(TimeWindow{w.t0_ns + offset_ns(), w.t1_ns + offset_ns()});
  syncing_ = false;
}

void ExercisePanel::sync_question_from_reveal() {
  if (syncing_ || step_ != Step::Revealed) return;
  syncing_ = true;
  const TimeWindow w = reveal_view_->window();
  question_view_->set_window(TimeWindow{w.t0_ns - offset_ns(), w.t1_ns - offset_ns()});
  syncing_ = false;
}

void ExercisePanel::show_step() {
  const bool simulated = exercise_ && step_ != Step::Question;
  const bool revealed = exercise_ && step_ == Step::Revealed;
  simulate_->setEnabled(exercise_ && step_ == Step::Question);
  reveal_->setEnabled(exercise_ && !revealed);
  // Revealed, the outcome says how far the prediction was: the steps and the prediction make room for the variant.
  simulate_->setVisible(!revealed);
  reveal_->setVisible(!revealed);
  simulation_->setVisible(simulated && !revealed);
  reveal_caption_->setVisible(exercise_ != nullptr);
  reveal_view_->setVisible(revealed);
  outcome_->setVisible(revealed);
  if (!exercise_) return;
  simulation_->setText(text(exercise_->simulation));
  // Revealed, the question folds to its title (the whole question in its tooltip): the room goes to the lanes.
  const QString title = text(std::string(exercise_->spec->title));
  prompt_text_->setText(revealed ? title : QStringLiteral("%1 \u2014 %2").arg(title, text(exercise_->prompt)));
  prompt_text_->setToolTip(revealed ? text(exercise_->prompt) : QString());
  // Before the reveal, the caption says what will appear in the room kept for it.
  reveal_caption_->setText(revealed ? text(exercise_->reveal.caption)
                                    : tr("Reveal draws the recording of the variant here, at the same time scale."));
  reveal_caption_->setStyleSheet(revealed ? QStringLiteral("color: #ffffff; padding: 0px 8px;")
                                          : QStringLiteral("color: #909090; padding: 0px 8px;"));
  reveal_caption_->setToolTip(text(exercise_->measured_on));
  QString outcome = text(exercise_->outcome);
  if (revealed && chosen_ >= 0)
    outcome += chosen_ == exercise_->right_choice ? tr(" The class chose it.")
                                                  : tr(" The class chose \"%1\".").arg(choice_text(chosen_));
  // The lesson is Markdown in the scenario's explanation: its `code` marks are not for the projector.
  const QString lesson = scenario_lesson(text(exercise_->lesson_scenario)).remove(QLatin1Char('`'));
  if (revealed && !lesson.isEmpty()) outcome += QStringLiteral(" ") + lesson;
  outcome_->setText(outcome);
  // The buttons say it too: the class's pick outlined, the prediction's in blue once simulated, the answer in green
  // once revealed (the class's pick in red when it was another).
  for (int i = 0; i < choice_count(); ++i) {
    const bool picked = i == chosen_;
    const char* border = picked ? "#ffd000" : "#606060";
    const char* background = "#202020";
    if (simulated && exercise_->prediction && i == exercise_->predicted_choice) background = "#104a70";
    if (revealed && i == exercise_->right_choice) background = "#1c6a1c";
    if (revealed && picked && i != exercise_->right_choice) background = "#7a1c1c";
    choice_buttons_[static_cast<std::size_t>(i)]->setStyleSheet(button_style(border, background));
    choice_buttons_[static_cast<std::size_t>(i)]->setEnabled(!revealed);
  }
}

}  // namespace gtv::ui
