// gtv: opens traces in tabs, or with --export renders one image headless (no display needed).
#include <QApplication>
#include <QFile>
#include <cstdio>

#include "command_line.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/run_features.h"
#include "teaching_shots.h"

int main(int argc, char** argv) {
  if ((gtv::app::wants_export(argc, argv) || gtv::app::wants_teaching_shot(argc, argv)) &&
      qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QApplication::setOrganizationName("gtv");
  QApplication::setApplicationName("gtv");
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
  for (const QString& path : command_line->traces) window.open_file(path);
  if (command_line->traces.isEmpty() && QFile::exists(gtv::app::kBundledTrace))
    window.open_file(gtv::app::kBundledTrace);
  window.show();
  return QApplication::exec();
}
