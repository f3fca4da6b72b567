#include "gtv/ui/whatif_view.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QTextDocumentFragment>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "gtv/ui/compare_view.h"
#include "gtv/ui/legend.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/whatif_band.h"
#include "gtv/whatif/predicted_run.h"
#include "gtv/whatif/recorded_pairs.h"

namespace gtv::ui {
namespace {

// The predicted panel's header: a warm band that no recording's header has.
constexpr const char* kPredictedStyle =
    "QLabel { background: #fff1d6; color: #5c3a00; border-left: 6px solid #e08a00; padding: 3px 6px; }";
constexpr const char* kVariantStyle =
    "QLabel { background: #e6f0fa; color: #15324f; border-left: 6px solid #2f6fb0; padding: 3px 6px; }";
constexpr const char* kRecordedStyle = "QLabel { border-left: 6px solid #8a8a8a; padding: 3px 6px; }";

// Where a run's timed region starts: its first measurement's host start (the window the prediction measures), else
// the trace's start (the whole trace is predicted then).
TimeNs window_start_ns(const Trace& trace) {
  if (trace.measurements().empty()) return trace.start_ns();
  TimeNs start = trace.measurements().front().host_start_ns;
  for (const Measurement& m : trace.measurements()) start = std::min(start, m.host_start_ns);
  return start;
}

QString label_of(const QString& path) {
  const std::string key = whatif::recording_key(path.toStdString());
  return key.empty() ? QFileInfo(path).completeBaseName() : QString::fromStdString(key);
}

QString changes_label(std::span<const whatif::Change> changes) {
  return QString::fromStdString(whatif::changes_text(changes));
}

QString escaped(const std::string& text) { return QString::fromStdString(text).toHtmlEscaped(); }

QString summary_html(const WhatIfRun& r) {
  const whatif::Prediction& p = r.prediction;
  QString html = QObject::tr(
                     "<b>What if: %1</b> on %2 &nbsp;&mdash;&nbsp; %3: recorded %4, predicted <b>%5</b> "
                     "(band %6 to %7): <b>%8</b>")
                     .arg(changes_label(r.changes).toHtmlEscaped(), r.recorded_label.toHtmlEscaped(), escaped(p.window),
                          whatif_ms(p.recorded_ns), whatif_ms(p.predicted_ns), whatif_ms(p.low_ns),
                          whatif_ms(p.high_ns), speedup_text(p));
  if (r.variant)
    html += QObject::tr(" &nbsp;&middot;&nbsp; recording of the variant: %1")
                .arg(prediction_error_text(p.predicted_ns, r.variant_window_ns));
  html += QStringLiteral("<br>") + band_meaning(p).toHtmlEscaped();
  html += QObject::tr("<br><b>Changed:</b> ");
  QStringList applied;
  for (const std::string& a : p.applied) applied << escaped(a);
  html += applied.join(QStringLiteral("; "));
  if (!p.warnings.empty()) {
    html += QObject::tr("<br><b>Warnings (the band is wider for them):</b> ");
    QStringList warnings;
    for (const std::string& w : p.warnings) warnings << escaped(w);
    html += warnings.join(QStringLiteral("; "));
  }
  return html;
}

// One line of text, elided at the right to the width; the whole text in the tooltip.
class ElidedLine : public QWidget {
 public:
  ElidedLine(const QString& text, QWidget* parent) : QWidget(parent), text_(text) {
    setToolTip(text);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  }
  [[nodiscard]] const QString& text() const { return text_; }
  [[nodiscard]] QSize sizeHint() const override { return {200, fontMetrics().height()}; }

 protected:
  void paintEvent(QPaintEvent* /*event*/) override {
    QPainter p(this);
    p.drawText(rect(), Qt::AlignLeft | Qt::AlignVCenter,
               fontMetrics().elidedText(QStringLiteral("\u2022 ") + text_, Qt::ElideRight, width()));
  }

