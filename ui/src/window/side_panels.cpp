#include "gtv/ui/side_panels.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "gtv/analysis/range_stats.h"
#include "gtv/ui/event_text.h"
#include "gtv/ui/legend.h"
#include "gtv/ui/palette.h"
#include "gtv/ui/timeline_view.h"

namespace gtv::ui {
namespace {

constexpr int kFullNameRole = Qt::UserRole + 1;
constexpr int kMaxNameColumnPx = 280;  // wider names elide in their middle until the column is dragged wider

QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }
QString hex(Rgb rgb) { return QStringLiteral("#%1").arg(rgb, 6, 16, QLatin1Char('0')); }

// Sorts by the number in UserRole, not by the displayed text ("9 ms" < "10 ms").
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(const QString& text, double value) : QTableWidgetItem(text) {
    setData(Qt::UserRole, value);
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
  }
};

QTableWidgetItem* duration_item(TimeNs ns) {
  return new NumberItem(QString::fromStdString(format_duration(ns)), static_cast<double>(ns));
}

QString swatch(Rgb rgb, const QString& text) {
  return QStringLiteral("<tr><td bgcolor='%1' width='24'>&nbsp;</td><td>%2</td></tr>")
      .arg(hex(rgb), text.toHtmlEscaped());
}

}  // namespace

