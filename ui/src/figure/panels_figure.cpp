#include "gtv/ui/panels_figure.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QImage>
#include <algorithm>
#include <cmath>
#include <memory>

#include "gtv/ui/band_rows.h"
#include "gtv/ui/figure_rows.h"
#include "gtv/ui/figure_writer.h"
#include "gtv/ui/image_file.h"
#include "gtv/ui/timeline_view.h"

namespace gtv::ui {
namespace {

constexpr int kDefaultWidthPx = 1600;
constexpr int kMaxPlotPx = 12000;
constexpr double kSwatchPx = 12;  // at font scale 1, as the gap
constexpr double kSwatchGapPx = 6;
constexpr double kAccentPx = 5;  // the bar left of a header, at font scale 1
// Text is measured this much wider than Qt measures it: vector viewers lay it out a few percent wider at times.
constexpr double kTextSlack = 1.06;

struct Fonts {
  QFont title, header, legend, group, caption, strip;
};

Fonts fonts_of(const Theme& t) {
  return {t.font(12, true), t.font(10), t.font(9), t.font(9, true), t.font(10), t.font(9)};
}

struct LegendItem {
  QString text;
  Rgb color = 0;
  bool is_title = false;
  bool hatched = false;
};

// The panels in figure mode for as long as this lives, with one label column for all (the widest any needs), each
// shown from its first row; afterwards as they were.
class PanelsScope {
 public:
  PanelsScope(std::span<TimelineView* const> views, const ExportOptions& o, int width_px) {
    for (TimelineView* v : views) scroll_px_.push_back(v->scroll_px());
    double label_px = 0;
    for (TimelineView* v : views) {
      scopes_.push_back(std::make_unique<FigureViewScope>(*v, o, width_px));
      if (!scopes_.back()->status() && status_.ok()) status_ = scopes_.back()->status();
      label_px = std::max(label_px, v->label_width_px());
    }
    for (TimelineView* v : views) {
      v->set_label_width_px(label_px);
      v->set_scroll_px(0);
    }
    views_.assign(views.begin(), views.end());
  }
  ~PanelsScope() {
    scopes_.clear();  // each view's own rows, theme and label column back
    for (std::size_t i = 0; i < views_.size(); ++i) {
      views_[i]->replot_now();  // laid out again at its own size, so the scroll reaches where it was
      views_[i]->set_scroll_px(scroll_px_[i]);
      views_[i]->replot_now();
    }
  }
  PanelsScope(const PanelsScope&) = delete;
  PanelsScope& operator=(const PanelsScope&) = delete;
  [[nodiscard]] const Status& status() const { return status_; }