 private:
  QString text_;
};

// The panel's measurement brackets with the truth first: where one bracket row fits, it is the one the band and the
// other panels' windows are measured as (a stopwatch without sync times only the launches).
void truth_first(TimelineView& view) {
  OverlayData overlays = view.state().overlays;
  std::stable_partition(overlays.brackets.begin(), overlays.brackets.end(),
                        [](const Bracket& b) { return b.figure.rfind("truth", 0) == 0; });
  view.set_overlays(std::move(overlays));
}

QString plain(const QString& html) { return QTextDocumentFragment::fromHtml(html).toPlainText(); }

}  // namespace

TimeNs recorded_window_ns(const analysis::AnalysedTrace& analysed) {
  return whatif::recorded_window(analysed).length_ns();
}

QString whatif_ms(TimeNs ns) { return QStringLiteral("%1 ms").arg(static_cast<double>(ns) / 1e6, 0, 'f', 1); }

QString speedup_text(const whatif::Prediction& p) {
  const double s = p.speedup();
  if (s <= 0) return QObject::tr("no speedup known");
  if (s >= 1.0) return QObject::tr("%1x faster than recorded").arg(s, 0, 'f', 2);
  return QObject::tr("%1x slower than recorded").arg(1.0 / s, 0, 'f', 2);
}

QString prediction_error_text(TimeNs predicted_ns, TimeNs recorded_ns) {
  const double error =
      recorded_ns > 0 ? 100.0 * static_cast<double>(predicted_ns - recorded_ns) / static_cast<double>(recorded_ns) : 0;
  return QObject::tr("predicted %1, recorded %2: error %3%4%")
      .arg(whatif_ms(predicted_ns), whatif_ms(recorded_ns), error >= 0 ? QStringLiteral("+") : QString())
      .arg(error, 0, 'f', 1);
}

QString variant_recording_path(const QString& path, std::span<const whatif::Change> changes) {
  const std::string key = whatif::recording_key(path.toStdString());
  if (key.empty()) return {};
  const std::optional<std::string> to = whatif::recorded_variant(key, changes);
  if (!to) return {};
  // The recording's folder (h200x1) sits in the traces folder that the pairs' names start from.
  QDir traces = QFileInfo(path).absoluteDir();
  if (!traces.cdUp()) return {};
  const QString file = traces.filePath(QString::fromStdString(*to) + QStringLiteral(".json.gz"));
  return QFileInfo::exists(file) ? file : QString();
}

std::vector<ChangeCheck> check_changes(const analysis::AnalysedTrace& analysed) {
  std::vector<ChangeCheck> out;
  for (whatif::Trial& trial : whatif::try_each_change(analysed)) {
    ChangeCheck c;
    c.change = std::move(trial.change);
    const Expected<whatif::Prediction>& p = trial.prediction;
    c.applies = p.ok();
    if (p.ok() && !whatif::info(c.change.kind).replayed) {
      // Predicted apart, not by replay: a number, and no timeline to draw.
      c.applies = false;
      c.predicted_ns = p->predicted_ns;
      c.reason = QObject::tr(
                     "predicted %1 from the collectives' arrivals (gtv-cli whatif says more), with no "
                     "timeline to draw")
                     .arg(whatif_ms(p->predicted_ns));
    } else if (p.ok()) {
      c.predicted_ns = p->predicted_ns;
    } else {
      // The error names the change first ("pinned: ..."): the dialog shows it beside the change already.
      std::string reason = p.error().message;
      const std::string lead = c.change.text() + ": ";
      if (reason.starts_with(lead)) reason.erase(0, lead.size());
      c.reason = QString::fromStdString(reason);
    }
    out.push_back(std::move(c));
  }
  return out;
}

WhatIfRun compute_whatif(std::shared_ptr<const Trace> trace, std::shared_ptr<const DocumentAnalysis> analysis,
                         const QString& path, std::vector<whatif::Change> changes) {
  WhatIfRun r;
  r.changes = std::move(changes);
  r.recorded_label = label_of(path);
  if (!analysis) analysis = std::make_shared<const DocumentAnalysis>(analyse_document(trace));
  Expected<whatif::PredictedRun> predicted = whatif::predict_run(*analysis->analysed, r.changes);
  if (!predicted) {
    r.error = QString::fromStdString(predicted.error().message);
    return r;
  }
  r.prediction = std::move(predicted->prediction);
  LoadResult analysed = analyse_trace(std::move(predicted->trace));
  if (!analysed.error.isEmpty()) {
    r.error = analysed.error;
    return r;
  }
  r.predicted = analysed.trace;
  r.predicted_analysis = analysed.analysis;
  r.recorded = std::move(trace);
  r.recorded_analysis = std::move(analysis);
  if (const QString variant = variant_recording_path(path, r.changes); !variant.isEmpty()) {
    LoadResult loaded = load_trace_file(variant);
    if (loaded.error.isEmpty()) {
      r.variant = loaded.trace;
      r.variant_analysis = loaded.analysis;
      r.variant_label = label_of(variant);
      r.variant_window_ns = recorded_window_ns(*r.variant_analysis->analysed);
    }
  }
  return r;
}

WhatIfView::WhatIfView(QWidget* parent)
    : QWidget(parent),
      summary_(new QLabel(this)),
      assumptions_button_(new QToolButton(this)),
      assumptions_(new QWidget(this)),
      band_(new BandStrip(this)),
      variant_button_(new QPushButton(tr("Set a recording of the variant beside it..."), this)),
      panels_(new CompareView(this)) {
  auto* layout = new QVBoxLayout(this);
  summary_->setTextFormat(Qt::RichText);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->setSpacing(2);
  layout->addWidget(summary_);
  assumptions_button_->setCheckable(true);
  assumptions_button_->setArrowType(Qt::RightArrow);
  assumptions_button_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  assumptions_button_->setAutoRaise(true);
  assumptions_button_->setVisible(false);
  connect(assumptions_button_, &QToolButton::toggled, this, [this](bool open) {
    assumptions_button_->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
    assumptions_->setVisible(open);
  });
  // The assumptions' fold and the variant's button share a row: the panels keep the height.
  auto* row = new QHBoxLayout;
  row->addWidget(assumptions_button_);
  variant_button_->setToolTip(
      tr("A recording of the program with this change (a run made with the run panel, say): shown as a third panel "
         "with the prediction's error."));
  variant_button_->setVisible(false);
  row->addWidget(variant_button_);
  row->addStretch(1);
  layout->addLayout(row);
  auto* assumptions_layout = new QVBoxLayout(assumptions_);
  assumptions_layout->setContentsMargins(24, 0, 0, 0);
  assumptions_layout->setSpacing(1);
  assumptions_->setVisible(false);
  layout->addWidget(assumptions_);
  layout->addWidget(band_);
  // The panels take the height their GPU lanes need and scroll together, in one scroll area, where the tab is
  // shorter than that.
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setWidget(panels_);
  panels_->layout()->setContentsMargins(0, 0, 0, 0);
  panels_->set_grow_to_fit(true);
  layout->addWidget(scroll, 1);
  connect(variant_button_, &QPushButton::clicked, this, &WhatIfView::choose_variant);
  connect(&variant_loading_, &QFutureWatcher<LoadedVariant>::finished, this, [this] {
    variant_button_->setEnabled(true);
    const LoadedVariant v = variant_loading_.result();
    if (!v.loaded.error.isEmpty()) {
      QMessageBox::warning(this, tr("Recording of the variant"), v.loaded.error);
      return;
    }
    add_variant(v.loaded.trace, v.loaded.analysis, label_of(variant_path_), v.window_ns);
  });
}

WhatIfView::~WhatIfView() { variant_loading_.waitForFinished(); }

void WhatIfView::choose_variant() {
  const QString path = QFileDialog::getOpenFileName(this, tr("A recording of the variant"), {}, trace_file_filter());
  if (path.isEmpty() || variant_loading_.isRunning()) return;
  variant_path_ = path;
  variant_button_->setEnabled(false);
  variant_loading_.setFuture(QtConcurrent::run([path] {
    LoadedVariant v{load_trace_file(path), 0};
    if (v.loaded.analysis) v.window_ns = recorded_window_ns(*v.loaded.analysis->analysed);
    return v;
  }));
}

void WhatIfView::add_variant(std::shared_ptr<const Trace> trace, std::shared_ptr<const DocumentAnalysis> analysis,
                             const QString& label, TimeNs window_ns) {
  if (panels_->run_count() != 2 || !trace) return;
  run_.variant = std::move(trace);
  run_.variant_analysis =
      analysis ? std::move(analysis) : std::make_shared<const DocumentAnalysis>(analyse_document(run_.variant));
  run_.variant_label = label;
  run_.variant_window_ns = window_ns >= 0 ? window_ns : recorded_window_ns(*run_.variant_analysis->analysed);
  const whatif::Prediction& p = run_.prediction;
  panels_->add_run(run_.variant, tr("recording of the variant"), run_.variant_analysis);
  truth_first(*panels_->view(2));
  panels_->set_header(
      2,
      tr("<b>recording of the variant</b>: %1 &nbsp;&middot;&nbsp; %2")
          .arg(run_.variant_label.toHtmlEscaped(), prediction_error_text(p.predicted_ns, run_.variant_window_ns)),
      QString::fromLatin1(kVariantStyle));
  summary_->setText(summary_html(run_));
  band_->set_band(band_marks(p, run_.variant_window_ns), panels_->view(0), panels_->anchor_ns(0));
  variant_button_->setVisible(false);
}

int WhatIfView::panel_count() const { return panels_->run_count(); }

void WhatIfView::set_theme(const Theme& theme) {
  panels_->set_theme(theme);
  band_->set_theme(theme);
}

QStringList WhatIfView::assumption_lines() const {
  QStringList lines;
  for (const auto* line : assumptions_->findChildren<ElidedLine*>()) lines << line->text();
  return lines;
}

void WhatIfView::show_assumptions() {
  for (auto* line : assumptions_->findChildren<ElidedLine*>()) delete line;
  const std::vector<std::string>& all = run_.prediction.assumptions;
  for (const std::string& a : all)
    assumptions_->layout()->addWidget(new ElidedLine(QString::fromStdString(a), assumptions_));
  assumptions_button_->setText(tr("Assumptions (%1, one a line; hover a line for the whole sentence)").arg(all.size()));
  assumptions_button_->setVisible(!all.empty());
}

void WhatIfView::set_run(WhatIfRun run) {
  run_ = std::move(run);
  if (!run_.ok()) {
    summary_->setText(run_.error.toHtmlEscaped());
    return;
  }
  const whatif::Prediction& p = run_.prediction;
  summary_->setText(summary_html(run_));
  show_assumptions();
  panels_->set_alignment(&window_start_ns, p.whole_trace ? tr("time from the start of the trace")
                                                         : tr("time from the start of the timed region (where the "
                                                              "runs are aligned)"));
  panels_->add_run(run_.recorded, tr("recorded"), run_.recorded_analysis);
  truth_first(*panels_->view(0));
  panels_->set_header(0,
                      tr("<b>recorded</b>: %1 &nbsp;&middot;&nbsp; %2: %3")
                          .arg(run_.recorded_label.toHtmlEscaped(), escaped(p.window), whatif_ms(p.recorded_ns)),
                      QString::fromLatin1(kRecordedStyle));
  panels_->add_run(run_.predicted, tr("predicted"), run_.predicted_analysis);
  truth_first(*panels_->view(1));
  panels_->set_header(1,
                      tr("<b>PREDICTED</b> (not a recording): %1 &nbsp;&middot;&nbsp; %2: <b>%3</b>, band %4 to %5 "
                         "&nbsp;&middot;&nbsp; %6")
                          .arg(changes_label(run_.changes).toHtmlEscaped(), escaped(p.window),
                               whatif_ms(p.predicted_ns), whatif_ms(p.low_ns), whatif_ms(p.high_ns), speedup_text(p)),
                      QString::fromLatin1(kPredictedStyle));
  band_->set_band(band_marks(p, std::nullopt), panels_->view(0), panels_->anchor_ns(0));
  if (run_.variant) {
    std::shared_ptr<const Trace> variant = std::move(run_.variant);
    add_variant(std::move(variant), run_.variant_analysis, run_.variant_label, run_.variant_window_ns);
  } else {
    variant_button_->setVisible(true);
  }
}

}  // namespace gtv::ui

