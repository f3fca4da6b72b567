#include "gtv/ui/trace_tab.h"

#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QLabel>
#include <QProgressBar>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>

#include "gtv/ui/first_view.h"
#include "gtv/ui/side_panels.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"

namespace gtv::ui {
namespace {
const QString kLabelColumnKey = QStringLiteral("timeline/label_column_px");
}  // namespace

TraceTab::TraceTab(TraceDocument* document, QWidget* parent)
    : QWidget(parent),
      document_(document),
      stack_(new QStackedWidget(this)),
      progress_(new QProgressBar),
      verdict_(new QLabel),
      changed_notice_(new QLabel),
      view_(new TimelineView),
      side_(new QTabWidget),
      details_(new DetailsPanel(view_)),
      summary_(new QTextBrowser),
      kernels_(new KernelTable),
      legend_(new QTextBrowser) {
  document_->setParent(this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(stack_);

  auto* loading = new QWidget;
  auto* loading_layout = new QVBoxLayout(loading);
  loading_layout->addStretch();
  auto* loading_label = new QLabel(tr("Reading %1 ...").arg(document_->path()));
  loading_layout->addWidget(loading_label, 0, Qt::AlignHCenter);
  progress_->setRange(0, 1000);
  loading_layout->addWidget(progress_);
  loading_layout->addStretch();
  stack_->addWidget(loading);

  // The verdict sits above the plot, so the first view reads as an answer; it wraps instead of clipping, and
  // can be selected and copied.
  verdict_->setWordWrap(true);
  verdict_->setTextFormat(Qt::PlainText);
  verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  verdict_->setContentsMargins(8, 4, 8, 4);
  QFont verdict_font = verdict_->font();
  verdict_font.setPointSizeF(verdict_font.pointSizeF() * 1.1);
  verdict_->setFont(verdict_font);
  verdict_->hide();
  auto* timeline = new QWidget;
  auto* timeline_layout = new QVBoxLayout(timeline);
  timeline_layout->setContentsMargins(0, 0, 0, 0);
  timeline_layout->setSpacing(0);
  changed_notice_->setWordWrap(true);
  changed_notice_->setContentsMargins(8, 4, 8, 4);
  changed_notice_->setStyleSheet(QStringLiteral("background: #fff3c4; color: #5a4500;"));
  changed_notice_->hide();
  timeline_layout->addWidget(changed_notice_);
  timeline_layout->addWidget(verdict_);
  timeline_layout->addWidget(view_, 1);

  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->addWidget(timeline);
  side_->addTab(details_, tr("Details"));
  side_->addTab(summary_, tr("Summary"));
  side_->addTab(kernels_, tr("Kernels"));
  side_->addTab(legend_, tr("Legend"));
  splitter->addWidget(side_);
  splitter->setStretchFactor(0, 4);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({1300, 420});
  stack_->addWidget(splitter);

  // The label column keeps the width the user dragged it to, in every tab and the next session.
  view_->set_label_column_width(QSettings().value(kLabelColumnKey, kDefaultLabelColumnPx).toDouble());
  connect(view_, &TimelineView::label_column_resized, this,
          [](double px) { QSettings().setValue(kLabelColumnKey, px); });
  connect(document_, &TraceDocument::progress, progress_,
          [this](double fraction) { progress_->setValue(static_cast<int>(fraction * 1000)); });
  // Read: the analysis runs next, with no fraction to show (a busy bar), and says so until the timeline is drawn.
  connect(document_, &TraceDocument::analysing, this, [this, loading_label] {
    loading_label->setText(tr("Analysing %1: idle causes, critical path, report ...").arg(document_->path()));
    progress_->setRange(0, 0);
  });
  connect(document_, &TraceDocument::loaded, this, &TraceTab::on_loaded);
  connect(view_, &TimelineView::selection_changed, this, &TraceTab::follow_selection);
  connect(view_, &TimelineView::measure_changed, this, [this] {
    if (view_->measured()) side_->setCurrentWidget(details_);  // the range's statistics are there
  });
  // The colour mode and theme can change after loading: the legend is rebuilt each time it comes to the front.
  connect(side_, &QTabWidget::currentChanged, this, [this, splitter](int index) {
    if (side_->widget(index) == legend_) refresh_legend();
    // The Kernels tab widens the panel towards every column whole, up to a third of the tab: the timeline keeps two
    // thirds (at 45% a 1366 px window left it 750 px); a name too long for its column is elided in the middle.
    if (side_->widget(index) == kernels_) {
      const QList<int> sizes = splitter->sizes();
      const int total = sizes.value(0) + sizes.value(1);
      const int wanted = std::min(kernels_->wanted_width(), total / 3);
      if (sizes.size() == 2 && sizes[1] < wanted) splitter->setSizes({total - wanted, wanted});
    }
  });
  connect(view_, &TimelineView::color_mode_changed, this, &TraceTab::refresh_legend);
  connect(kernels_, &KernelTable::kernel_activated, view_, [this](const QString& name) {
    selecting_from_table_ = true;
    view_->set_search(name);
    view_->search_next();
    selecting_from_table_ = false;
  });
  if (document_->trace()) on_loaded();
}

void TraceTab::show_side_tab(const QString& name) {
  for (int i = 0; i < side_->count(); ++i)
    if (side_->tabText(i).compare(name, Qt::CaseInsensitive) == 0) side_->setCurrentIndex(i);
}

QString TraceTab::current_side_tab() const { return side_->tabText(side_->currentIndex()); }

void TraceTab::follow_selection() {
  const QWidget* current = side_->currentWidget();
  if (view_->selected() && current != details_ && !selecting_from_table_)
    side_->setCurrentWidget(details_);
  else if (!view_->selected() && !view_->measured() && current == details_)
    side_->setCurrentWidget(summary_);
}

void TraceTab::on_loaded() {
  view_->set_trace(document_->trace());
  side_->setCurrentWidget(summary_);
  if (const auto analysis = document_->analysis()) {
    view_->set_overlays(analysis->overlays);
    // Open on the timed work, not on the start-up before it; F still fits the whole trace.
    view_->set_window(first_view_window(*document_->trace(), analysis->report()));
    view_->fit_gpus_in_view();
    verdict_->setText(QString::fromStdString(verdict_line(analysis->report())));
    verdict_->setVisible(!verdict_->text().isEmpty());
    summary_->setHtml(summary_html(*document_->trace(), *analysis));
    kernels_->set_rows(*analysis);
    refresh_legend();
  }
  stack_->setCurrentIndex(1);
  watch_file();
}

void TraceTab::watch_file() {
  const QString& path = document_->path();
  if (watcher_ || path.startsWith(QLatin1String(":/"))) return;
  watcher_ = new QFileSystemWatcher(this);
  watcher_->addPath(path);
  connect(watcher_, &QFileSystemWatcher::fileChanged, this, &TraceTab::on_file_changed);
}

// The trace was read whole when it opened, so a file rewritten, truncated or removed under it changes nothing shown;
// the notice says so rather than reloading a file that may still be being written.
void TraceTab::on_file_changed() {
  const QString& path = document_->path();
  const QString what = QFileInfo::exists(path) ? tr("changed on disk") : tr("was removed or renamed");
  changed_notice_->setText(tr("%1 %2 after it was opened. This tab shows the trace as it was read; open the file "
                              "again to see the new version.")
                               .arg(QFileInfo(path).fileName(), what));
  changed_notice_->show();
  // Editors that replace the file drop it from the watch list: watch the new one too.
  if (QFileInfo::exists(path) && !watcher_->files().contains(path)) watcher_->addPath(path);
}

void TraceTab::refresh_legend() {
  const auto analysis = document_->analysis();
  if (!analysis || !document_->trace()) return;
  legend_->setHtml(legend_html(*document_->trace(), *analysis, view_->color_mode(), 12,
                               view_->theme().header_background.rgb() & 0xffffff,
                               view_->theme().background.rgb() & 0xffffff));
}

}  // namespace gtv::ui