DetailsPanel::DetailsPanel(TimelineView* view, QWidget* parent)
    : QWidget(parent),
      view_(view),
      browser_(new QTextBrowser(this)),
      jump_(new QPushButton(tr("Go to linked event"), this)),
      jump_dependency_(new QPushButton(tr("Go to dependency"), this)),
      range_timer_(new QTimer(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(browser_, 1);
  layout->addWidget(jump_);
  layout->addWidget(jump_dependency_);
  jump_dependency_->setToolTip(tr("The work the selection waited for, or what waited for it"));
  connect(jump_, &QPushButton::clicked, view_, [this] { view_->jump_to_flow(); });
  connect(jump_dependency_, &QPushButton::clicked, view_, [this] { view_->jump_to_dependency(); });
  connect(view_, &TimelineView::selection_changed, this, &DetailsPanel::refresh);
  // A shift-drag moves the range at every mouse move; the statistics (a pass over the trace's events) follow once
  // the moves pause.
  range_timer_->setSingleShot(true);
  range_timer_->setInterval(30);
  connect(range_timer_, &QTimer::timeout, this, &DetailsPanel::refresh);
  connect(view_, &TimelineView::measure_changed, range_timer_, qOverload<>(&QTimer::start));
  refresh();
}

void DetailsPanel::refresh() {
  const Trace* trace = view_->trace();
  const auto selected = view_->selected();
  // A shift-drag range first: what ran in it (analysis/range_stats.h).
  QString range_html;
  if (const auto range = view_->measured(); trace && range && range->span_ns() > 0) {
    const auto lines =
        analysis::range_stats_lines(analysis::range_stats(*trace, range->t0_ns, range->t1_ns), trace->start_ns());
    range_html = QStringLiteral("<p><b>%1</b></p><ul>").arg(esc(lines.front()));
    for (std::size_t i = 1; i < lines.size(); ++i) range_html += QStringLiteral("<li>%1</li>").arg(esc(lines[i]));
    range_html += QStringLiteral("</ul>");
  }
  if (!trace || !selected) {
    browser_->setHtml(range_html.isEmpty()
                          ? tr("<p>Click an event to see all its fields; shift-drag over the timeline for what ran in "
                               "a time range.</p>")
                          : range_html);
    jump_->setEnabled(false);
    jump_dependency_->setEnabled(false);
    return;
  }
  QString html = range_html + QStringLiteral("<table cellspacing='2'>");
  for (const auto& [key, value] : event_fields(*trace, *selected, trace->start_ns()))
    html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(esc(key), esc(value));
  const auto flow = trace->flow_of(*selected);
  browser_->setHtml(html + QStringLiteral("</table>"));
  jump_->setEnabled(flow.has_value());
  jump_dependency_->setEnabled(!trace->dependencies_of(*selected).empty());
}

QString DetailsPanel::text() const { return browser_->toPlainText(); }

QString summary_html(const Trace& trace, const DocumentAnalysis& analysis) {
  const analysis::Report& report = analysis.report();
  QString html = QStringLiteral("<h3>Verdict</h3><ul>");
  for (const std::string& line : report.verdict) html += "<li>" + esc(line) + "</li>";
  if (report.verdict.empty()) html += QStringLiteral("<li>Nothing to say about this trace.</li>");
  html += QStringLiteral("</ul><p>%1 events, %2 lanes, span %3</p>")
              .arg(trace.event_count())
              .arg(trace.lanes().size())
              .arg(esc(format_duration(trace.end_ns() - trace.start_ns())));
  // The report exactly as `gtv-cli analyze` prints it: host blocking, idle causes, launch latency, warm-up and
  // the tracing cost all reach the window in the same words.
  if (!analysis.report_text.empty())
    html += QStringLiteral("<h3>Report</h3><pre style='white-space: pre-wrap'>") + esc(analysis.report_text) +
            QStringLiteral("</pre>");
  return html;
}

KernelTable::KernelTable(QWidget* parent) : QWidget(parent), table_(new QTableWidget(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(table_);
  table_->setColumnCount(6);
  table_->setHorizontalHeaderLabels({tr("Kernel"), tr("Count"), tr("Total"), tr("Mean"), tr("Max"), tr("% GPU")});
  // Every column can be dragged wider; the name column starts as wide as its names need (up to a cap) and the last
  // one fills what is left. A name still too long keeps its start and its end ("sm80_xmma_gemm_f…_kernel_trt").
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->setWordWrap(false);
  table_->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  connect(table_, &QTableWidget::cellDoubleClicked, this,
          [this](int row, int) { emit kernel_activated(table_->item(row, 0)->data(kFullNameRole).toString()); });
}

void KernelTable::set_rows(const DocumentAnalysis& analysis) {
  const std::vector<analysis::KernelStat>& kernels = analysis.report().kernels.kernels;
  table_->setSortingEnabled(false);
  table_->setRowCount(static_cast<int>(kernels.size()));
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const analysis::KernelStat& k = kernels[i];
    const int r = static_cast<int>(i);
    auto* name = new QTableWidgetItem(QString::fromStdString(k.name));
    const Rgb color = i < analysis.kernel_colors.size() ? analysis.kernel_colors[i] : kernel_color(k.full_name);
    name->setData(Qt::DecorationRole, QColor::fromRgb(static_cast<QRgb>(color)));
    name->setToolTip(QString::fromStdString(k.full_name));
    name->setData(kFullNameRole, name->toolTip());  // what the timeline search looks for: the name as traced
    table_->setItem(r, 0, name);
    table_->setItem(r, 1, new NumberItem(QString::number(k.count), static_cast<double>(k.count)));
    table_->setItem(r, 2, duration_item(k.total_ns));
    table_->setItem(r, 3, duration_item(k.mean_ns));
    table_->setItem(r, 4, duration_item(k.max_ns));
    table_->setItem(r, 5, new NumberItem(QString::number(100.0 * k.share, 'f', 1), 100.0 * k.share));
  }
  table_->setSortingEnabled(true);
  table_->sortByColumn(2, Qt::DescendingOrder);
  table_->resizeColumnsToContents();
  table_->setColumnWidth(0, std::min(table_->columnWidth(0), kMaxNameColumnPx));
}

int KernelTable::wanted_width() const {
  int width = table_->verticalHeader()->width() + 2 * table_->frameWidth() + 20;  // row numbers, frame, scroll bar
  for (int c = 0; c < table_->columnCount(); ++c)
    width += std::max(table_->columnWidth(c), table_->horizontalHeader()->sectionSizeHint(c));
  return width;
}

QString legend_html(const Trace& trace, const DocumentAnalysis& analysis, ColorMode color_mode,
                    std::size_t kernel_count, Rgb strip_background, Rgb background) {
  LegendOptions options;
  options.color_mode = color_mode;
  options.kernel_count = kernel_count;
  options.strip_background = strip_background;
  options.background = background;
  QString html = QStringLiteral("<table cellspacing='3'>");
  for (const LegendGroup& group : legend_groups(trace, analysis, options)) {
    html += QStringLiteral("<tr><td colspan='2'><b>%1</b></td></tr>").arg(esc(group.title));
    for (const LegendEntry& entry : group.entries) html += swatch(entry.color, QString::fromStdString(entry.label));
  }
  html += QStringLiteral("<tr><td colspan='2'><i>hatched: many short events merged; hover for the count</i></td></tr>");
  return html + QStringLiteral("</table>");
}

}  // namespace gtv::ui
