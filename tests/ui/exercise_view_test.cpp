// QtTest (offscreen): classroom exercises in the window. Each exercise opens in a classroom tab on the bundled
// recordings with its question and choices; simulating shows the prediction; choosing then revealing draws the
// variant's recording at the question's time scale and says which choice was right.
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QTabWidget>
#include <QtTest/QtTest>
#include <algorithm>

#include "gtv/base/time.h"
#include "gtv/ui/classroom_view.h"
#include "gtv/ui/event_lane_row.h"
#include "gtv/ui/exercise.h"
#include "gtv/ui/exercise_panel.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/run_features.h"
#include "gtv/ui/timeline_view.h"

using namespace gtv;
using namespace gtv::ui;

namespace {

const QString kTraces = QStringLiteral(GTV_SOURCE_DIR "/resources/traces");

// Every GPU lane with work in the recording's window is shown (and there is one).
bool gpu_lanes_shown(const TimelineView& view, const ExerciseRecording& r) {
  int shown = 0;
  const Trace& trace = *view.trace();
  for (LaneIndex i = 0; i < trace.lanes().size(); ++i) {
    const Lane& lane = trace.lane(i);
    const bool busy = lane.is_gpu() && std::any_of(lane.events.begin(), lane.events.end(), [&](const Event& e) {
                        return is_gpu_activity(e.kind) && e.start_ns < r.end_ns && e.end_ns() > r.start_ns;
                      });
    if (!busy) continue;
    if (view.lane_state().hidden_rows.count(event_lane_row_id(lane.key)) != 0) return false;
    ++shown;
  }
  return shown > 0;
}

// Every GPU lane of the view with work in the recording's window lies whole in its lane area.
bool gpu_lanes_drawn(const TimelineView& view, const ExerciseRecording& r) {
  const QRectF area = view.lane_rect();
  if (area.height() <= 0) return false;
  int drawn = 0;
  const Trace& trace = *view.trace();
  for (const LaneRow& row : view.layout().rows()) {
    if (!row.lane || !trace.lane(*row.lane).is_gpu()) continue;
    const Lane& lane = trace.lane(*row.lane);
    const bool busy = std::any_of(lane.events.begin(), lane.events.end(), [&](const Event& e) {
      return is_gpu_activity(e.kind) && e.start_ns < r.end_ns && e.end_ns() > r.start_ns;
    });
    if (!busy) continue;
    const double top = area.top() + row.top_px - view.scroll_px();
    if (top < area.top() - 0.5 || top + row.height_px > area.bottom() + 0.5) return false;
    ++drawn;
  }
  return drawn > 0;
}

}  // namespace

class ExerciseViewTest : public QObject {
  Q_OBJECT
 private slots:
  void every_exercise_loads_with_its_question();
  void choosing_then_revealing_shows_the_variant_at_the_same_scale();
  void simulate_shows_the_prediction_and_its_choice();
  void timing_methods_reveals_the_gpu_lanes();
  void zooming_either_timeline_moves_both();
  void every_exercise_fits_a_720p_projector();
  void the_runs_menu_lists_every_exercise();
  void an_unknown_exercise_is_an_error();
};

void ExerciseViewTest::every_exercise_loads_with_its_question() {
  for (const ExerciseSpec& spec : exercise_specs()) {
    const QString name = QString::fromStdString(std::string(spec.name));
    MainWindow window;
    window.resize(1920, 1080);
    window.show();
    QString error;
    ClassroomView* view = open_exercise(&window, name, &error, kTraces);
    QVERIFY2(view != nullptr, qPrintable(name + QStringLiteral(": ") + error));
    ExercisePanel* panel = view->exercise_panel();
    QVERIFY(panel != nullptr);
    const Exercise* ex = panel->exercise();
    QVERIFY(ex != nullptr);
    QCOMPARE(ex->spec, &spec);
    QCOMPARE(window.tabs()->currentWidget(), view);
    QCOMPARE(panel->step(), ExercisePanel::Step::Question);
    QCOMPARE(panel->choice_count(), static_cast<int>(ex->choices.size()));
    for (int i = 0; i < panel->choice_count(); ++i)
      QCOMPARE(panel->choice_text(i), QString::fromStdString(ex->choices[static_cast<std::size_t>(i)].label));
    // The right choice is the one the recorded value falls in, and only that one.
    for (int i = 0; i < panel->choice_count(); ++i)
      QCOMPARE(ex->choices[static_cast<std::size_t>(i)].holds(ex->recorded_value), i == ex->right_choice);
    QCOMPARE(view->view()->trace(), ex->question.trace.get());
    QCOMPARE(view->view()->window(), panel->question_window());
    QVERIFY(!panel->reveal_shown());
    QVERIFY(panel->simulation_text().isEmpty());
    QVERIFY(panel->outcome_text().isEmpty());
    QVERIFY(!view->lesson_shown());  // the lesson would answer the question
    QCOMPARE(gpu_lanes_shown(*view->view(), ex->question), !ex->question.gpu_hidden);
    QCOMPARE(view->playback_span().start_ns, ex->question.start_ns);
    QCOMPARE(view->playback_span().end_ns, ex->question.end_ns);
    QVERIFY2(view->status_text().contains(QStringLiteral(" into the window asked about")),
             qPrintable(view->status_text()));
  }
}

