// gtv --export OUT --whatif CHANGE [--whatif CHANGE2] TRACE: the What if view drawn headless into an image.
#include <QCoreApplication>
#include <QPushButton>
#include <cstdio>

#include "command_line.h"
#include "gtv/ui/app_palette.h"
#include "gtv/ui/compare_view.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/whatif_view.h"
#include "gtv/ui/widget_export.h"

namespace gtv::app {
namespace {

constexpr int kDefaultWidthPx = 1600;
constexpr int kTwoPanelHeightPx = 1000;
constexpr int kThreePanelHeightPx = 1350;
// Without --size the image grows by this much until every panel shows its GPU lanes and critical path whole, up to
// the most.
constexpr int kGrowthPx = 150;
constexpr int kMostHeightPx = 4000;

// Every panel shows its GPU lanes and the critical path under them whole, as scrolled.
bool panels_fit(const ui::CompareView& panels) {
  for (int i = 0; i < panels.run_count(); ++i) {
    const ui::TimelineView* v = panels.view(i);
    if (v->gpu_rows_bottom_px() - v->scroll_px() > v->lane_rect().height() + 0.5) return false;
  }
  return true;
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
  const ui::ExportOptions& o = *cl.export_options;
  ui::apply_app_palette(cl.dark);
  ui::WhatIfView view;
  view.set_theme(cl.dark ? ui::dark_theme(cl.font_scale) : ui::light_theme(cl.font_scale));
  const bool three = run.variant != nullptr;
  view.set_run(std::move(run));
  view.variant_button()->setVisible(false);  // an affordance of the window, not part of the picture
  const int width_px = o.width_px > 0 ? o.width_px : kDefaultWidthPx;
  int height_px = o.height_px > 0 ? o.height_px : (three ? kThreePanelHeightPx : kTwoPanelHeightPx);
  view.resize(width_px, height_px);
  view.show();
  const auto lay_out = [&] {
    QCoreApplication::processEvents();
    if (o.range) {
      const TimeNs origin = view.run().recorded->start_ns();
      view.panels()->set_window({o.range->t0_ns + origin, o.range->t1_ns + origin});
    } else {
      view.panels()->show_timed_work();
    }
    QCoreApplication::processEvents();
  };
  lay_out();
  while (o.height_px <= 0 && !panels_fit(*view.panels()) && height_px < kMostHeightPx) {
    height_px += kGrowthPx;
    view.resize(width_px, height_px);
    lay_out();
  }
  if (const Status s = ui::export_widget(view, o.path, o.scale); !s) {
    std::fprintf(stderr, "gtv: %s\n", s.error().message.c_str());
    return 1;
  }
  std::fprintf(stderr, "wrote %s\n", qPrintable(o.path));  // stdout may be the image
  return 0;
}

}  // namespace gtv::app
