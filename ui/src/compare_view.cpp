#include "gtv/ui/compare_view.h"

#include <QFileInfo>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

#include "gtv/ui/run_alignment.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"

#if GTV_ANALYSIS_AVAILABLE
#include "gtv/analysis/compare.h"
#endif

namespace gtv::ui {
namespace {

QString dur(TimeNs ns) { return QString::fromStdString(format_duration(ns)); }

QString label_of(const QString& path) {
  QString name = QFileInfo(path).fileName();
  for (const char* ext : {".json.gz", ".json", ".gz"})
    if (name.endsWith(QLatin1String(ext))) return name.chopped(static_cast<qsizetype>(qstrlen(ext)));
  return name;
}

}  // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent), note_(new QLabel(this)), splitter_(new QSplitter(Qt::Vertical, this)) {
  auto* layout = new QVBoxLayout(this);
  note_->setWordWrap(true);
  note_->setVisible(false);
  layout->addWidget(note_);
  layout->addWidget(splitter_, 1);
}

void CompareView::set_note(const QString& note) {
  note_->setText(note);
  note_->setVisible(!note.isEmpty());
}

QString CompareView::note() const { return note_->text(); }

void CompareView::add_run(std::shared_ptr<const Trace> trace, const QString& label) {
  Run run;
  run.anchor_ns = alignment_anchor_ns(*trace);
  run.trace = std::move(trace);
  run.label = label;
  auto* box = new QWidget(splitter_);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  run.header = new QLabel(box);
  run.header->setTextFormat(Qt::RichText);
  run.view = new TimelineView(box);
  run.view->set_trace(run.trace);
  layout->addWidget(run.header);
  layout->addWidget(run.view, 1);
  splitter_->addWidget(box);
  const int index = run_count();
  runs_.push_back(std::move(run));
  connect(runs_.back().view, &TimelineView::window_changed, this, [this, index] { sync_from(index); });
  refresh_figures();
  fit();
}

QString CompareView::add_files(const QStringList& paths, const QStringList& labels) {
  for (int i = 0; i < paths.size(); ++i) {
    LoadResult loaded = load_trace_file(paths[i]);
    if (!loaded.error.isEmpty()) return loaded.error;
    add_run(loaded.trace, i < labels.size() ? labels[i] : label_of(paths[i]));
  }
  return {};
}

TimeNs CompareView::offset_ns(int run) const {
  std::vector<TimeNs> anchors;
  for (const Run& r : runs_) anchors.push_back(r.anchor_ns);
  return alignment_offsets_ns(anchors)[static_cast<std::size_t>(run)];
}

void CompareView::sync_from(int run) {
  if (syncing_) return;
  syncing_ = true;
  const TimeWindow w = view(run)->window();
  const TimeNs base = offset_ns(run);
  for (int i = 0; i < run_count(); ++i) {
    if (i == run) continue;
    const TimeNs shift = offset_ns(i) - base;
    view(i)->set_window({w.t0_ns + shift, w.t1_ns + shift});
  }
  syncing_ = false;
}

void CompareView::set_window(TimeWindow window_run0) {
  if (runs_.empty()) return;
  view(0)->set_window(window_run0);  // emits window_changed, which moves the others
}

void CompareView::fit() {
  if (runs_.empty()) return;
  TimeNs t0 = 0;
  TimeNs t1 = 0;
  for (int i = 0; i < run_count(); ++i) {
    const Trace& t = *runs_[static_cast<std::size_t>(i)].trace;
    const TimeNs s = t.start_ns() - offset_ns(i);
    const TimeNs e = t.end_ns() - offset_ns(i);
    t0 = i == 0 ? s : std::min(t0, s);
    t1 = i == 0 ? e : std::max(t1, e);
  }
  set_window({t0, std::max(t1, t0 + kMinSpanNs)});
}

void CompareView::set_theme(const Theme& theme) {
  for (const Run& r : runs_) r.view->set_theme(theme);
}

QString CompareView::figures_text(int run) const {
  const Run& r = runs_[static_cast<std::size_t>(run)];
  QString text = QStringLiteral("<b>%1</b> &nbsp; aligned at its first steady kernel (t = %2)")
                     .arg(r.label.toHtmlEscaped(), dur(r.anchor_ns - r.trace->start_ns()));
#if GTV_ANALYSIS_AVAILABLE
  const Run& first = runs_.front();
  const analysis::Comparison c = analysis::compare(*first.trace, *r.trace, first.label.toStdString(),
                                                   r.label.toStdString());
  const analysis::RunFigures& f = c.b;
  const double share = f.gpu_busy_ns > 0 ? 100.0 * static_cast<double>(f.overlap_ns) /
                                               static_cast<double>(f.gpu_busy_ns)
                                         : 0.0;
  text += QStringLiteral(" &nbsp;|&nbsp; wall %1 &middot; GPU busy %2 &middot; overlap (2+ GPUs) %3 = %4% "
                         "&middot; parallelism %5")
              .arg(dur(f.wall_ns), dur(f.gpu_busy_ns), dur(f.overlap_ns))
              .arg(share, 0, 'f', 0)
              .arg(f.effective_parallelism, 0, 'f', 2);
  if (run > 0 && c.speedup > 0)
    text += QStringLiteral(" &middot; <b>speedup vs %1: %2&times;</b>")
                .arg(first.label.toHtmlEscaped())
                .arg(c.speedup, 0, 'f', 2);
#endif
  return text;
}

void CompareView::refresh_figures() {
  for (int i = 0; i < run_count(); ++i) runs_[static_cast<std::size_t>(i)].header->setText(figures_text(i));
}

}  // namespace gtv::ui
