#include "gtv/ui/export.h"

#include <qcustomplot.h>

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <set>

#include "gtv/io/readable_formats.h"
#include "gtv/model/lod.h"
#include "gtv/ui/figure_rows.h"
#include "gtv/ui/figure_writer.h"
#include "gtv/ui/image_file.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/timeline_layers.h"
#include "gtv/ui/timeline_view.h"

namespace gtv::ui {
namespace {

constexpr int kDefaultWidthPx = 1600;
constexpr int kMaxAutoHeightPx = 12000;
constexpr double kSwatchPx = 12;  // at font scale 1, as the gap
constexpr double kSwatchGapPx = 6;
constexpr std::size_t kFigureKernels = 8;
constexpr std::size_t kCaptionSentences = 2;
// Vector viewers lay text out with their own font metrics, a few percent wider than Qt's at times: text is
// measured this much wider, so a caption line or legend row never runs past the page edge there.
constexpr double kTextSlack = 1.06;

// The plot alone is drawn as QCustomPlot's savePng, saveJpg and savePdf draw it (the same files, byte for byte),
// but into memory: those open the file themselves.
constexpr int kPlotDotsPerMeter = static_cast<int>(kFigureDpi / 0.0254);  // as QCustomPlot::saveRastered stores

QByteArray render_plot_raster(QCustomPlot* plot, const char* format, int width, int height, double scale, int quality) {
  QImage image = plot->toPixmap(width, height, scale).toImage();
  image.setDotsPerMeterX(kPlotDotsPerMeter);
  image.setDotsPerMeterY(kPlotDotsPerMeter);
  return encode_image(image, format, quality);
}

// As QCustomPlot::savePdf: one page of exactly width x height points, non-cosmetic pens, and the background
// painted only when it is neither white nor transparent (a PDF page is white already).
QByteArray render_plot_pdf(TimelineView& view, int width, int height) {
  QCustomPlot* plot = view.plot();
  QByteArray bytes;
  QBuffer buffer(&bytes);
  if (!buffer.open(QIODevice::WriteOnly)) return {};
  QPdfWriter writer(&buffer);
  writer.setResolution(kFigureDpi);
  writer.setCreator(QStringLiteral("gtv"));
  QPageLayout page;
  page.setMode(QPageLayout::FullPageMode);
  page.setOrientation(QPageLayout::Portrait);
  page.setMargins(QMarginsF(0, 0, 0, 0));
  page.setPageSize(QPageSize(QSizeF(width, height), QPageSize::Point, QString(), QPageSize::ExactMatch));
  writer.setPageLayout(page);
  const QColor background = view.theme().background;
  const bool page_shows_background = background == Qt::white || background.alpha() == 0;
  QCPPainter painter;
  if (!painter.begin(&writer)) return {};
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNonCosmetic);
  painter.setWindow(QRect(0, 0, width, height));
  if (page_shows_background) plot->setBackground(QBrush(Qt::NoBrush));
  plot->toPainter(&painter, width, height);
  if (page_shows_background) plot->setBackground(QBrush(background));
  if (!painter.end()) return {};
  return bytes;
}

QByteArray render_plot_svg(QCustomPlot* plot, int width, int height) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  if (!buffer.open(QIODevice::WriteOnly)) return {};
  QSvgGenerator generator;
  generator.setOutputDevice(&buffer);
  generator.setSize(QSize(width, height));
  generator.setViewBox(QRect(0, 0, width, height));
  generator.setTitle(QStringLiteral("gtv timeline"));
  QCPPainter painter;
  if (!painter.begin(&generator)) return {};
  plot->toPainter(&painter, width, height);
  if (!painter.end()) return {};
  return generic_font_family(bytes);
}

// Every row and band whole (capped); the figure's plot gets exactly this, so its lanes never give way.
int auto_height(TimelineView& view) {
  return std::clamp(static_cast<int>(std::ceil(view.whole_plot_height_px())), 200, kMaxAutoHeightPx);
}

