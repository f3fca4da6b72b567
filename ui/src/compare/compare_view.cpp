#include "gtv/ui/compare_view.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QFileInfo>
#include <QLabel>
#include <QScreen>
#include <QSplitter>
#include <QStyle>
#include <QTextDocumentFragment>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>

#include "gtv/analysis/compare.h"
#include "gtv/io/readable_formats.h"
#include "gtv/ui/band_rows.h"
#include "gtv/ui/classroom_view.h"
#include "gtv/ui/document_analysis.h"
#include "gtv/ui/legend.h"
#include "gtv/ui/run_alignment.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"

namespace gtv::ui {
namespace {

QString dur(TimeNs ns) { return QString::fromStdString(format_duration(ns)); }

QString label_of(const QString& path) { return QString::fromStdString(io::trace_stem(path.toStdString())); }

// The most a grown panel takes (set_grow_to_fit): a GPU's rows under its header, its bands and axes.
constexpr int kMostPanelPx = 1500;

}  // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent),
      note_(new QLabel(this)),
      loading_label_(new QLabel(this)),
      fit_note_(new QLabel(this)),
      splitter_(new QSplitter(Qt::Vertical, this)) {
  auto* layout = new QVBoxLayout(this);
  note_->setWordWrap(true);
  note_->setVisible(false);
  loading_label_->setAlignment(Qt::AlignCenter);
  loading_label_->setWordWrap(true);
  loading_label_->setVisible(false);
  layout->addWidget(note_);
  fit_note_->setWordWrap(true);
  fit_note_->setVisible(false);
  fit_note_->setStyleSheet(QStringLiteral("color: #9a5b00;"));
  layout->addWidget(fit_note_);
  layout->addWidget(loading_label_, 1);
  layout->addWidget(splitter_, 1);
  connect(&watcher_, &QFutureWatcher<std::vector<LoadResult>>::finished, this, [this] {
    loading_label_->setVisible(false);
    const std::vector<LoadResult> loaded = watcher_.result();
    for (const LoadResult& r : loaded)
      if (!r.error.isEmpty()) {
        emit files_loaded(r.error);
        return;
      }
    for (std::size_t i = 0; i < loaded.size(); ++i)
      add_run(loaded[i].trace, loading_labels_[static_cast<int>(i)], loaded[i].analysis);
    emit files_loaded(QString());
  });
}

CompareView::~CompareView() { cancelled_->store(true); }

void CompareView::set_note(const QString& note) {
  note_->setText(note);
  note_->setVisible(!note.isEmpty());
}

QString CompareView::note() const { return note_->text(); }

QString CompareView::fit_note() const { return fit_note_->text(); }

void CompareView::set_grow_to_fit(bool grow) { grow_to_fit_ = grow; }

void CompareView::update_fit_note() {
  int cut = 0;
  double missing_px = 0;
  for (const Run& r : runs_) {
    const double shown_px = r.view->scroll_px() + r.view->lane_rect().height();
    double gpu_top_px = -1;
    double gpu_bottom_px = 0;
    for (const LaneRow& row : r.view->layout().rows())
      if (row.group.first == LaneKind::GpuStream) {
        if (gpu_top_px < 0) gpu_top_px = row.top_px;
        gpu_bottom_px = std::max(gpu_bottom_px, row.bottom_px());
      }
    if (gpu_bottom_px > shown_px + 0.5) {
      ++cut;
      missing_px += gpu_bottom_px - std::max(0.0, gpu_top_px) - r.view->lane_rect().height();
    } else if (grow_to_fit_ && !r.view->state().band_index(kBracketRowId)) {
      // Grown, a panel also shows a row of its measurements' brackets (the first: the truth, where there is one).
      const TimelineState& st = r.view->state();
      for (const auto& row : st.rows)
        if (row->desc().id == kBracketRowId) {
          missing_px += row->band_size(st).height_px(1);
          ++cut;
        }
    }
  }
  // Taller by what the panels lack; the resize that follows places them on their GPUs again and checks. Bounded, so
  // a panel that cannot be satisfied (brackets the window never shows) stops the growth and gets the note instead.
  const int grown_px = height() + static_cast<int>(std::ceil(missing_px)) + 4;
  if (grow_to_fit_ && cut > 0 && missing_px > 0 && grown_px <= kMostPanelPx * run_count()) {
    setMinimumHeight(grown_px);
    cut = 0;
  }
  const QString text = cut == 0 ? QString()
                                : tr("At this height %1 of %2 panels cannot show their GPU lanes whole (scroll each "
                                     "panel, or compare fewer runs or give the window more height).")
                                      .arg(cut)
                                      .arg(run_count());
  fit_note_->setText(text);
  fit_note_->setVisible(!text.isEmpty());
}

void CompareView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (shown_) QTimer::singleShot(0, this, [this] { grow_to_fit_ ? reveal_gpu_lanes() : update_fit_note(); });
}