 private:
  std::vector<TimelineView*> views_;
  std::vector<std::unique_ptr<FigureViewScope>> scopes_;
  std::vector<double> scroll_px_;
  Status status_ = ok_status();
};

struct Plan {
  FigureLayout layout;
  Fonts fonts;
  std::vector<int> plot_px;                        // each panel's plot: every row and band whole
  std::vector<std::vector<QString>> header_lines;  // each panel's header, wrapped
  double header_line_px = 0;
  double strip_px = 0;
  double strip_line_px = 0;
  std::vector<LegendItem> items;
  std::vector<QString> caption_lines;
};

std::vector<QString> wrapped(const QString& text, double width_px, const QFontMetricsF& metrics) {
  std::vector<QString> lines;
  for (const QString& paragraph : text.split(QLatin1Char('\n'))) {
    for (const std::string& line : wrap_words(paragraph.toStdString(), width_px, [&](std::string_view piece) {
           return kTextSlack *
                  metrics.horizontalAdvance(QString::fromUtf8(piece.data(), static_cast<qsizetype>(piece.size())));
         }))
      lines.push_back(QString::fromStdString(line));
  }
  return lines;
}

double header_px(const Plan& plan, std::size_t panel) {
  return static_cast<double>(plan.header_lines[panel].size()) * plan.header_line_px + 4;
}

Plan plan_figure(std::span<TimelineView* const> views, const PanelsFigure& figure, const ExportOptions& o, int width) {
  Plan plan;
  const Theme& theme = views.front()->theme();
  plan.fonts = fonts_of(theme);
  QImage device = figure_metrics_image();
  const QFontMetricsF title(plan.fonts.title, &device), header(plan.fonts.header, &device),
      legend(plan.fonts.legend, &device), group(plan.fonts.group, &device), caption(plan.fonts.caption, &device),
      strip(plan.fonts.strip, &device);
  FigureMetrics m;
  m.width_px = width;
  m.max_height_px = o.height_px;
  const double inner_w = width - 2 * m.margin_px;
  const double accent_px = 2 * kAccentPx * theme.font_scale;
  plan.header_line_px = header.lineSpacing();
  plan.strip_line_px = strip.lineSpacing();
  plan.strip_px = figure.strip_lines > 0 && figure.paint_strip ? figure.strip_lines * plan.strip_line_px + 4 : 0;
  double stack_px = plan.strip_px;
  for (std::size_t i = 0; i < views.size(); ++i) {
    plan.plot_px.push_back(std::clamp(static_cast<int>(std::ceil(views[i]->whole_plot_height_px())), 120, kMaxPlotPx));
    plan.header_lines.push_back(
        wrapped(i < figure.headers.size() ? figure.headers[i] : QString(), inner_w - accent_px, header));
    stack_px += header_px(plan, i) + plan.plot_px.back() + (i > 0 ? m.gap_px : 0);
  }
  m.plot_needed_px = std::ceil(stack_px);
  m.title_px = figure.title.isEmpty() ? 0 : title.height();
  for (const LegendGroup& g : figure.legend) {
    plan.items.push_back({QString::fromStdString(g.title) + QLatin1Char(':'), 0, true});
    for (const LegendEntry& e : g.entries)
      plan.items.push_back({QString::fromStdString(e.label), e.color, false, e.hatched});
  }
  for (const LegendItem& item : plan.items) {
    const double w = item.is_title
                         ? group.horizontalAdvance(item.text)
                         : (kSwatchPx + kSwatchGapPx) * theme.font_scale + legend.horizontalAdvance(item.text);
    m.legend_item_widths_px.push_back(std::ceil(w * kTextSlack) + 1);
    m.legend_item_breaks.push_back(item.is_title);
  }
  m.legend_item_px = std::max(legend.height(), group.height()) + 4;
  plan.caption_lines = wrapped(figure.caption, inner_w, caption);
  m.caption_line_px = caption.lineSpacing();
  m.caption_lines = plan.caption_lines.size();
  plan.layout = layout_figure(m);
  return plan;
}

QRectF rect_of(const Box& b) { return QRectF(b.x, b.y, b.w, b.h); }

// Where each panel's header and plot go, top to bottom inside the layout's plot box, after the strip.
struct PanelBoxes {
  Box strip;
  std::vector<Box> headers, plots;
};

PanelBoxes panel_boxes(const Plan& plan) {
  PanelBoxes out;
  const Box& all = plan.layout.plot;
  double y = all.y;
  if (plan.strip_px > 0) out.strip = {all.x, y, all.w, plan.strip_px};
  y += plan.strip_px;
  for (std::size_t i = 0; i < plan.plot_px.size(); ++i) {
    if (i > 0) y += FigureMetrics{}.gap_px;
    out.headers.push_back({all.x, y, all.w, header_px(plan, i)});
    y += header_px(plan, i);
    out.plots.push_back({all.x, y, all.w, static_cast<double>(plan.plot_px[i])});
    y += plan.plot_px[i];
  }
  return out;
}

void paint_legend(QPainter& p, const Theme& theme, const Plan& plan) {
  const FigureLayout& f = plan.layout;
  for (std::size_t i = 0; i < plan.items.size() && i < f.legend_items.size(); ++i) {
    const LegendItem& item = plan.items[i];
    QRectF r = rect_of(f.legend_items[i]);
    p.setPen(theme.text);
    if (item.is_title) {
      p.setFont(plan.fonts.group);
      p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, item.text);
      continue;
    }
    const double swatch_px = kSwatchPx * theme.font_scale;
    const QRectF swatch(r.left(), r.center().y() - swatch_px / 2, swatch_px, swatch_px);
    p.fillRect(swatch, QColor::fromRgb(static_cast<QRgb>(item.color)));
    if (item.hatched) p.fillRect(swatch, QBrush(QColor(0, 0, 0, 90), Qt::BDiagPattern));
    p.setBrush(Qt::NoBrush);
    p.drawRect(swatch);
    p.setFont(plan.fonts.legend);
    r.setLeft(swatch.right() + kSwatchGapPx * theme.font_scale);
    p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetricsF(plan.fonts.legend, p.device()).elidedText(item.text, Qt::ElideMiddle, r.width()));
  }
}