// The plot alone, exactly w x h, in the format of suffix; empty when it could not be drawn.
QByteArray render_plot(TimelineView& view, const QString& suffix, const ExportOptions& o, int w, int h) {
  QCustomPlot* plot = view.plot();
  if (suffix == "png") return render_plot_raster(plot, "PNG", w, h, o.scale, -1);
  if (suffix == "jpg" || suffix == "jpeg") return render_plot_raster(plot, "JPG", w, h, o.scale, o.jpg_quality);
  if (suffix == "pdf") return render_plot_pdf(view, w, h);
  if (suffix == "svg") return render_plot_svg(plot, w, h);
  return {};
}

struct FigureFonts {
  QFont title, legend, group, caption;
};

FigureFonts figure_fonts(const Theme& theme) {
  return {theme.font(12, true), theme.font(9), theme.font(9, true), theme.font(10)};
}

// One legend item per group title (starting a row) and per entry, in order.
struct LegendItem {
  QString text;
  Rgb color = 0;
  bool is_title = false;
  bool hatched = false;
};

std::vector<LegendItem> legend_items(const FigureText& figure) {
  std::vector<LegendItem> items;
  for (const LegendGroup& g : figure.legend) {
    items.push_back({QString::fromStdString(g.title) + QLatin1Char(':'), 0, true});
    for (const LegendEntry& e : g.entries)
      items.push_back({QString::fromStdString(e.label), e.color, false, e.hatched});
  }
  return items;
}

struct FigurePlan {
  FigureText text;  // the options' text, with what only this figure draws
  FigureLayout layout;
  std::vector<LegendItem> items;
  std::vector<QString> caption_lines;
  FigureFonts fonts;
};

// Whether the view's event lanes draw a merged block at lanes_width_px: a block is hatched from 4 px wide, as
// EventLaneRow draws it.
bool draws_hatched_blocks(const TimelineView& view, double lanes_width_px) {
  const Trace* trace = view.trace();
  const TimeWindow w = view.window();
  if (trace == nullptr || lanes_width_px <= 0 || w.t1_ns <= w.t0_ns) return false;
  const double px_per_ns = lanes_width_px / static_cast<double>(w.t1_ns - w.t0_ns);
  std::vector<LodSpan> spans;
  for (const LaneRow& row : view.layout().rows()) {
    if (!row.lane) continue;
    query_lod(trace->lane(*row.lane), {w.t0_ns, w.t1_ns, lanes_width_px}, spans);
    for (const LodSpan& s : spans)
      if (s.count > 1 && static_cast<double>(s.end_ns - s.start_ns) * px_per_ns >= 4) return true;
  }
  return false;
}

// The legend of what this figure draws: the trace's, and the hatching of merged blocks where the lanes show one.
FigureText drawn_figure_text(const TimelineView& view, const FigureText& text, int width) {
  FigureText drawn = text;
  if (draws_hatched_blocks(view, width - view.label_width_px()))
    drawn.legend.push_back({"Events too short to draw apart",
                            {{kMergedBlockRgb, "hatched: several events merged (the tooltip counts them)", true}}});
  return drawn;
}

FigurePlan plan_figure(TimelineView& view, const ExportOptions& o, int width, int plot_needed) {
  FigurePlan plan;
  plan.text = drawn_figure_text(view, *o.figure, width);
  const FigureText& text = plan.text;
  plan.fonts = figure_fonts(view.theme());
  QImage device = figure_metrics_image();
  const QFontMetricsF title(plan.fonts.title, &device), legend(plan.fonts.legend, &device),
      group(plan.fonts.group, &device), caption(plan.fonts.caption, &device);
  FigureMetrics m;
  m.width_px = width;
  m.max_height_px = o.height_px;
  m.plot_needed_px = plot_needed;
  m.title_px = text.title.isEmpty() ? 0 : title.height();
  plan.items = legend_items(text);
  for (const LegendItem& item : plan.items) {
    const double w = item.is_title
                         ? group.horizontalAdvance(item.text)
                         : (kSwatchPx + kSwatchGapPx) * view.theme().font_scale + legend.horizontalAdvance(item.text);
    m.legend_item_widths_px.push_back(std::ceil(w * kTextSlack) + 1);
    m.legend_item_breaks.push_back(item.is_title);
  }
  m.legend_item_px = std::max(legend.height(), group.height()) + 4;
  const double inner_w = width - 2 * m.margin_px;
  for (const std::string& line : wrap_words(text.caption.toStdString(), inner_w, [&](std::string_view piece) {
         return kTextSlack *
                caption.horizontalAdvance(QString::fromUtf8(piece.data(), static_cast<qsizetype>(piece.size())));
       }))
    plan.caption_lines.push_back(QString::fromStdString(line));
  m.caption_line_px = caption.lineSpacing();
  m.caption_lines = plan.caption_lines.size();
  plan.layout = layout_figure(m);
  return plan;
}