void CompareView::add_run(std::shared_ptr<const Trace> trace, const QString& label,
                          std::shared_ptr<const DocumentAnalysis> analysis) {
  Run run;
  if (!analysis) analysis = std::make_shared<const DocumentAnalysis>(analyse_document(trace));
  run.anchor_ns = anchor_of_ ? anchor_of_(*trace) : alignment_anchor_ns(*trace, analysis->report());
  run.trace = std::move(trace);
  run.label = label;
  auto* box = new QWidget(splitter_);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  run.header = new QLabel(box);
  run.header->setTextFormat(Qt::RichText);
  run.header->setWordWrap(true);
  run.view = new TimelineView(box);
  run.view->set_trace(run.trace);
  run.analysis = analysis;
  run.view->set_overlays(analysis->overlays);
  if (theme_) run.view->set_theme(*theme_);
  run.view->focus_on_gpu_lanes();
  run.view->set_gpu_rows_first(true);
  hide_idle_gpu_lanes(run);
  layout->addWidget(run.header);
  layout->addWidget(run.view, 1);
  splitter_->addWidget(box);
  const int index = run_count();
  QString notes;
  run.figures = compute_figures(run, runs_.empty() ? nullptr : &runs_.front(), &notes);
  run.header->setToolTip(notes);
  run.notes = notes;
  runs_.push_back(std::move(run));
  connect(runs_.back().view, &TimelineView::window_changed, this, [this, index] { sync_from(index); });
  connect(runs_.back().view, &TimelineView::scrolled, this, [this, index] { sync_scroll_from(index); });
  // Each axis counts from its run's alignment point, so one number names the same moment in every run.
  runs_.back().view->set_axis_origin(
      runs_.back().anchor_ns,
      anchor_of_ ? axis_label_ : tr("time from the first steady-state kernel (where the runs are aligned)"));
  refresh_figures();
  share_bounds();
  show_timed_work();
}

TimeWindow CompareView::timed_work_window() const {
  TimeNs t0_ns = 0;
  TimeNs t1_ns = 0;
  for (int i = 0; i < run_count(); ++i) {
    const Run& r = runs_[static_cast<std::size_t>(i)];
    const PlaybackSpan span = classroom_playback_span(*r.trace, r.analysis ? &r.analysis->report() : nullptr);
    const TimeNs start = span.start_ns - offset_ns(i);
    const TimeNs end = span.end_ns - offset_ns(i);
    t0_ns = i == 0 ? start : std::min(t0_ns, start);
    t1_ns = i == 0 ? end : std::max(t1_ns, end);
  }
  return clamp_window(fit_window(t0_ns, t1_ns, 0.03), shared_bounds());
}

void CompareView::show_timed_work() {
  if (runs_.empty()) return;
  set_window(timed_work_window());
  reveal_gpu_lanes();
}

QString CompareView::add_files(const QStringList& paths, const QStringList& labels) {
  for (int i = 0; i < paths.size(); ++i) {
    LoadResult loaded = load_trace_file(paths[i]);
    if (!loaded.error.isEmpty()) return loaded.error;
    add_run(loaded.trace, i < labels.size() ? labels[i] : label_of(paths[i]), loaded.analysis);
  }
  return {};
}