void paint_figure(QCPPainter& p, std::span<TimelineView* const> views, const PanelsFigure& figure, const Plan& plan,
                  int width) {
  const Theme& theme = views.front()->theme();
  const FigureLayout& f = plan.layout;
  p.fillRect(QRectF(0, 0, width, f.height_px), theme.background);
  p.setPen(theme.text);
  if (!figure.title.isEmpty()) {
    p.setFont(plan.fonts.title);
    p.drawText(rect_of(f.title), Qt::AlignLeft | Qt::AlignVCenter, figure.title);
  }
  const PanelBoxes boxes = panel_boxes(plan);
  QRectF time_area;
  for (std::size_t i = 0; i < views.size(); ++i) {
    const Box& h = boxes.headers[i];
    const double accent_px = kAccentPx * theme.font_scale;
    if (i < figure.accents.size() && figure.accents[i].isValid())
      p.fillRect(QRectF(h.x, h.y + 2, accent_px, h.h - 4), figure.accents[i]);
    p.setPen(theme.text);
    p.setFont(plan.fonts.header);
    for (std::size_t l = 0; l < plan.header_lines[i].size(); ++l)
      p.drawText(QRectF(h.x + 2 * accent_px, h.y + 2 + static_cast<double>(l) * plan.header_line_px,
                        h.w - 2 * accent_px, plan.header_line_px),
                 Qt::AlignLeft | Qt::AlignVCenter, plan.header_lines[i][l]);
    const Box& b = boxes.plots[i];
    p.save();
    p.translate(b.x, b.y);
    views[i]->plot()->toPainter(&p, static_cast<int>(b.w), static_cast<int>(b.h));
    p.restore();
    if (i == 0) {
      // The time axis as the first panel drew it: every panel has the same label column and width.
      const QRect axis = views[i]->plot()->axisRect()->rect();
      time_area = QRectF(b.x + axis.left(), boxes.strip.y, axis.width(), boxes.strip.h);
    }
  }
  if (plan.strip_px > 0) {
    const TimeWindow w = views.front()->window();
    p.save();
    figure.paint_strip(p, rect_of(boxes.strip), time_area,
                       TimeWindow{w.t0_ns - figure.axis_origin_ns, w.t1_ns - figure.axis_origin_ns}, theme);
    p.restore();
  }
  paint_legend(p, theme, plan);
  p.setFont(plan.fonts.caption);
  p.setPen(theme.text);
  const double line_px = plan.caption_lines.empty() ? 0 : f.caption.h / static_cast<double>(plan.caption_lines.size());
  for (std::size_t i = 0; i < plan.caption_lines.size(); ++i)
    p.drawText(QRectF(f.caption.x, f.caption.y + static_cast<double>(i) * line_px, f.caption.w, line_px),
               Qt::AlignLeft | Qt::AlignVCenter, plan.caption_lines[i]);
}

QByteArray render(std::span<TimelineView* const> views, const PanelsFigure& figure, const Plan& plan,
                  const ExportOptions& o, const QString& suffix, int w) {
  const FigurePage page{suffix,
                        w,
                        static_cast<int>(std::ceil(plan.layout.height_px)),
                        figure.title,
                        views.front()->theme().background,
                        o.scale,
                        o.jpg_quality};
  return write_figure(page, [&](QCPPainter& p) { paint_figure(p, views, figure, plan, w); });
}

// The options the figure is drawn with: where its height is capped and its text size left to gtv, the largest text
// scale from the one chosen for the width down to the screen's, in quarters, at which every lane fits the height
// asked; where none does, the screen's, so the figure grows the least.
ExportOptions fitted(std::span<TimelineView* const> views, const PanelsFigure& figure, const ExportOptions& o, int w) {
  if (o.height_px <= 0 || o.font_scale > 0) return o;
  ExportOptions tried = o;
  for (double s = figure_font_scale(w);; s = std::max(1.0, s - 0.25)) {
    tried.font_scale = s;
    const PanelsScope scope(views, tried, w);
    if (!scope.status()) return o;
    if (s <= 1.0 || plan_figure(views, figure, tried, w).layout.fit != FigureFit::Grown) return tried;
  }
}

