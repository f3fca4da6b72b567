#include "gtv/ui/trace_tab.h"

#include <QLabel>
#include <QProgressBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "gtv/ui/side_panels.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"

namespace gtv::ui {

TraceTab::TraceTab(TraceDocument* document, QWidget* parent)
    : QWidget(parent),
      document_(document),
      stack_(new QStackedWidget(this)),
      progress_(new QProgressBar),
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
  loading_layout->addWidget(new QLabel(tr("Loading %1 ...").arg(document_->path())), 0, Qt::AlignHCenter);
  progress_->setRange(0, 1000);
  loading_layout->addWidget(progress_);
  loading_layout->addStretch();
  stack_->addWidget(loading);

  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->addWidget(view_);
  side_->addTab(details_, tr("Details"));
  side_->addTab(summary_, tr("Summary"));
  side_->addTab(kernels_, tr("Kernels"));
  side_->addTab(legend_, tr("Legend"));
  splitter->addWidget(side_);
  splitter->setStretchFactor(0, 4);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({1300, 420});
  stack_->addWidget(splitter);

  connect(document_, &TraceDocument::progress, progress_,
          [this](double fraction) { progress_->setValue(static_cast<int>(fraction * 1000)); });
  connect(document_, &TraceDocument::loaded, this, &TraceTab::on_loaded);
  connect(kernels_, &KernelTable::kernel_activated, view_, [this](const QString& name) {
    view_->set_search(name);
    view_->search_next();
  });
  if (document_->trace()) on_loaded();
}

void TraceTab::show_side_tab(const QString& name) {
  for (int i = 0; i < side_->count(); ++i)
    if (side_->tabText(i).compare(name, Qt::CaseInsensitive) == 0) side_->setCurrentIndex(i);
}

void TraceTab::on_loaded() {
  view_->set_trace(document_->trace());
  if (const auto analysis = document_->analysis()) {
    view_->set_overlays(analysis->overlays);
    summary_->setHtml(summary_html(*document_->trace(), *analysis));
    kernels_->set_rows(*analysis);
    legend_->setHtml(legend_html(*analysis));
  }
  stack_->setCurrentIndex(1);
}

}  // namespace gtv::ui
