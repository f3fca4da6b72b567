// gtv: opens traces in tabs, or with --export renders one image headless (no display needed).
#include <QApplication>
#include <QFile>
#include <QIcon>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "command_line.h"
#include "gtv/config.h"
#include "gtv/ui/classroom_view.h"
#include "gtv/ui/exercise.h"
#include "gtv/ui/exercise_panel.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/run_features.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_tab.h"
#include "teaching_shots.h"

namespace {

bool wants_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help" || arg == "--help-all" || arg == "-v" || arg == "--version") return true;
  }
  return false;
}

// `gtv --exercise list` (or `--exercise=list`): the exercises, one a line, with no window.
bool wants_exercise_list(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--exercise=list" || (arg == "--exercise" && i + 1 < argc && std::string_view(argv[i + 1]) == "list"))
      return true;
  }
  return false;
}

int list_exercises() {
  for (const gtv::ui::ExerciseSpec& spec : gtv::ui::exercise_specs())
    std::printf("%-16s %s (%s)\n", std::string(spec.name).c_str(), std::string(spec.title).c_str(),
                std::string(spec.recording).c_str());
  return 0;
}

// --classroom: the trace in classroom mode (once read); --exercise NAME: the exercise. Returns an exit code on error.
std::optional<int> open_classroom_mode(gtv::ui::MainWindow& window, const gtv::app::CommandLine& cl) {
  if (!cl.exercise.isEmpty()) {
    QString error;
    if (gtv::ui::open_exercise(&window, cl.exercise, &error) == nullptr) {
      std::fprintf(stderr, "gtv: %s\n", qPrintable(error));
      return gtv::ui::find_exercise(cl.exercise.toStdString()) == nullptr ? 2 : 1;  // a usage error, or bad data
    }
  } else if (cl.classroom) {
    if (auto* tab = window.current_tab()) tab->document()->wait();
    QCoreApplication::processEvents();
    if (gtv::ui::open_classroom(&window) == nullptr) {
      std::fprintf(stderr, "gtv: %s: cannot open it in classroom mode\n", qPrintable(cl.traces.value(0)));
      return 1;
    }
  }
  return std::nullopt;
}

bool has_display() {
  return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

}  // namespace

int main(int argc, char** argv) {
  if (wants_exercise_list(argc, argv)) return list_exercises();
  const bool headless =
      gtv::app::wants_export(argc, argv) || gtv::app::wants_teaching_shot(argc, argv) || wants_help(argc, argv);
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    if (headless) {
      qputenv("QT_QPA_PLATFORM", "offscreen");
    } else if (!has_display()) {
      // Qt would abort with a plugin error: say what to do instead.
      std::fprintf(stderr,
                   "gtv: no display (DISPLAY/WAYLAND_DISPLAY unset): run it on a desktop, or make an image with "
                   "gtv --export out.png TRACE, or use gtv-cli\n");
      return 1;
    }
  }
  QApplication app(argc, argv);
  QApplication::setOrganizationName("gtv");
  QApplication::setApplicationName("gtv");
  QApplication::setApplicationVersion(GTV_VERSION);
  // Desktops match the window to the installed io.github.gtv.Gtv.desktop (its name and icon) through this id.
  QGuiApplication::setDesktopFileName(QStringLiteral("io.github.gtv.Gtv"));
  QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/gtv.svg")));
  if (const auto code = gtv::app::run_teaching_shot(QApplication::arguments())) return *code;
  auto command_line = gtv::app::parse_command_line(QApplication::arguments());
  if (!command_line) {
    std::fprintf(stderr, "gtv: %s\n", command_line.error().message.c_str());
    return 2;
  }
  if (command_line->export_options) return gtv::app::run_export(*command_line);
  if (!command_line->window_shot.isEmpty()) return gtv::app::run_window_shot(*command_line);
  gtv::ui::MainWindow window;
  gtv::ui::install_run_features(&window);
  window.set_dark(command_line->dark);
  window.set_font_scale(command_line->font_scale);
  if (command_line->ranks) {
    window.open_run(command_line->traces);
  } else if (command_line->summaries) {
    gtv::app::apply_ranks_view(window.open_ranks(command_line->traces, gtv::app::ranks_options(*command_line)),
                               *command_line);
  } else {
    for (const QString& path : command_line->traces) window.open_file(path);
  }
  if (command_line->traces.isEmpty() && command_line->exercise.isEmpty() && QFile::exists(gtv::app::kBundledTrace))
    window.open_file(gtv::app::kBundledTrace);
  window.show();
  if (const auto code = open_classroom_mode(window, *command_line)) return *code;
  return QApplication::exec();
}
