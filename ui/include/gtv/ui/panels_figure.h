#pragma once
// A figure of several timelines stacked on one time axis (the compare view's runs; the What if's recorded run, its
// prediction and the recording of the variant): a title line, an optional strip drawn on the panels' time axis
// above them (the What if band), each panel's header over its plot, one legend of what the panels draw and a caption.
// As export_timeline's figure: every panel shows every row figure_rows.h keeps (no collapsed row, no expand
// triangle, no scroll bar), all panels share one label column so their time axes line up, the lanes never give way
// (the text shrinks to the screen's size, the legend gets compact, else the figure grows past the height asked and
// the fit note says so); PNG, JPG, SVG and PDF, written with gtv's output rules (image_file.h).
#include <QColor>
#include <QString>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/ui/export.h"
#include "gtv/ui/figure_layout.h"
#include "gtv/ui/legend_entry.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/time_mapping.h"

class QPainter;

namespace gtv::ui {

class TimelineView;

struct PanelsFigure {
  QString title;
  std::vector<QString> headers;  // plain text, one a panel; a line break starts a new line
  std::vector<QColor> accents;   // the bar left of each header (none where invalid or missing)
  std::vector<LegendGroup> legend;
  QString caption;
  // The strip above the panels: strip_lines lines of text at the figure's font (0: no strip), painted by
  // paint_strip into `area` (the whole width) with `time_area` the panels' time axis over it; axis_window is the
  // panels' window on their axis (ns from the first panel's axis origin, axis_origin_ns).
  TimeNs axis_origin_ns = 0;
  int strip_lines = 0;
  std::function<void(QPainter&, const QRectF& area, const QRectF& time_area, TimeWindow axis_window, const Theme&)>
      paint_strip;
};

// The views keep their windows (set them first: every panel shows its own view's window); what the export changes
// (figure mode, rows, text size, label column, scroll) is put back afterwards. Uses options.path, scale, width_px,
// height_px (the most the figure may take), jpg_quality, font_scale and label_width. fit_note as export_timeline's.
[[nodiscard]] Status export_panels_figure(std::span<TimelineView* const> views, const PanelsFigure& figure,
                                          const ExportOptions& options, std::string* fit_note = nullptr);

// What the figure draws, for its tests: each panel's rows whole or cut (as export_figure_rows), the layout, and
// where the strip went (empty when none).
struct PanelsFigureDrawn {
  std::vector<FigureRows> panels;
  FigureLayout layout;
  Box strip;
};
[[nodiscard]] PanelsFigureDrawn panels_figure_drawn(std::span<TimelineView* const> views, const PanelsFigure& figure,
                                                    const ExportOptions& options);

// The legends of several runs as one: groups of one title merged, each entry once (by its label), in the order
// first named.
[[nodiscard]] std::vector<LegendGroup> merged_legend(const std::vector<std::vector<LegendGroup>>& legends);

}  // namespace gtv::ui
