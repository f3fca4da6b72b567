#include "command_line.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTabWidget>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "gtv/io/readable_formats.h"
#include "gtv/ui/figure_rows.h"
#include "gtv/ui/first_view.h"
#include "gtv/ui/image_file.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/ranks_overview.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_tab.h"
#include "gtv/ui/whatif_dialog.h"
#include "gtv/ui/whatif_view.h"
#include "gtv/whatif/change.h"

namespace gtv::app {

bool wants_export(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--export", 8) == 0 || std::strncmp(argv[i], "--window-shot", 13) == 0) return true;
  return false;
}

Expected<CommandLine> parse_command_line(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(
      "gtv: GPU Timeline Visualizer\n\n"
      "Headless modes (no display needed; each writes a picture and exits):\n"
      "  --export OUT TRACE                 figure: title, timeline, legend, verdict caption (.png .jpg .pdf .svg)\n"
      "  --export OUT --whatif C TRACE      What if figure: the band, recorded, predicted (and the recorded variant)\n"
      "  --export OUT --compare A B...      compare figure: the runs stacked and aligned on one axis\n"
      "  --export OUT FOLDER|SUMMARY...     ranks overview of a reduced run (.gtvsum rank summaries): rank x\n"
      "                                     collective or step, --ranks-colour waited|caused, --ranks-order\n"
      "                                     rank|lateness, --ranks-columns collectives|steps, --ranks-clock\n"
      "                                     wall|collectives\n"
      "  --window-shot OUT [TRACE...]       the whole window with the traces open (--side-tab picks the panel;\n"
      "                                     --whatif C: with the What if tab of the trace open)\n"
      "  --compare-shot OUT TRACE TRACE...  the compare view of two or more traces, aligned\n"
      "  --classroom-shot OUT TRACE         classroom mode at --cursor F (0..1), GPU lanes hidden unless --reveal\n"
      "  --classroom-shot OUT --exercise NAME [--step question|prediction|reveal] [--choice N]\n"
      "                                     a classroom exercise at one step, choice N (1 = the first) picked;\n"
      "                                     either with --font-scale F (View > Presentation font scale)\n"
      "  --run-panel-shot OUT [TRACE...]    the window with the run panel open\n\n"
      "Classroom: gtv --classroom TRACE opens classroom mode for the trace; gtv --exercise NAME (or --classroom\n"
      "--exercise NAME) opens a predict-simulate-reveal exercise on the bundled recordings; --exercise list lists "
      "them.");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(
      "trace", QString::fromStdString("Trace files (" + io::readable_suffixes_in_words() +
                                      ") to open; a folder of .gtvsum rank summaries (or the summaries) opens the "
                                      "ranks overview of the reduced run."));
  const QCommandLineOption export_opt("export",
                                      "Write a figure (.png, .jpg, .pdf, .svg) and exit: a title line (scenario or "
                                      "file name, GPUs), the timeline, a legend of exactly what it shows and the "
                                      "verdict as a caption.",
                                      "out");
  const QCommandLineOption range_opt("range",
                                     "Time range T0:T1 (units ns/us/ms/s; bare numbers are ms). Default: the timed "
                                     "work, as the window opens (the measurements, else the steady part).",
                                     "T0:T1");
  const QCommandLineOption size_opt("size",
                                    "Image size in pixels. --export: W is the width and H the most the figure may "
                                    "take (the image is no taller than its title, lanes, legend and caption need; "
                                    "default 1600 wide, as tall as that); the text is sized for W (its smallest "
                                    "text is 1/72 of W, so it prints alike at any W). Shots: the window size.",
                                    "WxH");
  const QCommandLineOption label_width_opt("label-width",
                                           "--export: the label column: auto (as wide as the longest name needs, "
                                           "at most 30% of W), narrow (12%), wide (30%) or a width in pixels.",
                                           "preset", "auto");
  const QCommandLineOption scale_opt("scale", "Raster scale factor (2 for print).", "factor", "1");
  const QCommandLineOption dark_opt("dark", "Dark theme (the figure, or the whole window in the shots).");
  const QCommandLineOption font_opt(
      "font-scale", "Presentation font scale (--export: times the scale chosen for the width).", "factor", "1");
  const QCommandLineOption shot_opt("window-shot", "Save a picture of the whole window and exit.", "out");
  const QCommandLineOption side_opt("side-tab", "Side panel shown in the window shot.", "name", "summary");
  // Parsed by teaching_shots.cpp before this parser runs; listed here so --help names every mode.
  const QCommandLineOption compare_opt("compare-shot", "Save the compare view of the traces and exit.", "out");
  const QCommandLineOption classroom_opt("classroom-shot", "Save classroom mode for one trace and exit.", "out");
  const QCommandLineOption run_panel_opt("run-panel-shot", "Save the window with the run panel and exit.", "out");
  const QCommandLineOption cursor_opt("cursor", "Classroom shot: cursor at this fraction of the timed work.", "0..1");
  const QCommandLineOption reveal_opt("reveal", "Classroom shot: show the GPU lanes.");
  const QCommandLineOption whatif_opt(
      "whatif",
      QStringLiteral("--export: the What if figure for this change (repeatable, applied in order: %1): the recorded "
                     "run, the predicted one under it and, where a bundled recording of the variant exists, that "
                     "recording.")
          .arg(QString::fromStdString(std::string(whatif::change_names(whatif::ChangeList::Drawn)))),
      "change");
  const QCommandLineOption compare_export_opt("compare",
                                              "--export: the compare figure of the traces (two or more), aligned at "
                                              "their first steady-state kernel, each run's figures in its header.");
  const QCommandLineOption classroom_mode_opt("classroom", "Open the trace in classroom mode.");
  const QCommandLineOption exercise_opt("exercise",
                                        "Open a classroom exercise (predict, simulate, reveal) on the bundled "
                                        "recordings; 'list' lists them.",
                                        "name");
  const QCommandLineOption step_opt("step", "Classroom shot of an exercise: question, prediction or reveal.", "step");
  const QCommandLineOption choice_opt("choice", "Classroom shot of an exercise: the choice picked (1 = the first).",
                                      "N");
  const QCommandLineOption ranks_opt("ranks",
                                     "The traces are the files of the ranks of one distributed run (one per rank): "
                                     "open them as one run, on one clock (with --export and --window-shot too).");
  const QCommandLineOption ranks_colour_opt("ranks-colour",
                                            "Ranks overview: colour each cell by how long the rank waited (waited, "
                                            "the default; the rank the others waited for in orange) or by how long "
                                            "the others waited for the rank (caused).",
                                            "waited|caused", "waited");
  const QCommandLineOption ranks_order_opt(
      "ranks-order", "Ranks overview: rows in rank order (rank, the default) or by lateness (lateness).",
      "rank|lateness", "rank");
  const QCommandLineOption ranks_clock_opt(
      "ranks-clock",
      "Ranks overview (the window and --export): the ranks' clocks as recorded (wall, the default) or "
      "aligned on the collectives that end together (collectives), as "
      "gtv-cli reduce --clock.",
      "wall|collectives", "wall");
  const QCommandLineOption ranks_columns_opt(
      "ranks-columns",
      "Ranks overview (the window and --export): a column per matched collective (collectives, the default) or per "
      "step (steps: ProfilerStep#N, else the steps the collectives every rank waits for end), each step's bounding "
      "rank marked.",
      "collectives|steps", "collectives");
  parser.addOptions({ranks_colour_opt, ranks_order_opt, ranks_clock_opt, ranks_columns_opt});
  parser.addOptions({export_opt, range_opt,  size_opt,          label_width_opt,    scale_opt,     dark_opt,
                     font_opt,   shot_opt,   side_opt,          compare_opt,        classroom_opt, run_panel_opt,
                     cursor_opt, reveal_opt, ranks_opt,         classroom_mode_opt, exercise_opt,  step_opt,
                     choice_opt, whatif_opt, compare_export_opt});
  parser.process(arguments);  // handles --help and unknown options (exits with a message)
  CommandLine cl;
  cl.traces = parser.positionalArguments();
  cl.ranks = parser.isSet(ranks_opt);
  cl.summaries = !cl.traces.isEmpty() && std::all_of(cl.traces.begin(), cl.traces.end(), [](const QString& p) {
    return ui::is_ranks_input(p.toStdString());
  });
  if (cl.summaries && cl.ranks) return Error{"--ranks takes rank trace files; .gtvsum summaries open without it"};
  const QString ranks_colour = parser.value(ranks_colour_opt);
  if (ranks_colour != "caused" && ranks_colour != "waited")
    return Error{"--ranks-colour must be caused or waited, not '" + ranks_colour.toStdString() + "'"};
  cl.ranks_waited = ranks_colour == "waited";
  const QString ranks_order = parser.value(ranks_order_opt);
  if (ranks_order != "rank" && ranks_order != "lateness")
    return Error{"--ranks-order must be rank or lateness, not '" + ranks_order.toStdString() + "'"};
  cl.ranks_lateness = ranks_order == "lateness";
  const QString ranks_clock = parser.value(ranks_clock_opt);
  if (ranks_clock != "wall" && ranks_clock != "collectives")
    return Error{"--ranks-clock must be wall or collectives, not '" + ranks_clock.toStdString() + "'"};
  cl.ranks_collectives_clock = ranks_clock == "collectives";
  const QString ranks_columns = parser.value(ranks_columns_opt);
  if (ranks_columns != "collectives" && ranks_columns != "steps")
    return Error{"--ranks-columns must be collectives or steps, not '" + ranks_columns.toStdString() + "'"};
  cl.ranks_steps = ranks_columns == "steps";
  if (cl.ranks && cl.traces.size() < 2) return Error{"--ranks needs the files of two or more ranks"};
  cl.dark = parser.isSet(dark_opt);
  cl.classroom = parser.isSet(classroom_mode_opt);
  cl.exercise = parser.value(exercise_opt);
  if (cl.classroom && cl.exercise.isEmpty() && cl.traces.size() != 1)
    return Error{"--classroom needs one trace file (or --exercise NAME)"};
  bool ok = true;
  cl.font_scale = parser.value(font_opt).toDouble(&ok);
  if (!ok || cl.font_scale < 0.5 || cl.font_scale > 4) return Error{"--font-scale must be a number in 0.5..4"};
  cl.window_shot = parser.value(shot_opt);
  cl.side_tab = parser.value(side_opt);
  if (parser.isSet(size_opt) && !parser.isSet(export_opt)) {
    auto size = ui::parse_size(parser.value(size_opt).toStdString());
    if (!size) return size.error();
    cl.window_size = *size;
  }
  cl.whatif = parser.values(whatif_opt);
  if (!cl.whatif.isEmpty() && !parser.isSet(export_opt) && cl.window_shot.isEmpty())
    return Error{"--whatif needs --export OUT or --window-shot OUT"};
  if (!cl.whatif.isEmpty() && !cl.window_shot.isEmpty() && cl.traces.size() != 1)
    return Error{"--window-shot --whatif needs exactly one trace file"};
  if (!cl.whatif.isEmpty() && cl.ranks) return Error{"--whatif predicts one recording, not a run of ranks"};
  cl.compare = parser.isSet(compare_export_opt);
  if (cl.compare && !parser.isSet(export_opt)) return Error{"--compare needs --export OUT"};
  if (cl.compare && (cl.ranks || !cl.whatif.isEmpty())) return Error{"--compare takes neither --ranks nor --whatif"};
  if (cl.compare && cl.traces.size() < 2) return Error{"--compare needs two or more trace files"};
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
  o.label_width = parser.value(label_width_opt).toStdString();
  if (auto label = ui::figure_label_width_px(o.label_width, o.width_px > 0 ? o.width_px : 1600, 0); !label)
    return label.error();
  if (cl.traces.size() != 1 && !cl.ranks && !cl.summaries && !cl.compare)
    return Error{
        "--export needs exactly one trace file (or --ranks and its files, --compare and two or more traces, or "
        "a run's .gtvsum summaries)"};
  cl.export_options = o;
  return cl;
}

RankMergeOptions ranks_options(const CommandLine& cl) {
  RankMergeOptions options;
  if (cl.ranks_collectives_clock) options.clock = ClockMethod::Collectives;
  return options;
}

void apply_ranks_view(ui::RanksOverview* overview, const CommandLine& cl) {
  if (overview == nullptr) return;
  const ui::RanksColour colour = cl.ranks_waited ? ui::RanksColour::Waited : ui::RanksColour::Caused;
  const ui::RanksColumns columns = cl.ranks_steps ? ui::RanksColumns::Steps : ui::RanksColumns::Collectives;
  // Once reduced: steps fall back to collectives for a run without any.
  QObject::connect(
      overview, &ui::RanksOverview::loaded, overview,
      [overview, colour, lateness = cl.ranks_lateness, columns] { overview->set_view(colour, lateness, columns); });
}

// The ranks overview of a reduced run as a figure: title, grid, legend, caption.
int run_ranks_export(const CommandLine& cl) {
  std::vector<std::string> paths;
  for (const QString& p : cl.traces) paths.push_back(p.toStdString());
  Expected<ui::RanksRun> run = ui::load_ranks_run(paths, ranks_options(cl));
  if (!run) {
    std::fprintf(stderr, "gtv: %s\n", run.error().message.c_str());
    return 1;
  }
  for (const std::string& warning : run->report.warnings) std::fprintf(stderr, "gtv: warning: %s\n", warning.c_str());
  const ui::ExportOptions& o = *cl.export_options;
  ui::RanksFigureOptions figure;
  figure.colour = cl.ranks_waited ? ui::RanksColour::Waited : ui::RanksColour::Caused;
  figure.by_lateness = cl.ranks_lateness;
  figure.columns = cl.ranks_steps ? ui::RanksColumns::Steps : ui::RanksColumns::Collectives;
  figure.width_px = o.width_px > 0 ? o.width_px : 1600;
  figure.height_px = o.height_px;
  figure.dark = cl.dark;
  figure.scale = o.scale;
  const Status status =
      ui::export_ranks_figure(std::make_shared<const ui::RanksRun>(std::move(run).value()), o.path, figure);
  if (!status.ok()) {
    std::fprintf(stderr, "gtv: %s\n", status.error().message.c_str());
    return 1;
  }
  std::fprintf(stderr, "wrote %s\n", qPrintable(o.path));
  return 0;
}

int run_export(const CommandLine& cl) {
  if (!cl.whatif.isEmpty()) return run_whatif_export(cl);
  if (cl.summaries) return run_ranks_export(cl);
  if (cl.compare) return run_compare_export(cl);
  const ui::LoadResult loaded =
      cl.ranks ? ui::load_rank_files(cl.traces, RankMergeOptions{}) : ui::load_trace_file(cl.traces.front());
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
  ui::ExportOptions options = *cl.export_options;
  if (loaded.analysis)
    options.figure = ui::figure_text(*loaded.trace, *loaded.analysis, cl.traces.front(), view.color_mode(), cl.dark);
  if (!options.range && loaded.analysis) {
    // The image shows what the window opens on: the timed work, not the start-up before it.
    const ui::TimeWindow first = ui::first_view_window(*loaded.trace, loaded.analysis->report());
    const TimeNs origin = loaded.trace->start_ns();
    options.range = ui::TimeWindow{first.t0_ns - origin, first.t1_ns - origin};
  }
  std::string fit_note;
  const Status status = ui::export_timeline(view, options, &fit_note);
  if (!status.ok()) {
    std::fprintf(stderr, "gtv: %s\n", status.error().message.c_str());
    return 1;
  }
  // stdout may be the image
  if (fit_note.empty())
    std::fprintf(stderr, "wrote %s\n", qPrintable(cl.export_options->path));
  else
    std::fprintf(stderr, "wrote %s: %s\n", qPrintable(cl.export_options->path), fit_note.c_str());
  return 0;
}

int run_window_shot(const CommandLine& cl) {
  ui::MainWindow window;
  window.resize(cl.window_size ? cl.window_size->first : 1700, cl.window_size ? cl.window_size->second : 950);
  window.set_dark(cl.dark);
  window.set_font_scale(cl.font_scale);
  QStringList errors;
  ui::MainWindow::set_error_hook([&](const QString&, const QString& message) { errors << message; });
  if (cl.ranks) {
    window.open_run(cl.traces);
  } else if (cl.summaries) {
    apply_ranks_view(window.open_ranks(cl.traces, ranks_options(cl)), cl);
  } else {
    for (const QString& path : cl.traces) window.open_file(path);
  }
  if (cl.traces.isEmpty()) window.open_file(kBundledTrace);
  window.show();
  QElapsedTimer timer;
  timer.start();
  auto loading = [&] {
    for (int i = 0; i < window.tabs()->count(); ++i) {
      if (auto* tab = qobject_cast<ui::TraceTab*>(window.tabs()->widget(i)); tab && tab->document()->is_loading())
        return true;
      if (auto* ranks = qobject_cast<ui::RanksOverview*>(window.tabs()->widget(i)); ranks && ranks->is_loading())
        return true;
    }
    return false;
  };
  while (loading() && timer.elapsed() < 120'000) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  for (int i = 0; i < window.tabs()->count(); ++i)  // delivered now: the view it asks for is set when it loads
    if (auto* ranks = qobject_cast<ui::RanksOverview*>(window.tabs()->widget(i)); ranks && !ranks->is_loading())
      ranks->wait();
  for (const QString& e : errors) std::fprintf(stderr, "gtv: %s\n", qPrintable(e));
  if (auto* tab = window.current_tab()) tab->show_side_tab(cl.side_tab);
  if (!cl.whatif.isEmpty()) {
    // The What if tab of the trace, as Runs > What if... opens it.
    std::vector<whatif::Change> changes;
    for (const QString& text : cl.whatif) {
      Expected<whatif::Change> c = whatif::parse_change(text.toStdString());
      if (!c) {
        std::fprintf(stderr, "gtv: --whatif: %s\n", c.error().message.c_str());
        return 2;
      }
      changes.push_back(std::move(c).value());
    }
    const ui::TraceTab* tab = window.current_tab();
    if (tab == nullptr || !tab->document()->trace()) return 1;  // its error is printed above
    ui::WhatIfRun run = ui::compute_whatif(tab->document()->trace(), tab->document()->analysis(),
                                           tab->document()->path(), std::move(changes));
    if (!run.ok()) {
      std::fprintf(stderr, "gtv: %s: %s\n", qPrintable(tab->document()->path()), qPrintable(run.error));
      return 1;
    }
    ui::open_whatif_view(&window, std::move(run));
    // The panels grow to their GPU lanes in a few layout passes.
    QElapsedTimer settle;
    settle.start();
    while (settle.elapsed() < 500) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  }
  // What the window does once it is on screen at its size (the first view's fit of the GPU rows, posted from the
  // plot's show and resize) is done before the picture is taken, as a user would see it a moment later.
  for (QElapsedTimer settle; !settle.isValid() || settle.elapsed() < 300;) {
    if (!settle.isValid()) settle.start();
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  }
  if (Status s = ui::save_picture(window.grab().toImage(), cl.window_shot); !s) {
    std::fprintf(stderr, "gtv: %s\n", s.error().message.c_str());
    return 1;
  }
  std::fprintf(stderr, "wrote %s\n", qPrintable(cl.window_shot));  // stdout may be the picture
  return errors.isEmpty() ? 0 : 1;
}

}  // namespace gtv::app