QRectF rect_of(const Box& b) { return QRectF(b.x, b.y, b.w, b.h); }

void paint_figure(QCPPainter& p, TimelineView& view, const FigurePlan& plan, const FigureText& text, int width) {
  const Theme& theme = view.theme();
  const FigureLayout& f = plan.layout;
  p.fillRect(QRectF(0, 0, width, f.height_px), theme.background);
  p.setPen(theme.text);
  if (!text.title.isEmpty()) {
    p.setFont(plan.fonts.title);
    p.drawText(rect_of(f.title), Qt::AlignLeft | Qt::AlignVCenter, text.title);
  }
  p.save();
  p.translate(f.plot.x, f.plot.y);
  view.plot()->toPainter(&p, static_cast<int>(f.plot.w), static_cast<int>(f.plot.h));
  p.restore();
  for (std::size_t i = 0; i < plan.items.size() && i < f.legend_items.size(); ++i) {
    const LegendItem& item = plan.items[i];
    QRectF r = rect_of(f.legend_items[i]);
    p.setPen(theme.text);
    if (item.is_title) {
      p.setFont(plan.fonts.group);
      p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, item.text);
      continue;
    }
    const double swatch_px = kSwatchPx * theme.font_scale;  // as large as the text beside it
    const QRectF swatch(r.left(), r.center().y() - swatch_px / 2, swatch_px, swatch_px);
    p.fillRect(swatch, QColor::fromRgb(static_cast<QRgb>(item.color)));
    if (item.hatched) p.fillRect(swatch, QBrush(QColor(0, 0, 0, 90), Qt::BDiagPattern));  // as the lanes hatch
    p.setPen(theme.text);
    p.setBrush(Qt::NoBrush);
    p.drawRect(swatch);
    p.setFont(plan.fonts.legend);
    r.setLeft(swatch.right() + kSwatchGapPx * theme.font_scale);
    // An entry wider than the image (a very long kernel name) loses its middle, never its ends.
    const QString shown =
        QFontMetricsF(plan.fonts.legend, p.device()).elidedText(item.text, Qt::ElideMiddle, r.width());
    p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, shown);
  }
  p.setFont(plan.fonts.caption);
  p.setPen(theme.text);
  const double line_px = plan.caption_lines.empty() ? 0 : f.caption.h / static_cast<double>(plan.caption_lines.size());
  for (std::size_t i = 0; i < plan.caption_lines.size(); ++i)
    p.drawText(QRectF(f.caption.x, f.caption.y + static_cast<double>(i) * line_px, f.caption.w, line_px),
               Qt::AlignLeft | Qt::AlignVCenter, plan.caption_lines[i]);
}

// The figure in the format of suffix; empty when it could not be drawn.
QByteArray render_figure(TimelineView& view, const QString& suffix, const ExportOptions& o, int w,
                         const FigurePlan& plan) {
  const FigurePage page{suffix,
                        w,
                        static_cast<int>(std::ceil(plan.layout.height_px)),
                        o.figure->title,
                        view.theme().background,
                        o.scale,
                        o.jpg_quality};
  return write_figure(page, [&](QCPPainter& p) { paint_figure(p, view, plan, *o.figure, w); });
}

// The widest row name of the view's layout as the label column draws it, with its indent and a margin.
double longest_label_px(const TimelineView& view) {
  const Theme& theme = view.theme();
  QImage device = figure_metrics_image();
  const QFontMetricsF group(theme.font(9, true), &device), lane(theme.font(9), &device), band(theme.font(8), &device);
  double widest = 0;
  for (const LaneRow& row : view.layout().rows()) {
    const bool header = row.kind == RowKind::ProcessHeader || row.kind == RowKind::DeviceHeader;
    const QString text = QString::fromStdString(row.label);
    widest = std::max(
        widest, label_indent_px(header, true, theme.font_scale) + (header ? group : lane).horizontalAdvance(text));
  }
  // The rows under the lanes are named in the label column too.
  const OverlayData& o = view.state().overlays;
  for (std::size_t i = 0; i < o.idle_devices.size(); ++i) {
    const QString text = i < o.idle_labels.size()
                             ? QString::fromStdString(o.idle_labels[i]) + QStringLiteral(" idle, by cause")
                             : QStringLiteral("GPU %1 idle, by cause").arg(o.idle_devices[i]);
    widest = std::max(widest, label_indent_px(false, true, theme.font_scale) + band.horizontalAdvance(text));
  }
  return widest * kTextSlack + 8 * theme.font_scale;
}

}  // namespace