void ExerciseViewTest::choosing_then_revealing_shows_the_variant_at_the_same_scale() {
  for (const ExerciseSpec& spec : exercise_specs()) {
    const QString name = QString::fromStdString(std::string(spec.name));
    MainWindow window;
    window.resize(1920, 1080);
    window.show();
    QString error;
    ClassroomView* view = open_exercise(&window, name, &error, kTraces);
    QVERIFY2(view != nullptr, qPrintable(error));
    ExercisePanel* panel = view->exercise_panel();
    const Exercise* ex = panel->exercise();
    // A wrong choice: the reveal names it beside the right one.
    const int wrong = ex->right_choice == 0 ? 1 : 0;
    panel->choose(wrong);
    QCOMPARE(panel->chosen(), wrong);
    panel->reveal();
    QCoreApplication::processEvents();
    QCOMPARE(panel->step(), ExercisePanel::Step::Revealed);
    QVERIFY(panel->reveal_shown());
    QVERIFY(panel->reveal_view()->isVisible());
    QCOMPARE(panel->reveal_view()->trace(), ex->reveal.trace.get());
    QVERIFY(gpu_lanes_shown(*panel->reveal_view(), ex->reveal));
    QCOMPARE(gpu_lanes_shown(*view->view(), ex->question), !ex->question.gpu_hidden);
    // One time scale: equal spans, each from its own window's start.
    const TimeWindow q = view->view()->window();
    const TimeWindow r = panel->reveal_view()->window();
    QCOMPARE(r.span_ns(), q.span_ns());
    QCOMPARE(r.t0_ns - ex->reveal.start_ns, q.t0_ns - ex->question.start_ns);
    QCOMPARE(panel->reveal_view()->label_width_px(), view->view()->label_width_px());
    const QString right = QString::fromStdString(ex->choices[static_cast<std::size_t>(ex->right_choice)].label);
    QVERIFY2(panel->outcome_text().contains(QStringLiteral("\"%1\"").arg(right)), qPrintable(panel->outcome_text()));
    QVERIFY2(panel->outcome_text().contains(panel->choice_text(wrong)), qPrintable(panel->outcome_text()));
    // The outcome says how far the prediction was; the prediction's paragraph makes room for the variant.
    if (ex->prediction)
      QVERIFY2(panel->outcome_text().contains(QStringLiteral("gtv's prediction, ")), qPrintable(panel->outcome_text()));
  }
}

// At 1280x720 every exercise fits: nothing pushes the window wider, every choice is on screen, no text is cut, and at
// the reveal both timelines draw their GPU lanes.
void ExerciseViewTest::every_exercise_fits_a_720p_projector() {
  for (const ExerciseSpec& spec : exercise_specs()) {
    const QString name = QString::fromStdString(std::string(spec.name));
    MainWindow window;
    window.resize(1280, 720);
    window.show();
    QString error;
    ClassroomView* view = open_exercise(&window, name, &error, kTraces);
    QVERIFY2(view != nullptr, qPrintable(error));
    window.set_projector_view(true);
    ExercisePanel* panel = view->exercise_panel();
    panel->choose(0);
    panel->reveal();
    for (int i = 0; i < 5; ++i) QCoreApplication::processEvents();
    QVERIFY2(window.minimumSizeHint().width() <= 1280, qPrintable(name));
    QCOMPARE(window.width(), 1280);
    const QRect stage = view->rect();
    for (QPushButton* b : view->findChildren<QPushButton*>()) {
      if (!b->isVisibleTo(view)) continue;
      const QRect r(b->mapTo(view, QPoint(0, 0)), b->size());
      QVERIFY2(stage.contains(r), qPrintable(name + QStringLiteral(": button cut: ") + b->text()));
    }
    for (QLabel* l : view->findChildren<QLabel*>()) {
      if (!l->isVisibleTo(view) || l->text().isEmpty() || !l->wordWrap()) continue;
      QVERIFY2(l->height() >= l->heightForWidth(l->width()),
               qPrintable(name + QStringLiteral(": text cut: ") + l->text().left(60)));
    }
    QVERIFY2(gpu_lanes_drawn(*panel->reveal_view(), panel->exercise()->reveal), qPrintable(name));
  }
}

