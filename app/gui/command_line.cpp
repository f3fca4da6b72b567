#include "command_line.h"

#include <QCommandLineParser>
#include <cstdio>
#include <cstring>

#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"

namespace gtv::app {

bool wants_export(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--export") == 0 || std::strncmp(argv[i], "--export=", 9) == 0) return true;
  return false;
}

Expected<CommandLine> parse_command_line(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription("gtv: GPU Timeline Visualizer");
  parser.addHelpOption();
  parser.addPositionalArgument("trace", "Trace files (.json, .json.gz) to open.");
  const QCommandLineOption export_opt("export", "Write an image (.png, .jpg, .pdf, .svg) and exit.", "out");
  const QCommandLineOption range_opt("range", "Time range T0:T1 (units ns/us/ms/s; bare numbers are ms).", "T0:T1");
  const QCommandLineOption size_opt("size", "Image size in pixels.", "WxH");
  const QCommandLineOption scale_opt("scale", "Raster scale factor (2 for print).", "factor", "1");
  const QCommandLineOption dark_opt("dark", "Dark theme.");
  const QCommandLineOption font_opt("font-scale", "Presentation font scale.", "factor", "1");
  parser.addOptions({export_opt, range_opt, size_opt, scale_opt, dark_opt, font_opt});
  parser.process(arguments);  // handles --help and unknown options (exits with a message)
  CommandLine cl;
  cl.traces = parser.positionalArguments();
  cl.dark = parser.isSet(dark_opt);
  bool ok = true;
  cl.font_scale = parser.value(font_opt).toDouble(&ok);
  if (!ok || cl.font_scale < 0.5 || cl.font_scale > 4) return Error{"--font-scale must be a number in 0.5..4"};
  if (!parser.isSet(export_opt)) return cl;
  ui::ExportOptions o;
  o.path = parser.value(export_opt);
  o.whole_trace = true;
  o.scale = parser.value(scale_opt).toDouble(&ok);
  if (!ok) return Error{"--scale must be a number"};
  if (parser.isSet(range_opt)) {
    auto range = ui::parse_time_range(parser.value(range_opt).toStdString());
    if (!range) return range.error();
    o.range = *range;
  }
  if (parser.isSet(size_opt)) {
    auto size = ui::parse_size(parser.value(size_opt).toStdString());
    if (!size) return size.error();
    o.width_px = size->first;
    o.height_px = size->second;
  }
  if (cl.traces.size() != 1) return Error{"--export needs exactly one trace file"};
  cl.export_options = o;
  return cl;
}

int run_export(const CommandLine& cl) {
  const ui::LoadResult loaded = ui::load_trace_file(cl.traces.front());
  if (!loaded.error.isEmpty()) {
    std::fprintf(stderr, "gtv: %s\n", qPrintable(loaded.error));
    return 1;
  }
  ui::TimelineView view;
  view.set_theme(cl.dark ? ui::dark_theme(cl.font_scale) : ui::light_theme(cl.font_scale));
  view.resize(cl.export_options->width_px > 0 ? cl.export_options->width_px : 1600, 900);
  view.set_trace(loaded.trace);
  if (loaded.analysis) view.set_overlays(loaded.analysis->overlays);
  view.replot_now();
  const Status status = ui::export_timeline(view, *cl.export_options);
  if (!status.ok()) {
    std::fprintf(stderr, "gtv: %s\n", status.error().message.c_str());
    return 1;
  }
  std::printf("wrote %s\n", qPrintable(cl.export_options->path));
  return 0;
}

}  // namespace gtv::app