FigureViewScope::FigureViewScope(TimelineView& view, const ExportOptions& o, int width_px)
    : view_(view),
      theme_(view.theme()),
      lane_state_(view.lane_state()),
      label_width_px_(view.label_width_override_px()) {
  Theme figure_theme = theme_;
  figure_theme.font_scale = theme_.font_scale * (o.font_scale > 0 ? o.font_scale : figure_font_scale(width_px));
  view.set_theme(figure_theme);
  if (view.trace()) view.set_lane_state(figure_lane_state(*view.trace(), view.timeline_rows(), view.window()));
  view.set_figure_mode(true);
  const Expected<double> label_px = figure_label_width_px(o.label_width, width_px, longest_label_px(view));
  if (!label_px) {
    status_ = label_px.error();
    return;
  }
  view.set_label_width_px(*label_px);
}

FigureViewScope::~FigureViewScope() {
  view_.set_figure_mode(false);
  view_.set_label_width_px(label_width_px_);
  view_.set_lane_state(lane_state_);
  view_.set_theme(theme_);
}

namespace {

// The export's window (options.range, else the whole trace with whole_trace, else the view's) for as long as it
// lives; the view's window and scroll afterwards.
class ExportWindowScope {
 public:
  ExportWindowScope(TimelineView& view, const ExportOptions& o)
      : view_(view), window_(view.window()), scroll_px_(view.scroll_px()), top_(o.whole_trace) {
    const TimeNs origin = view.trace() ? view.trace()->start_ns() : 0;
    if (o.range)
      view.set_window({o.range->t0_ns + origin, o.range->t1_ns + origin});
    else if (o.whole_trace)
      view.fit();
    scroll_to_top();
  }
  ~ExportWindowScope() {
    view_.set_window(window_);
    view_.set_scroll_px(scroll_px_);
    view_.replot_now();
  }
  ExportWindowScope(const ExportWindowScope&) = delete;
  ExportWindowScope& operator=(const ExportWindowScope&) = delete;
  // A whole-trace image starts at the first row (again after a figure changed the rows).
  void scroll_to_top() {
    if (top_) view_.set_scroll_px(0);
  }

 private:
  TimelineView& view_;
  TimeWindow window_;
  double scroll_px_;
  bool top_;
};

// The options a figure is drawn with. Where its height is capped and its text size left to gtv: the largest text
// scale, from the one chosen for the width down to the screen's in steps of a quarter, at which every lane fits
// the height asked with its legend and caption; where none does, the screen's, so the figure grows the least.
ExportOptions fitted_figure_options(TimelineView& view, const ExportOptions& o, int w) {
  if (!o.figure || o.height_px <= 0 || o.font_scale > 0) return o;
  ExportOptions tried = o;
  for (double s = figure_font_scale(w);; s = std::max(1.0, s - 0.25)) {
    tried.font_scale = s;
    const FigureViewScope scope(view, tried, w);
    if (!scope.status()) return o;  // the export reports the bad preset
    view.set_scroll_px(0);
    if (s <= 1.0 || plan_figure(view, tried, w, auto_height(view)).layout.fit != FigureFit::Grown) return tried;
  }
}

// What the figure did to keep every lane: its text made smaller than the width would choose, its legend made
// compact, the figure grown; empty when none.
std::string fit_note_of(const ExportOptions& asked, const ExportOptions& drawn, int w, const FigureLayout& layout) {
  std::string note;
  if (asked.font_scale <= 0 && drawn.font_scale > 0 && drawn.font_scale < figure_font_scale(w)) {
    const int percent = static_cast<int>(std::lround(100 * drawn.font_scale / figure_font_scale(w)));
    note = "text at " + std::to_string(percent) + "% of the size chosen for the width";
  }
  const std::string layout_note = figure_fit_note(layout, asked.height_px);
  if (!layout_note.empty()) note += (note.empty() ? "" : "; ") + layout_note;
  return note;
}

}  // namespace