void CompareView::load_files(const QStringList& paths, const QStringList& labels) {
  if (watcher_.isRunning()) return;
  loading_labels_.clear();
  for (int i = 0; i < paths.size(); ++i) loading_labels_ << (i < labels.size() ? labels[i] : label_of(paths[i]));
  loading_label_->setText(
      tr("Reading and analysing %1 runs: %2...").arg(paths.size()).arg(loading_labels_.join(QStringLiteral(", "))));
  loading_label_->setVisible(true);
  const std::shared_ptr<std::atomic<bool>> cancelled = cancelled_;
  watcher_.setFuture(QtConcurrent::run([paths, cancelled] {
    std::vector<LoadResult> loaded;
    const LoadProgress go_on = [cancelled](double) { return !cancelled->load(); };
    for (const QString& path : paths) {
      loaded.push_back(load_trace_file(path, go_on));
      if (!loaded.back().error.isEmpty()) break;
    }
    return loaded;
  }));
}

TimeNs CompareView::offset_ns(int run) const {
  std::vector<TimeNs> anchors;
  for (const Run& r : runs_) anchors.push_back(r.anchor_ns);
  return alignment_offsets_ns(anchors)[static_cast<std::size_t>(run)];
}

void CompareView::share_bounds() {
  // The union of the runs' extents on the aligned axis: the slower run is never cut, and every view is given
  // the same stretch (shifted into its own time) so none clamps and the runs stay locked together.
  TimeNs t0_ns = 0;
  TimeNs t1_ns = 0;
  for (int i = 0; i < run_count(); ++i) {
    const Trace& t = *runs_[static_cast<std::size_t>(i)].trace;
    const TimeNs start = t.start_ns() - offset_ns(i);
    const TimeNs end = t.end_ns() - offset_ns(i);
    t0_ns = i == 0 ? start : std::min(t0_ns, start);
    t1_ns = i == 0 ? end : std::max(t1_ns, end);
  }
  shared_bounds_ = fit_window(t0_ns, t1_ns, 0.05);
  for (int i = 0; i < run_count(); ++i)
    view(i)->set_bounds(TimeWindow{shared_bounds_.t0_ns + offset_ns(i), shared_bounds_.t1_ns + offset_ns(i)});
}

QSize CompareView::fit_to_screen(QSize size) const {
  if (const QScreen* s = screen()) size.setWidth(std::min(size.width(), s->availableGeometry().width()));
  return size;
}

QSize CompareView::sizeHint() const { return fit_to_screen(QWidget::sizeHint()); }

QSize CompareView::minimumSizeHint() const { return fit_to_screen(QWidget::minimumSizeHint()); }

void CompareView::sync_from(int run) {
  if (syncing_) return;
  syncing_ = true;
  const TimeWindow w = view(run)->window();
  const TimeNs base = offset_ns(run);
  const TimeWindow w0 = clamp_window({w.t0_ns - base, w.t1_ns - base}, shared_bounds());
  for (int i = 0; i < run_count(); ++i) {
    const TimeWindow wanted{w0.t0_ns + offset_ns(i), w0.t1_ns + offset_ns(i)};
    if (view(i)->window() != wanted) view(i)->set_window(wanted);
  }
  syncing_ = false;
}

namespace {

// The top of the first GPU's header in a panel's layout (0: none).
double gpu_header_top_px(const TimelineView& view) {
  for (const LaneRow& row : view.layout().rows())
    if (row.kind == RowKind::DeviceHeader) return row.top_px;
  return 0;
}

}  // namespace

void CompareView::sync_scroll_from(int run) {
  if (syncing_scroll_) return;
  syncing_scroll_ = true;
  const double from_gpu_px = view(run)->scroll_px() - gpu_header_top_px(*view(run));
  for (int i = 0; i < run_count(); ++i)
    if (i != run) view(i)->set_scroll_px(gpu_header_top_px(*view(i)) + from_gpu_px);
  syncing_scroll_ = false;
}

