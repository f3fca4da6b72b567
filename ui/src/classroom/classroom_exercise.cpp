// The classroom's exercise mode (ClassroomView::start_exercise) and the ways in: Runs > Classroom exercises and
// `gtv --exercise NAME`.
#include <QApplication>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>

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
  view_->set_theme(classroom_theme(kExerciseTimelineFontScale));
  set_trace(q.trace, QString::fromStdString(exercise->lesson_scenario), q.analysis);
  show_exercise_lanes(view_, q.start_ns, q.end_ns);
  auto* box = static_cast<QVBoxLayout*>(layout());
  if (exercise_ == nullptr) {
    exercise_ = new ExercisePanel(view_, classroom_theme(), this);
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

void ClassroomView::show_exercise_step() {
  if (exercise_ == nullptr) return;
  // The question's timeline keeps the height its rows need, from question to reveal, so nothing moves when the
  // variant's timeline appears under it and takes the rest.
  auto* box = static_cast<QVBoxLayout*>(layout());
  box->setStretchFactor(view_, 0);
  box->setStretchFactor(exercise_, 1);
  view_->replot_now();
  if (view_->lane_rect().height() <= 0) return;  // not laid out yet: the plot's resize calls this again
  // At most 45% of the classroom's height: the variant's timeline needs as much under it.
  const int height_px = std::min(needed_height_px(*view_), static_cast<int>(0.45 * height()));
  if (view_->height() != height_px) view_->setFixedHeight(height_px);
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