Status export_timeline(TimelineView& view, const ExportOptions& asked, std::string* fit_note) {
  if (fit_note != nullptr) fit_note->clear();
  const QString suffix = QFileInfo(asked.path).suffix().toLower();
  if (suffix != "png" && suffix != "jpg" && suffix != "jpeg" && suffix != "pdf" && suffix != "svg")
    return Error{asked.path.toStdString() + ": unknown image format (use .png, .jpg, .pdf or .svg)"};
  if (!(asked.scale > 0 && asked.scale <= 16)) return Error{"export scale must be in (0, 16]"};
  ExportWindowScope window(view, asked);
  const int w = asked.width_px > 0 ? asked.width_px : kDefaultWidthPx;
  const ExportOptions o = fitted_figure_options(view, asked, w);
  // Every format is drawn into memory first, so nothing is written unless the whole image could be drawn.
  QByteArray bytes;
  if (o.figure) {
    const FigureViewScope figure_view(view, o, w);
    if (!figure_view.status()) return figure_view.status();
    view.set_scroll_px(0);  // the figure shows every row from the first
    const FigurePlan plan = plan_figure(view, o, w, auto_height(view));
    if (fit_note != nullptr) *fit_note = fit_note_of(asked, o, w, plan.layout);
    bytes = render_figure(view, suffix, o, w, plan);
  } else {
    bytes = render_plot(view, suffix, o, w, o.height_px > 0 ? o.height_px : auto_height(view));
  }
  if (bytes.isEmpty()) return Error{o.path.toStdString() + ": could not write the image"};
  return write_image_file(o.path, bytes);
}

FigureLayout export_figure_layout(TimelineView& view, const ExportOptions& asked) {
  const int w = asked.width_px > 0 ? asked.width_px : kDefaultWidthPx;
  ExportWindowScope window(view, asked);
  const ExportOptions o = fitted_figure_options(view, asked, w);
  const FigureViewScope figure_view(view, o, w);
  view.set_scroll_px(0);
  return plan_figure(view, o, w, auto_height(view)).layout;
}

FigureRows export_figure_rows(TimelineView& view, const ExportOptions& asked) {
  const int w = asked.width_px > 0 ? asked.width_px : kDefaultWidthPx;
  ExportWindowScope window(view, asked);
  const ExportOptions o = fitted_figure_options(view, asked, w);
  const FigureViewScope figure_view(view, o, w);
  view.set_scroll_px(0);
  const FigureLayout layout = plan_figure(view, o, w, auto_height(view)).layout;
  // Drawn as the figure draws its plot; the view keeps that layout (its rows, bands and axis rect) until its next
  // replot, which the window scope makes.
  (void)view.plot()->toPixmap(w, static_cast<int>(layout.plot.h));
  const TimelineState& state = view.state();
  const QRectF lanes = state.lane_rect(view.plot()->axisRect()->rect());
  FigureRows out;
  for (const LaneRow& row : state.layout.rows()) {
    const bool whole = state.row_y(lanes, row.top_px) >= lanes.top() - 0.5 &&
                       state.row_y(lanes, row.top_px + row.height_px) <= lanes.bottom() + 0.5;
    (whole ? out.drawn : out.cut).push_back(row);
  }
  const auto band_px = [&](const std::string& id) {
    const std::optional<std::size_t> band = state.band_index(id);
    return band ? state.bands.rows[*band].depth_px : 0.0;
  };
  out.busy_strip_px = band_px(kBusyStripRowId);
  out.idle_row_px = band_px(kIdleRowId);
  return out;
}