void CompareView::hide_idle_gpu_lanes(Run& run) const {
  const PlaybackSpan span = classroom_playback_span(*run.trace, run.analysis ? &run.analysis->report() : nullptr);
  const auto& lanes = run.trace->lanes();
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    if (!lanes[i].is_gpu()) continue;
    const auto& events = lanes[i].events;
    const bool works = std::any_of(events.begin(), events.end(), [&](const Event& e) {
      return e.start_ns < span.end_ns && e.end_ns() > span.start_ns;
    });
    if (!works) run.view->set_lane_hidden(static_cast<LaneIndex>(i), true);
  }
}

void CompareView::set_window(TimeWindow window_run0) {
  if (runs_.empty()) return;
  view(0)->set_window(window_run0);  // emits window_changed, which moves the others
}

void CompareView::fit() {
  if (runs_.empty()) return;
  set_window(shared_bounds());
  reveal_gpu_lanes();
}

void CompareView::reveal_gpu_lanes() {
  const bool syncing = syncing_scroll_;
  syncing_scroll_ = true;  // each panel is placed on its own GPUs here
  for (const Run& r : runs_) {
    const auto& rows = r.view->layout().rows();
    const auto gpu =
        std::find_if(rows.begin(), rows.end(), [](const LaneRow& row) { return row.kind == RowKind::DeviceHeader; });
    if (gpu == rows.end()) continue;
    r.view->replot_now();  // laid out at its present size: the bands fitted, the lane area's height current
    // The panel starts at a row's top, never mid-row: where the GPU header cannot reach the top (the rows under
    // it are shorter than the panel), at the last row top the scroll can reach, from which every row below fits.
    const double max_scroll_px = r.view->max_scroll_px();
    double scroll_px = 0;
    for (auto it = rows.begin(); it != std::next(gpu); ++it)
      if (it->top_px <= max_scroll_px) scroll_px = it->top_px;
    r.view->set_scroll_px(scroll_px);
  }
  syncing_scroll_ = syncing;
  update_fit_note();
}

void CompareView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (shown_) return;
  shown_ = true;
  // Once the panels have their heights (after this event's layout), so the scroll reaches the GPUs.
  QTimer::singleShot(0, this, [this] { reveal_gpu_lanes(); });
}

void CompareView::set_theme(const Theme& theme) {
  theme_ = theme;
  for (const Run& r : runs_) r.view->set_theme(theme);
}

void CompareView::set_alignment(AnchorOf anchor_of, const QString& axis_label) {
  anchor_of_ = std::move(anchor_of);
  axis_label_ = axis_label;
}

void CompareView::set_header(int run, const QString& html, const QString& style_sheet) {
  Run& r = runs_[static_cast<std::size_t>(run)];
  r.figures = html;
  r.header->setText(html);
  r.header->setToolTip(QString());
  r.header->setStyleSheet(style_sheet);
}

PanelFit compare_panel_fit(int height_px, const Theme& theme, int gpu_count) {
  // Measured on the widgets a panel is made of, laid out offscreen at this theme.
  TimelineView plot;
  plot.set_theme(theme);
  plot.resize(800, 600);
  plot.replot_now();
  const int axes_px = plot.plot()->viewport().height() - plot.plot()->axisRect()->rect().height();
  QLabel header;
  header.setTextFormat(Qt::RichText);
  header.setText(QStringLiteral("run<br>speedup"));  // a run after the first: its figures and its comparison
  const double scale = theme.font_scale;
  const double strips_px = (kBusyStripPx + std::max(gpu_count, 1) * kIdleRowPx) * scale;
  const double lanes_px = readable_lanes_px(TimelineView::layout_options(theme));
  const QSplitter splitter(Qt::Vertical);
  PanelFit fit;
  fit.panel_min_px =
      header.sizeHint().height() + axes_px + static_cast<int>(std::ceil(strips_px + lanes_px)) + splitter.handleWidth();
  // The view's own margins above the first panel and under the last.
  const QStyle* style = QApplication::style();
  const int margins_px =
      style->pixelMetric(QStyle::PM_LayoutTopMargin) + style->pixelMetric(QStyle::PM_LayoutBottomMargin);
  fit.fits = std::max(1, (height_px - margins_px) / fit.panel_min_px);
  return fit;
}

