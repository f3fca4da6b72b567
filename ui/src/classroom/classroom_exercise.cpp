// The classroom's exercise mode (ClassroomView::start_exercise) and the ways in: Runs > Classroom exercises and
// `gtv --exercise NAME`.
#include <qcustomplot.h>

#include <QApplication>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "gtv/ui/classroom_view.h"
#include "gtv/ui/exercise_panel.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/timeline_view.h"

namespace gtv::ui {

void ClassroomView::start_exercise(std::shared_ptr<const Exercise> exercise) {
  pause();
  const ExerciseRecording& q = exercise->question;
  // Two timelines share the projector's height: theirs is the classroom's look at 70% of its size (the
  // question and the answers above and under them keep the classroom's).
  view_->set_theme(classroom_theme(exercise_timeline_scale()));
  set_trace(q.trace, QString::fromStdString(exercise->lesson_scenario), q.analysis);
  show_exercise_lanes(view_, q.start_ns, q.end_ns);
  // The variant's timeline under it carries the time axis's name; the ticks above the lanes carry the times.
  view_->plot()->xAxis->setVisible(false);
  auto* box = static_cast<QVBoxLayout*>(layout());
  if (exercise_ == nullptr) {
    exercise_ = new ExercisePanel(view_, classroom_theme(classroom_theme().font_scale * text_scale_), this);
    box->insertWidget(0, exercise_->prompt());
    box->insertWidget(box->indexOf(view_) + 1, exercise_);
    connect(exercise_, &ExercisePanel::step_changed, this, &ClassroomView::show_exercise_step);
  }
  exercise_->set_exercise(std::move(exercise));
  // Playback replays the window asked about; the cursor stands where the question's recording stops being shown.
  timed_span_ = {q.start_ns, q.end_ns};
  span_ = timed_span_;
  chosen_range_ = false;
  update_range_button();
  set_gpu_revealed(!q.gpu_hidden);
  zoom_to_span();
  set_cursor_ns(q.cursor_ns);
  show_exercise_step();
}

double ClassroomView::exercise_timeline_scale() const {
  // Two timelines share the projector's height: on a 720-line projector their text is smaller than on a 1080-line
  // one (never under the window's own size), the question and the answers around them keep the classroom's.
  const double lines = height() > 0 ? height() : 1080;
  return kExerciseTimelineFontScale * text_scale_ * std::clamp(lines / 1080.0, 1.0 / kExerciseTimelineFontScale, 1.0);
}

void ClassroomView::show_exercise_step() {
  if (exercise_ == nullptr) return;
  const double scale = exercise_timeline_scale();
  if (std::abs(view_->theme().font_scale - scale) > 0.01) view_->set_theme(classroom_theme(scale));
  if (std::abs(exercise_->reveal_view()->theme().font_scale - scale) > 0.01) exercise_->set_timeline_scale(scale);
  // The question's timeline keeps the height its rows need, from question to reveal, so nothing moves when the
  // variant's timeline appears under it and takes the rest.
  auto* box = static_cast<QVBoxLayout*>(layout());
  box->setStretchFactor(view_, 0);
  box->setStretchFactor(exercise_, 1);
  view_->replot_now();
  if (view_->lane_rect().height() <= 0 && exercise_->step() != ExercisePanel::Step::Revealed) return;
  // At most 45% of the classroom's height: the variant's timeline needs as much under it. Revealed, the two share
  // the room the timelines have, so the variant's GPU lanes are drawn on a short projector too.
  int height_px = std::min(needed_height_px(*view_), static_cast<int>(0.45 * height()));
  if (exercise_->reveal_shown()) {
    // In proportion to what each needs to show all its rows.
    const int shared_px = view_->height() + exercise_->reveal_view()->height();
    const int question_px = needed_height_px(*view_);
    const int variant_px = needed_height_px(*exercise_->reveal_view());
    height_px = std::min(height_px, std::max(shared_px * question_px / std::max(question_px + variant_px, 1), 40));
  }
  if (view_->height() != height_px) view_->setFixedHeight(height_px);
  // Revealed, the question's GPU lanes (last in its layout) are the ones compared with the variant's.
  if (exercise_->reveal_shown()) view_->set_scroll_px(view_->layout().total_height_px());
}

ClassroomView* open_exercise(MainWindow* window, const QString& name, QString* error, const QString& traces_dir) {
  const ExerciseSpec* spec = find_exercise(name.toStdString());
  if (spec == nullptr) {
    *error = QObject::tr("no exercise '%1' (the exercises: %2)").arg(name, QString::fromStdString(exercise_names()));
    return nullptr;
  }
  const QString dir = traces_dir.isEmpty() ? bundled_traces_dir() : traces_dir;
  if (!QFileInfo(dir).isDir()) {
    *error = QObject::tr("the bundled recordings are not installed (looked in %1)").arg(dir);
    return nullptr;
  }
  // Two recordings of about 100 kB and their analyses: read here, in a fraction of a second.
  QApplication::setOverrideCursor(Qt::WaitCursor);
  Expected<Exercise> exercise = load_exercise(*spec, dir.toStdString());
  QApplication::restoreOverrideCursor();
  if (!exercise) {
    *error = QString::fromStdString(exercise.error().message);
    return nullptr;
  }
  auto* view = new ClassroomView;
  view->set_text_scale(window->theme().font_scale);
  const int index = window->tabs()->addTab(view, QObject::tr("exercise: %1").arg(name));
  window->tabs()->setTabToolTip(index, QString::fromStdString(exercise->measured_on));
  window->tabs()->setCurrentIndex(index);
  view->start_exercise(std::make_shared<const Exercise>(std::move(exercise).value()));
  QObject::connect(view, &ClassroomView::projector_view_changed, window, &MainWindow::set_projector_view);
  return view;
}

void add_exercise_menu(QMenu* runs_menu, MainWindow* window) {
  QMenu* menu = runs_menu->addMenu(QObject::tr("Classroom e&xercises (predict, simulate, reveal)"));
  menu->setToolTipsVisible(true);
  const bool have_recordings = QFileInfo(bundled_traces_dir()).isDir();
  for (const ExerciseSpec& spec : exercise_specs()) {
    const QString name = QString::fromStdString(std::string(spec.name));
    QAction* action = menu->addAction(
        QStringLiteral("%1 (%2)").arg(QString::fromStdString(std::string(spec.title)), name), window, [window, name] {
          QString error;
          if (!open_exercise(window, name, &error))
            QMessageBox::warning(window, QObject::tr("Classroom exercise"), error);
        });
    action->setToolTip(QString::fromStdString(std::string(spec.question)));
    action->setEnabled(have_recordings);
  }
}

}  // namespace gtv::ui