namespace {

// The devices whose GPU lanes hold events: a machine's device table lists GPUs the program never used.
std::set<std::int32_t> devices_that_ran_work(const Trace& trace) {
  std::set<std::int32_t> used;
  for (const Lane& lane : trace.lanes())
    if (lane.is_gpu() && !lane.events.empty()) used.insert(static_cast<std::int32_t>(lane.key.pid));
  return used;
}

// "2 ranks: ddp_rank0, ddp_rank1 — 1x NVIDIA H200 per rank": the rank files (the first three) and what each rank
// ran on, which for ranks that name the same GPU ids need not be distinct GPUs.
std::string run_title(const Trace& trace) {
  const std::vector<RankInfo>& ranks = trace.metadata().ranks;
  std::string title = std::to_string(ranks.size()) + " ranks:";
  for (std::size_t i = 0; i < ranks.size() && i < 3; ++i) {
    title += (i == 0 ? " " : ", ") + io::trace_stem(ranks[i].source);
  }
  if (ranks.size() > 3) title += ", ...";
  std::vector<DeviceInfo> first;
  bool alike = true;
  for (const RankInfo& r : ranks) {
    std::vector<DeviceInfo> own;
    for (std::int64_t d : r.devices)
      if (const DeviceInfo* info = trace.device(static_cast<std::int32_t>(d))) own.push_back(*info);
    if (&r == &ranks.front()) first = own;
    alike = alike && own.size() == first.size() &&
            std::equal(own.begin(), own.end(), first.begin(),
                       [](const DeviceInfo& a, const DeviceInfo& b) { return a.name == b.name; });
  }
  if (!alike || first.empty()) return figure_title(title, trace.devices());
  return figure_title(title, first) + " per rank";
}

}  // namespace

FigureText figure_text(const Trace& trace, const DocumentAnalysis& analysis, const QString& file_path,
                       ColorMode color_mode, bool dark) {
  FigureText text;
  QString name = QString::fromStdString(trace.metadata().scenario);
  if (name.isEmpty()) {
    name = QString::fromStdString(io::trace_stem(file_path.toStdString()));
  }
  text.title = QString::fromStdString(
      trace.metadata().ranks.empty() ? figure_title(name.toStdString(), trace.devices(), devices_that_ran_work(trace))
                                     : run_title(trace));
  const auto& verdict = analysis.report().verdict;
  for (std::size_t i = 0; i < verdict.size() && i < kCaptionSentences; ++i)
    text.caption += (i ? QStringLiteral(" ") : QString()) + QString::fromStdString(verdict[i]);
  const Theme theme = dark ? dark_theme() : light_theme();
  LegendOptions legend;
  legend.only_present = true;
  legend.kernel_count = kFigureKernels;
  legend.color_mode = color_mode;
  legend.background = theme.background.rgb() & 0xffffff;
  legend.strip_background = theme.header_background.rgb() & 0xffffff;
  text.legend = legend_groups(trace, analysis, legend);
  return text;
}

Expected<TimeNs> parse_time(std::string_view text) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr == text.data()) return Error{"'" + std::string(text) + "' is not a time (e.g. 12.5ms)"};
  const std::string_view unit(ptr, static_cast<std::size_t>(end - ptr));
  double ns_per_unit = 0;
  if (unit.empty() || unit == "ms")
    ns_per_unit = 1e6;
  else if (unit == "ns")
    ns_per_unit = 1;
  else if (unit == "us")
    ns_per_unit = 1e3;
  else if (unit == "s")
    ns_per_unit = 1e9;
  else
    return Error{"'" + std::string(text) + "': unknown time unit (ns, us, ms, s)"};
  return static_cast<TimeNs>(std::llround(value * ns_per_unit));
}

Expected<TimeWindow> parse_time_range(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return Error{"range '" + std::string(text) + "' must be T0:T1"};
  auto t0 = parse_time(text.substr(0, colon));
  if (!t0) return t0.error();
  auto t1 = parse_time(text.substr(colon + 1));
  if (!t1) return t1.error();
  if (*t1 <= *t0) return Error{"range '" + std::string(text) + "': the end must be after the start"};
  return TimeWindow{*t0, *t1};
}

Expected<std::pair<int, int>> parse_size(std::string_view text) {
  const auto x = text.find('x');
  int w = 0, h = 0;
  const char* end = text.data() + text.size();
  if (x == std::string_view::npos || std::from_chars(text.data(), text.data() + x, w).ptr != text.data() + x ||
      std::from_chars(text.data() + x + 1, end, h).ptr != end || w < 16 || h < 16 || w > 20000 || h > 20000)
    return Error{"size '" + std::string(text) + "' must be WxH in pixels, e.g. 1920x1080"};
  return std::pair{w, h};
}

}  // namespace gtv::ui