QString CompareView::figures_text(int run) const { return runs_[static_cast<std::size_t>(run)].figures; }

// A run's header: its own figures, and for every run after the first the core comparison against the first run,
// headlined by the speedup on the basis that comparison chose (said in its words), whole-trace wall time second.
QString CompareView::compute_figures(const Run& r, const Run* first, QString* notes) const {
  QString text = QStringLiteral("<b>%1</b> &nbsp; aligned at its first steady kernel (t = %2)")
                     .arg(r.label.toHtmlEscaped(), dur(r.anchor_ns - r.trace->start_ns()));
  const analysis::RunFigures f = analysis::run_figures(*r.trace, r.analysis->report(), r.label.toStdString());
  if (f.gpu_busy_ns > 0) {
    const double share = 100.0 * static_cast<double>(f.overlap_ns) / static_cast<double>(f.gpu_busy_ns);
    text += QStringLiteral(
                " &nbsp;|&nbsp; wall %1 &middot; GPU busy %2 &middot; overlap (2+ GPUs) %3 = %4% "
                "&middot; parallelism %5")
                .arg(dur(f.wall_ns), dur(f.gpu_busy_ns), dur(f.overlap_ns))
                .arg(share, 0, 'f', 0)
                .arg(f.effective_parallelism, 0, 'f', 2);
  } else {
    text += QStringLiteral(" &nbsp;|&nbsp; wall %1 &middot; no GPU work recorded").arg(dur(f.wall_ns));
  }
  // Overlap inside each GPU: its streams (stream parallelism, sum of per-stream busy time over the GPU's busy time).
  for (const analysis::GpuStreamFigures& g : f.gpu_streams)
    if (g.stream_count > 1)
      text +=
          QStringLiteral(" &middot; GPU %1 stream parallelism %2").arg(g.device).arg(g.stream_parallelism, 0, 'f', 2);
  if (first == nullptr) return text;
  analysis::Comparison c = analysis::compare(*first->trace, first->analysis->report(), *r.trace, r.analysis->report(),
                                             first->label.toStdString(), r.label.toStdString());
  analysis::note_tracing_overhead(c, first->analysis->report(), r.analysis->report());
  const QString basis = QString::fromStdString(c.basis_text).toHtmlEscaped();
  text += QStringLiteral("<br>speedup vs %1: ").arg(first->label.toHtmlEscaped());
  if (c.same_run) {
    // Two ranks of one run: what differs is what one waited for the other, not a speedup (the note says so).
    text += QStringLiteral("<b>none: ranks of one run</b> (%1 &rarr; %2, %3)")
                .arg(dur(c.basis_a_ns), dur(c.basis_b_ns), basis);
    *notes += (notes->isEmpty() ? QString() : QStringLiteral("\n")) + QString::fromStdString(c.verdict);
  } else if (c.speedup > 0 && c.per_kernel) {
    // The work differs: only a kernel instance is the same unit in both.
    const auto per = [](TimeNs ns, std::size_t n) { return dur(ns / static_cast<TimeNs>(n)); };
    text += QStringLiteral(
                "<b>%1&times; per kernel instance</b> (the work differs: %2 vs %3 kernel instances; %4 &rarr; %5 per "
                "instance, %6)")
                .arg(c.speedup, 0, 'f', 2)
                .arg(c.basis_kernels_a)
                .arg(c.basis_kernels_b)
                .arg(per(c.basis_a_ns, c.basis_kernels_a), per(c.basis_b_ns, c.basis_kernels_b), basis);
  } else if (c.speedup > 0 && c.per_iteration) {
    // Different iteration counts: the speedup is per iteration, and the times shown are too.
    const auto per = [](TimeNs ns, std::size_t n) { return dur(ns / static_cast<TimeNs>(n)); };
    text += QStringLiteral("<b>%1&times; per iteration</b> (%2 &rarr; %3 per iteration; %4 vs %5 iterations, %6)")
                .arg(c.speedup, 0, 'f', 2)
                .arg(per(c.basis_a_ns, c.iterations_a), per(c.basis_b_ns, c.iterations_b))
                .arg(c.iterations_a)
                .arg(c.iterations_b)
                .arg(basis);
  } else if (c.speedup > 0) {
    text += QStringLiteral("<b>%1&times;</b> (%2 &rarr; %3, %4)")
                .arg(c.speedup, 0, 'f', 2)
                .arg(dur(c.basis_a_ns), dur(c.basis_b_ns), basis);
  }
  if (c.speedup <= 0 && !c.same_run) text += QStringLiteral("unknown (%1)").arg(basis);
  if (c.wall_speedup > 0) text += QStringLiteral(" &middot; whole trace %1&times;").arg(c.wall_speedup, 0, 'f', 2);
  // When the two ran different work, the speedup says less than it seems: one short line in the header (the panels
  // keep their height), the analysis's warnings in its words in the header's tooltip.
  if (!c.warnings.empty()) {
    text += QStringLiteral(" &middot; <span style=\"color:#b35900\">&#9888; %1 (hover for details)</span>")
                .arg(c.warnings.size() == 1 ? QStringLiteral("1 note on this speedup")
                                            : QStringLiteral("%1 notes on this speedup").arg(c.warnings.size()));
    for (const std::string& w : c.warnings)
      *notes += (notes->isEmpty() ? QString() : QStringLiteral("\n")) + QString::fromStdString(w);
  }
  return text;
}

