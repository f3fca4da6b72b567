#include "gtv/ui/compare_view.h"

#include <QFileInfo>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

#include "gtv/analysis/compare.h"
#include "gtv/ui/run_alignment.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"

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
  run.figures = compute_figures(run, runs_.empty() ? nullptr : &runs_.front());
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

TimeWindow CompareView::shared_bounds() const {
  // Each view clamps its window to its own trace; in run 0's time the windows every view accepts unchanged are
  // the intersection of the shifted bounds, so keeping to it keeps the runs locked together.
  TimeWindow shared = view(0)->bounds();
  for (int i = 1; i < run_count(); ++i) {
    const TimeWindow b = view(i)->bounds();
    shared.t0_ns = std::max(shared.t0_ns, b.t0_ns - offset_ns(i));
    shared.t1_ns = std::min(shared.t1_ns, b.t1_ns - offset_ns(i));
  }
  if (shared.t1_ns - shared.t0_ns < kMinSpanNs) return view(0)->bounds();  // no common stretch: run 0 leads
  return shared;
}

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

void CompareView::set_window(TimeWindow window_run0) {
  if (runs_.empty()) return;
  view(0)->set_window(window_run0);  // emits window_changed, which moves the others
}

void CompareView::fit() {
  if (!runs_.empty()) set_window(shared_bounds());
}

void CompareView::set_theme(const Theme& theme) {
  for (const Run& r : runs_) r.view->set_theme(theme);
}

QString CompareView::figures_text(int run) const { return runs_[static_cast<std::size_t>(run)].figures; }

// A run's header: its own figures, and for every run after the first the core comparison against the first run,
// headlined by the speedup on the basis that comparison chose (said in its words), whole-trace wall time second.
QString CompareView::compute_figures(const Run& r, const Run* first) const {
  QString text = QStringLiteral("<b>%1</b> &nbsp; aligned at its first steady kernel (t = %2)")
                     .arg(r.label.toHtmlEscaped(), dur(r.anchor_ns - r.trace->start_ns()));
  const analysis::RunFigures f = analysis::run_figures(*r.trace, r.label.toStdString());
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
  if (first == nullptr) return text;
  const analysis::Comparison c =
      analysis::compare(*first->trace, *r.trace, first->label.toStdString(), r.label.toStdString());
  const QString basis = QString::fromStdString(c.basis_text).toHtmlEscaped();
  text += QStringLiteral("<br>speedup vs %1: ").arg(first->label.toHtmlEscaped());
  if (c.speedup > 0)
    text += QStringLiteral("<b>%1&times;</b> (%2 &rarr; %3, %4)")
                .arg(c.speedup, 0, 'f', 2)
                .arg(dur(c.basis_a_ns), dur(c.basis_b_ns), basis);
  else
    text += QStringLiteral("unknown (%1)").arg(basis);
  if (c.wall_speedup > 0) text += QStringLiteral(" &middot; whole trace %1&times;").arg(c.wall_speedup, 0, 'f', 2);
  return text;
}

void CompareView::refresh_figures() {
  for (int i = 0; i < run_count(); ++i) runs_[static_cast<std::size_t>(i)].header->setText(figures_text(i));
}

}  // namespace gtv::ui
