#include "teaching_shots.h"

#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QEventLoop>
#include <QFile>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "gtv/ui/app_palette.h"
#include "gtv/ui/classroom_view.h"
#include "gtv/ui/compare_view.h"
#include "gtv/ui/exercise.h"
#include "gtv/ui/exercise_panel.h"
#include "gtv/ui/image_file.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/run_features.h"
#include "gtv/ui/run_panel.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_tab.h"

namespace gtv::app {
namespace {

constexpr const char* kModes[] = {"--compare-shot", "--classroom-shot", "--run-panel-shot"};

struct ShotArgs {
  QString mode;
  QString out;
  QSize size{1600, 900};
  double cursor = 0.5;
  bool reveal = false;
  bool dark = false;
  QString scenario;                           // --run-panel-shot: the scenario chosen in the panel
  QString exercise;                           // --classroom-shot: a classroom exercise instead of a trace
  QString step = QStringLiteral("question");  // the exercise's step: question, prediction or reveal
  int choice = 0;                             // the choice picked, 1 = the first; 0: none
  double font_scale = 1;                      // View > Presentation font scale
  QStringList traces;
};

// One-line error in *error when the arguments are malformed.
std::optional<ShotArgs> parse(const QStringList& args, QString* error) {
  ShotArgs s;
  for (int i = 1; i < args.size(); ++i) {
    const QString& a = args[i];
    auto next = [&]() -> QString { return i + 1 < args.size() ? args[++i] : QString(); };
    if (a == QLatin1String("--size")) {
      const QStringList wh = next().split(QLatin1Char('x'));
      if (wh.size() != 2 || wh[0].toInt() <= 0 || wh[1].toInt() <= 0) {
        *error = QStringLiteral("--size wants WxH, e.g. 1600x900");
        return std::nullopt;
      }
      s.size = QSize(wh[0].toInt(), wh[1].toInt());
    } else if (a == QLatin1String("--cursor")) {
      bool ok = false;
      s.cursor = next().toDouble(&ok);
      if (!ok || s.cursor < 0 || s.cursor > 1) {
        *error = QStringLiteral("--cursor wants a fraction of the trace between 0 and 1");
        return std::nullopt;
      }
    } else if (a == QLatin1String("--font-scale")) {
      bool ok = false;
      s.font_scale = next().toDouble(&ok);
      if (!ok || s.font_scale < 0.5 || s.font_scale > 4) {
        *error = QStringLiteral("--font-scale must be a number in 0.5..4");
        return std::nullopt;
      }
    } else if (a == QLatin1String("--reveal")) {
      s.reveal = true;
    } else if (a == QLatin1String("--dark")) {
      s.dark = true;
    } else if (a == QLatin1String("--scenario")) {
      s.scenario = next();
    } else if (a == QLatin1String("--exercise")) {
      s.exercise = next();
    } else if (a == QLatin1String("--step")) {
      s.step = next();
      if (s.step != QLatin1String("question") && s.step != QLatin1String("prediction") &&
          s.step != QLatin1String("reveal")) {
        *error = QStringLiteral("--step wants question, prediction or reveal");
        return std::nullopt;
      }
    } else if (a == QLatin1String("--choice")) {
      bool ok = false;
      s.choice = next().toInt(&ok);
      if (!ok || s.choice < 1) {
        *error = QStringLiteral("--choice wants the number of a choice, 1 for the first");
        return std::nullopt;
      }
    } else if (s.mode.isEmpty() && std::any_of(std::begin(kModes), std::end(kModes),
                                               [&](const char* m) { return a == QLatin1String(m); })) {
      s.mode = a;
      s.out = next();
    } else {
      s.traces << a;
    }
  }
  if (s.out.isEmpty()) *error = QStringLiteral("%1 wants an output file").arg(s.mode);
  if (s.mode == QLatin1String("--compare-shot") && s.traces.size() < 2)
    *error = QStringLiteral("--compare-shot wants two or more traces");
  if (s.mode == QLatin1String("--classroom-shot") && s.exercise.isEmpty() && s.traces.size() != 1)
    *error = QStringLiteral("--classroom-shot wants one trace, or --exercise NAME");
  if (s.mode == QLatin1String("--classroom-shot") && !s.exercise.isEmpty() && !s.traces.isEmpty())
    *error = QStringLiteral("--classroom-shot --exercise reads the bundled recordings: give no trace");
  if (!error->isEmpty()) return std::nullopt;
  return s;
}

int save(QWidget* widget, const QString& out) {
  widget->show();
  QCoreApplication::processEvents();
  for (auto* view : widget->findChildren<ui::TimelineView*>()) view->replot_now();
  QCoreApplication::processEvents();
  if (Status s = ui::save_picture(widget->grab().toImage(), out); !s) {
    std::fprintf(stderr, "gtv: %s\n", s.error().message.c_str());
    return 1;
  }
  std::fprintf(stderr, "wrote %s\n", qPrintable(out));  // stdout may be the picture
  return 0;
}

int compare_shot(const ShotArgs& s) {
  ui::apply_app_palette(s.dark);
  ui::CompareView view;
  view.resize(s.size);
  if (const QString e = view.add_files(s.traces); !e.isEmpty()) {
    std::fprintf(stderr, "gtv: %s\n", qPrintable(e));
    return 1;
  }
  view.set_theme(s.dark ? ui::dark_theme() : ui::light_theme());
  view.show();
  QCoreApplication::processEvents();
  view.show_timed_work();
  return save(&view, s.out);
}

// What the projector shows: the window in the classroom's projector view (the lesson, lanes, strip and controls
// alone), at the size asked for; the cursor at a fraction of the timed work that playback replays.
int exercise_shot(const ShotArgs& s) {
  ui::MainWindow window;
  window.set_dark(s.dark);
  window.set_font_scale(s.font_scale);
  window.resize(s.size);
  window.show();
  QString error;
  ui::ClassroomView* view = ui::open_exercise(&window, s.exercise, &error);
  if (view == nullptr) {
    std::fprintf(stderr, "gtv: %s\n", qPrintable(error));
    return ui::find_exercise(s.exercise.toStdString()) == nullptr ? 2 : 1;
  }
  window.set_projector_view(true);
  QCoreApplication::processEvents();
  ui::ExercisePanel* panel = view->exercise_panel();
  if (s.choice > panel->choice_count()) {
    std::fprintf(stderr, "gtv: --choice %d: exercise %s has %d choices\n", s.choice, qPrintable(s.exercise),
                 panel->choice_count());
    return 2;
  }
  panel->choose(s.choice - 1);
  if (s.step == QLatin1String("prediction")) panel->simulate();
  if (s.step == QLatin1String("reveal")) panel->reveal();
  QCoreApplication::processEvents();
  return save(&window, s.out);
}

int classroom_shot(const ShotArgs& s) {
  if (!s.exercise.isEmpty()) return exercise_shot(s);
  ui::MainWindow window;
  window.set_dark(s.dark);
  window.set_font_scale(s.font_scale);
  QStringList errors;
  ui::MainWindow::set_error_hook([&](const QString&, const QString& message) { errors << message; });
  ui::TraceTab* tab = window.open_file(s.traces[0]);
  tab->document()->wait();
  QCoreApplication::processEvents();
  if (!errors.isEmpty() || !tab->document()->trace()) {
    std::fprintf(stderr, "gtv: %s\n",
                 qPrintable(errors.isEmpty() ? QStringLiteral("cannot read the trace") : errors[0]));
    return 1;
  }
  window.resize(s.size);
  window.show();
  ui::ClassroomView* view = ui::open_classroom(&window);
  window.set_projector_view(true);
  view->set_gpu_revealed(s.reveal);
  QCoreApplication::processEvents();
  const ui::PlaybackSpan span = view->playback_span();
  view->set_cursor_ns(span.start_ns + static_cast<TimeNs>(s.cursor * static_cast<double>(span.end_ns - span.start_ns)));
  QCoreApplication::processEvents();
  return save(&window, s.out);
}

int run_panel_shot(const ShotArgs& s) {
  ui::MainWindow window;
  window.resize(s.size);
  window.set_dark(s.dark);
  ui::RunPanel* panel = ui::install_run_features(&window);
  if (!s.scenario.isEmpty()) {
    const int index = panel->scenario_box()->findText(s.scenario);
    if (index < 0) {
      std::fprintf(stderr, "gtv: --scenario: no scenario '%s' (gtv-cli list names them)\n", qPrintable(s.scenario));
      return 2;
    }
    panel->scenario_box()->setCurrentIndex(index);
  }
  // Shown, the panel asks the runner how many GPUs it sees; the picture waits for the answer (or a minute).
  QEventLoop probe;
  QObject::connect(panel, &ui::RunPanel::gpus_probed, &probe, &QEventLoop::quit);
  for (auto* dock : window.findChildren<QDockWidget*>())
    if (dock->objectName() == QLatin1String("runPanelDock")) dock->show();
  for (const QString& path : s.traces) window.open_file(path);
  window.show();
  if (panel->can_run()) {
    QTimer::singleShot(60000, &probe, &QEventLoop::quit);
    probe.exec();
  }
  for (int i = 0; i < window.tabs()->count(); ++i)
    if (auto* tab = qobject_cast<ui::TraceTab*>(window.tabs()->widget(i))) tab->document()->wait();
  QCoreApplication::processEvents();
  return save(&window, s.out);
}

}  // namespace

bool wants_teaching_shot(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* m : kModes)
      if (std::strcmp(argv[i], m) == 0) return true;
  return false;
}

std::optional<int> run_teaching_shot(const QStringList& arguments) {
  const bool wanted = std::any_of(std::begin(kModes), std::end(kModes),
                                  [&](const char* m) { return arguments.contains(QLatin1String(m)); });
  if (!wanted) return std::nullopt;
  QString error;
  const auto s = parse(arguments, &error);
  if (!s) {
    std::fprintf(stderr, "gtv: %s\n", qPrintable(error));
    return 2;
  }
  if (s->mode == QLatin1String("--compare-shot")) return compare_shot(*s);
  if (s->mode == QLatin1String("--classroom-shot")) return classroom_shot(*s);
  return run_panel_shot(*s);
}

}  // namespace gtv::app