void CompareView::refresh_figures() {
  for (int i = 0; i < run_count(); ++i) runs_[static_cast<std::size_t>(i)].header->setText(figures_text(i));
}

}  // namespace gtv::ui

namespace gtv::ui {

PanelsFigure CompareView::figure(bool dark) const {
  PanelsFigure f;
  if (runs_.empty()) return f;
  QStringList labels;
  for (const Run& r : runs_) labels << r.label;
  f.title = QString::fromStdString(
      figure_title(labels.join(QStringLiteral(" vs ")).toStdString(), runs_.front().trace->devices()));
  const Theme theme = dark ? dark_theme() : light_theme();
  std::vector<std::vector<LegendGroup>> legends;
  QStringList notes;
  for (const Run& r : runs_) {
    QString header = QTextDocumentFragment::fromHtml(r.figures).toPlainText();
    // The window's pointer to the tooltip: a figure has none, its caption carries the notes.
    if (const qsizetype warning = header.indexOf(QChar(0x26A0)); warning > 0 && !r.notes.isEmpty())
      header = header.left(warning).trimmed().chopped(1).trimmed();
    f.headers.push_back(header);
    if (!r.notes.isEmpty())
      notes << QStringLiteral("%1: %2").arg(r.label, QString(r.notes).replace(QLatin1Char('\n'), QStringLiteral("; ")));
    LegendOptions legend;
    legend.only_present = true;
    legend.kernel_count = 8;
    legend.color_mode = r.view->color_mode();
    legend.background = theme.background.rgb() & 0xffffff;
    legend.strip_background = theme.header_background.rgb() & 0xffffff;
    legends.push_back(legend_groups(*r.trace, *r.analysis, legend));
  }
  f.legend = merged_legend(legends);
  const QString axis =
      anchor_of_ ? axis_label_ : tr("time from the first steady-state kernel (where the runs are aligned)");
  f.caption =
      tr("Each run's axis counts %1; its header gives its figures from gtv's analysis and, after the first, its "
         "speedup against the first run.")
          .arg(axis.startsWith(QStringLiteral("time ")) ? axis.mid(5) : axis);
  if (!notes.isEmpty()) f.caption += QLatin1Char(' ') + tr("Notes: %1.").arg(notes.join(QStringLiteral("; ")));
  f.axis_origin_ns = runs_.front().anchor_ns;
  return f;
}

Status CompareView::export_figure(const ExportOptions& options, bool dark, std::string* fit_note) {
  std::vector<TimelineView*> views;
  views.reserve(runs_.size());
  for (const Run& r : runs_) views.push_back(r.view);
  return export_panels_figure(views, figure(dark), options, fit_note);
}

}  // namespace gtv::ui
