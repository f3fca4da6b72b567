// gtv --export OUT --whatif CHANGE [--whatif CHANGE2] TRACE: the What if figure, and gtv --export OUT --compare
// TRACE TRACE...: the compare figure, drawn headless (panels_figure.h: title, band, every lane, legend, caption).
#include <QCoreApplication>
#include <cstdio>

#include "command_line.h"
#include "gtv/ui/app_palette.h"
#include "gtv/ui/compare_view.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/whatif_view.h"

namespace gtv::app {
namespace {

// The window the panels are laid out in before the figure is drawn (the figure takes its own size).
constexpr int kViewWidthPx = 1600;
constexpr int kViewHeightPx = 1000;

// The panels' window: --range (from the first run's start), else the timed work as the view opens on it.
void set_window(ui::CompareView& panels, const ui::ExportOptions& o) {
  QCoreApplication::processEvents();
  if (o.range) {
    const TimeNs origin = panels.view(0)->trace()->start_ns();
    panels.set_window({o.range->t0_ns + origin, o.range->t1_ns + origin});
  } else {
    panels.show_timed_work();
  }
  QCoreApplication::processEvents();
}

int report(const Status& s, const QString& path, const std::string& fit_note) {
  if (!s) {
    std::fprintf(stderr, "gtv: %s\n", s.error().message.c_str());
    return 1;
  }
  // stdout may be the image
  if (fit_note.empty())
    std::fprintf(stderr, "wrote %s\n", qPrintable(path));
  else
    std::fprintf(stderr, "wrote %s: %s\n", qPrintable(path), fit_note.c_str());
  return 0;
}

}  // namespace

int run_whatif_export(const CommandLine& cl) {
  std::vector<whatif::Change> changes;
  for (const QString& text : cl.whatif) {
    Expected<whatif::Change> c = whatif::parse_change(text.toStdString());
    if (!c) {
      std::fprintf(stderr, "gtv: --whatif: %s\n", c.error().message.c_str());
      return 2;
    }
    changes.push_back(std::move(c).value());
  }
  if (Expected<Ok> ok = whatif::check_compatible(changes); !ok) {
    std::fprintf(stderr, "gtv: --whatif: %s\n", ok.error().message.c_str());
    return 2;
  }
  const QString path = cl.traces.front();
  const ui::LoadResult loaded = ui::load_trace_file(path);
  if (!loaded.error.isEmpty()) {
    std::fprintf(stderr, "gtv: %s\n", qPrintable(loaded.error));
    return 1;
  }
  ui::WhatIfRun run = ui::compute_whatif(loaded.trace, loaded.analysis, path, changes);
  if (!run.ok()) {
    std::fprintf(stderr, "gtv: %s: %s\n", qPrintable(path), qPrintable(run.error));
    return 1;
  }
  ui::apply_app_palette(cl.dark);
  ui::WhatIfView view;
  view.set_theme(cl.dark ? ui::dark_theme(cl.font_scale) : ui::light_theme(cl.font_scale));
  view.set_run(std::move(run));
  view.resize(kViewWidthPx, kViewHeightPx);
  view.show();
  set_window(*view.panels(), *cl.export_options);
  std::string fit_note;
  const Status s = view.export_figure(*cl.export_options, cl.dark, &fit_note);
  return report(s, cl.export_options->path, fit_note);
}

int run_compare_export(const CommandLine& cl) {
  ui::apply_app_palette(cl.dark);
  ui::CompareView view;
  if (const QString e = view.add_files(cl.traces); !e.isEmpty()) {
    std::fprintf(stderr, "gtv: %s\n", qPrintable(e));
    return 1;
  }
  view.set_theme(cl.dark ? ui::dark_theme(cl.font_scale) : ui::light_theme(cl.font_scale));
  view.resize(kViewWidthPx, kViewHeightPx);
  view.show();
  set_window(view, *cl.export_options);
  std::string fit_note;
  const Status s = view.export_figure(*cl.export_options, cl.dark, &fit_note);
  return report(s, cl.export_options->path, fit_note);
}

}  // namespace gtv::app
