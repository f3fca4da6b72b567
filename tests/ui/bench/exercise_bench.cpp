// Offscreen benchmark of the classroom exercises at 1920x1080 in the projector view: for each exercise, the time to
// open it (read both recordings, analyse them, predict, build the question) and the time of the reveal, from the
// press of Reveal to the whole window painted (the variant's timeline set up and drawn, grabbed as an image). Prints
// the median and the slowest of the repeats. Usage: gtv_ui_exercise_bench [--repeats N] [TRACES_DIR]
#include <QApplication>
#include <QElapsedTimer>
#include <QTabWidget>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gtv/ui/classroom_view.h"
#include "gtv/ui/exercise.h"
#include "gtv/ui/exercise_panel.h"
#include "gtv/ui/main_window.h"

namespace {

using namespace gtv;
using namespace gtv::ui;

double ms_since(const QElapsedTimer& t) { return static_cast<double>(t.nsecsElapsed()) / 1e6; }

struct Stats {
  double median_ms = 0;
  double max_ms = 0;
};

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.back()};
}

void print_load() {
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    char buf[128] = {};
    if (std::fgets(buf, sizeof buf, f) != nullptr) std::printf("loadavg: %s", buf);
    std::fclose(f);
  }
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  int repeats = 5;
  QString traces = QStringLiteral(GTV_SOURCE_DIR "/resources/traces");
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
      repeats = std::max(1, std::atoi(argv[++i]));
    else
      traces = QString::fromLocal8Bit(argv[i]);
  }
  print_load();
  std::printf("%-16s %12s %12s %14s %12s\n", "exercise", "open median", "open max", "reveal median", "reveal max");
  double slowest_reveal_ms = 0;
  for (const ExerciseSpec& spec : exercise_specs()) {
    const QString name = QString::fromStdString(std::string(spec.name));
    std::vector<double> open_ms;
    std::vector<double> reveal_ms;
    for (int r = 0; r < repeats; ++r) {
      MainWindow window;
      window.resize(1920, 1080);
      window.show();
      QCoreApplication::processEvents();
      QElapsedTimer t;
      t.start();
      QString error;
      ClassroomView* view = open_exercise(&window, name, &error, traces);
      if (view == nullptr) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(name), qPrintable(error));
        return 1;
      }
      window.set_projector_view(true);
      (void)window.grab();  // the question on screen
      open_ms.push_back(ms_since(t));
      view->exercise_panel()->choose(0);
      t.restart();
      view->exercise_panel()->reveal();
      QCoreApplication::processEvents();
      const QImage picture = window.grab().toImage();  // every widget painted at 1920x1080
      reveal_ms.push_back(ms_since(t));
      if (picture.width() != 1920)
        std::fprintf(stderr, "%s: the window is %d px wide\n", qPrintable(name), picture.width());
    }
    const Stats o = stats(open_ms);
    const Stats v = stats(reveal_ms);
    slowest_reveal_ms = std::max(slowest_reveal_ms, v.max_ms);
    std::printf("%-16s %9.1f ms %9.1f ms %11.1f ms %9.1f ms\n", qPrintable(name), o.median_ms, o.max_ms, v.median_ms,
                v.max_ms);
    std::fflush(stdout);
  }
  std::printf("slowest reveal of any exercise: %.1f ms (target: at most 1000 ms)\n", slowest_reveal_ms);
  print_load();
  return 0;
}