int width_of(const ExportOptions& o) { return o.width_px > 0 ? o.width_px : kDefaultWidthPx; }

}  // namespace

Status export_panels_figure(std::span<TimelineView* const> views, const PanelsFigure& figure,
                            const ExportOptions& asked, std::string* fit_note) {
  if (fit_note != nullptr) fit_note->clear();
  if (views.empty()) return Error{"nothing to draw: the figure has no panel"};
  const QString suffix = QFileInfo(asked.path).suffix().toLower();
  if (suffix != "png" && suffix != "jpg" && suffix != "jpeg" && suffix != "pdf" && suffix != "svg")
    return Error{asked.path.toStdString() + ": unknown image format (use .png, .jpg, .pdf or .svg)"};
  if (!(asked.scale > 0 && asked.scale <= 16)) return Error{"export scale must be in (0, 16]"};
  const int w = width_of(asked);
  const ExportOptions o = fitted(views, figure, asked, w);
  const PanelsScope scope(views, o, w);
  if (!scope.status()) return scope.status();
  const Plan plan = plan_figure(views, figure, o, w);
  if (fit_note != nullptr) {
    std::string note;
    if (asked.font_scale <= 0 && o.font_scale > 0 && o.font_scale < figure_font_scale(w))
      note = "text at " + std::to_string(static_cast<int>(std::lround(100 * o.font_scale / figure_font_scale(w)))) +
             "% of the size chosen for the width";
    const std::string layout_note = figure_fit_note(plan.layout, asked.height_px);
    if (!layout_note.empty()) note += (note.empty() ? "" : "; ") + layout_note;
    *fit_note = note;
  }
  const QByteArray bytes = render(views, figure, plan, o, suffix, w);
  if (bytes.isEmpty()) return Error{o.path.toStdString() + ": could not write the image"};
  return write_image_file(o.path, bytes);
}

PanelsFigureDrawn panels_figure_drawn(std::span<TimelineView* const> views, const PanelsFigure& figure,
                                      const ExportOptions& asked) {
  PanelsFigureDrawn out;
  if (views.empty()) return out;
  const int w = width_of(asked);
  const ExportOptions o = fitted(views, figure, asked, w);
  const PanelsScope scope(views, o, w);
  const Plan plan = plan_figure(views, figure, o, w);
  out.layout = plan.layout;
  const PanelBoxes boxes = panel_boxes(plan);
  out.strip = boxes.strip;
  for (std::size_t i = 0; i < views.size(); ++i) {
    TimelineView& view = *views[i];
    // Drawn as the figure draws the panel; the view keeps that layout until its next replot.
    (void)view.plot()->toPixmap(static_cast<int>(boxes.plots[i].w), static_cast<int>(boxes.plots[i].h));
    const TimelineState& state = view.state();
    const QRectF lanes = state.lane_rect(view.plot()->axisRect()->rect());
    FigureRows rows;
    for (const LaneRow& row : state.layout.rows()) {
      const bool whole = state.row_y(lanes, row.top_px) >= lanes.top() - 0.5 &&
                         state.row_y(lanes, row.top_px + row.height_px) <= lanes.bottom() + 0.5;
      (whole ? rows.drawn : rows.cut).push_back(row);
    }
    const auto band_px = [&](const std::string& id) {
      const std::optional<std::size_t> band = state.band_index(id);
      return band ? state.bands.rows[*band].depth_px : 0.0;
    };
    rows.busy_strip_px = band_px(kBusyStripRowId);
    rows.idle_row_px = band_px(kIdleRowId);
    out.panels.push_back(std::move(rows));
  }
  return out;
}

std::vector<LegendGroup> merged_legend(const std::vector<std::vector<LegendGroup>>& legends) {
  std::vector<LegendGroup> out;
  for (const std::vector<LegendGroup>& legend : legends)
    for (const LegendGroup& g : legend) {
      auto group = std::find_if(out.begin(), out.end(), [&](const LegendGroup& o) { return o.title == g.title; });
      if (group == out.end()) {
        out.push_back({g.title, {}});
        group = std::prev(out.end());
      }
      for (const LegendEntry& e : g.entries)
        if (std::none_of(group->entries.begin(), group->entries.end(),
                         [&](const LegendEntry& o) { return o.label == e.label; }))
          group->entries.push_back(e);
    }
  return out;
}

}  // namespace gtv::ui