namespace gtv::ui {

PanelsFigure WhatIfView::figure(bool dark) const {
  PanelsFigure f;
  const whatif::Prediction& p = run_.prediction;
  if (!run_.ok() || panels_->run_count() == 0) return f;
  const std::string name =
      tr("What if: %1, predicted from %2").arg(changes_label(run_.changes), run_.recorded_label).toStdString();
  f.title = QString::fromStdString(figure_title(name, run_.recorded->devices()));
  const QColor accents[] = {QColor(0x8a, 0x8a, 0x8a), QColor(0xe0, 0x8a, 0x00), QColor(0x2f, 0x6f, 0xb0)};
  std::vector<std::vector<LegendGroup>> legends;
  const Theme theme = dark ? dark_theme() : light_theme();
  for (int i = 0; i < panels_->run_count(); ++i) {
    f.headers.push_back(plain(panels_->figures_text(i)));
    f.accents.push_back(accents[std::min(i, 2)]);
    const TimelineView* view = panels_->view(i);
    const DocumentAnalysis* analysis = i == 0   ? run_.recorded_analysis.get()
                                       : i == 1 ? run_.predicted_analysis.get()
                                                : run_.variant_analysis.get();
    if (analysis == nullptr) continue;
    LegendOptions legend;
    legend.only_present = true;
    legend.kernel_count = 8;
    legend.color_mode = view->color_mode();
    legend.background = theme.background.rgb() & 0xffffff;
    legend.strip_background = theme.header_background.rgb() & 0xffffff;
    legends.push_back(legend_groups(*view->trace(), *analysis, legend));
  }
  f.legend = merged_legend(legends);
  f.caption = band_meaning(p) + QLatin1Char(' ') +
              tr("The predicted run is the recording's happens-before graph replayed with the change, not a "
                 "recording; its band is the predicted end under the change's optimistic and pessimistic "
                 "assumptions (%1 of them: gtv-cli whatif lists each).")
                  .arg(p.assumptions.size());
  if (run_.variant)
    f.caption +=
        QLatin1Char(' ') + tr("Recording of the variant (%1): %2.")
                               .arg(run_.variant_label, prediction_error_text(p.predicted_ns, run_.variant_window_ns));
  f.axis_origin_ns = panels_->anchor_ns(0);
  const BandMarks marks = band_->marks();
  f.strip_lines = band_lines(marks);
  f.paint_strip = [marks](QPainter& painter, const QRectF& area, const QRectF& time_area, TimeWindow axis_window,
                          const Theme& t) { paint_band(painter, area, time_area, axis_window, marks, t); };
  return f;
}

Status WhatIfView::export_figure(const ExportOptions& options, bool dark, std::string* fit_note) {
  if (!run_.ok()) return Error{"the What if has no prediction to draw: " + run_.error.toStdString()};
  std::vector<TimelineView*> views;
  views.reserve(static_cast<std::size_t>(panels_->run_count()));
  for (int i = 0; i < panels_->run_count(); ++i) views.push_back(panels_->view(i));
  return export_panels_figure(views, figure(dark), options, fit_note);
}

}  // namespace gtv::ui