void ExerciseViewTest::simulate_shows_the_prediction_and_its_choice() {
  MainWindow window;
  window.resize(1920, 1080);
  window.show();
  QString error;
  ClassroomView* view = open_exercise(&window, QStringLiteral("streams"), &error, kTraces);
  QVERIFY2(view != nullptr, qPrintable(error));
  ExercisePanel* panel = view->exercise_panel();
  const Exercise* ex = panel->exercise();
  QVERIFY(ex->prediction.has_value());
  panel->choose(ex->right_choice);
  panel->simulate();
  QCOMPARE(panel->step(), ExercisePanel::Step::Simulated);
  QVERIFY(!panel->reveal_shown());
  const QString predicted = QString::fromStdString(format_duration(ex->prediction->predicted_ns));
  QVERIFY2(panel->simulation_text().contains(predicted), qPrintable(panel->simulation_text()));
  const QString choice = QString::fromStdString(ex->choices[static_cast<std::size_t>(ex->predicted_choice)].label);
  QVERIFY2(panel->simulation_text().contains(choice), qPrintable(panel->simulation_text()));
  panel->reveal();
  QVERIFY2(panel->outcome_text().contains(QStringLiteral("The class chose it.")), qPrintable(panel->outcome_text()));
}

void ExerciseViewTest::timing_methods_reveals_the_gpu_lanes() {
  MainWindow window;
  window.resize(1920, 1080);
  window.show();
  QString error;
  ClassroomView* view = open_exercise(&window, QStringLiteral("timing-methods"), &error, kTraces);
  QVERIFY2(view != nullptr, qPrintable(error));
  ExercisePanel* panel = view->exercise_panel();
  const Exercise* ex = panel->exercise();
  QVERIFY(!view->gpu_revealed());
  QVERIFY(!gpu_lanes_shown(*view->view(), ex->question));
  QCOMPARE(view->cursor_ns(), ex->question.cursor_ns);  // after the stopwatch's end everything is faded
  panel->reveal();
  // The question stays what the stopwatch saw; the reveal's timeline shows the GPU finishing the work.
  QVERIFY(!gpu_lanes_shown(*view->view(), ex->question));
  QCOMPARE(view->cursor_ns(), ex->question.cursor_ns);
  QVERIFY(gpu_lanes_shown(*panel->reveal_view(), ex->reveal));
  QCOMPARE(panel->reveal_view()->window().span_ns(), view->view()->window().span_ns());
}

void ExerciseViewTest::zooming_either_timeline_moves_both() {
  MainWindow window;
  window.resize(1920, 1080);
  window.show();
  QString error;
  ClassroomView* view = open_exercise(&window, QStringLiteral("copies"), &error, kTraces);
  QVERIFY2(view != nullptr, qPrintable(error));
  ExercisePanel* panel = view->exercise_panel();
  const Exercise* ex = panel->exercise();
  panel->reveal();
  const TimeNs offset = ex->reveal.start_ns - ex->question.start_ns;
  view->view()->zoom_by(2.0);
  QCOMPARE(panel->reveal_view()->window().t0_ns, view->view()->window().t0_ns + offset);
  QCOMPARE(panel->reveal_view()->window().span_ns(), view->view()->window().span_ns());
  panel->reveal_view()->pan_by_px(-200);
  QCOMPARE(view->view()->window().t0_ns, panel->reveal_view()->window().t0_ns - offset);
}

void ExerciseViewTest::the_runs_menu_lists_every_exercise() {
  MainWindow window;
  install_run_features(&window);
  QMenu* exercises = nullptr;
  for (QAction* a : window.menuBar()->actions())
    if (a->menu() != nullptr)
      for (QAction* b : a->menu()->actions())
        if (b->menu() != nullptr && b->text().remove(QLatin1Char('&')).contains(QStringLiteral("exercises")))
          exercises = b->menu();
  QVERIFY(exercises != nullptr);
  QCOMPARE(exercises->actions().size(), static_cast<qsizetype>(exercise_specs().size()));
  std::size_t i = 0;
  for (QAction* a : exercises->actions())
    QVERIFY2(a->text().contains(QString::fromStdString(std::string(exercise_specs()[i++].name))),
             qPrintable(a->text()));
}

void ExerciseViewTest::an_unknown_exercise_is_an_error() {
  MainWindow window;
  QString error;
  QVERIFY(open_exercise(&window, QStringLiteral("no-such"), &error, kTraces) == nullptr);
  QVERIFY2(error.contains(QStringLiteral("no exercise 'no-such'")), qPrintable(error));
  QVERIFY2(error.contains(QStringLiteral("streams")), qPrintable(error));
  QVERIFY(open_exercise(&window, QStringLiteral("streams"), &error, QStringLiteral("/nonexistent")) == nullptr);
  QVERIFY2(error.contains(QStringLiteral("/nonexistent")), qPrintable(error));
  QCOMPARE(window.tabs()->count(), 0);
}

QTEST_MAIN(ExerciseViewTest)
#include "exercise_view_test.moc"
