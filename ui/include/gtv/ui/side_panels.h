#pragma once
// The panels beside the timeline: details of the selected event (with a jump along its flow), the summary
// with the verdict, the sortable kernel table and the colour legend.
#include <QWidget>
#include <memory>

#include "gtv/ui/document_analysis.h"

class QLabel;
class QPushButton;
class QTableWidget;
class QTextBrowser;

namespace gtv::ui {

class TimelineView;

class DetailsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit DetailsPanel(TimelineView* view, QWidget* parent = nullptr);
  void refresh();
  [[nodiscard]] QString text() const;

 private:
  TimelineView* view_;
  QTextBrowser* browser_;
  QPushButton* jump_;
};

// Summary text: verdict lines first, then the numbers.
[[nodiscard]] QString summary_html(const Trace& trace, const DocumentAnalysis& analysis);

class KernelTable : public QWidget {
  Q_OBJECT
 public:
  explicit KernelTable(QWidget* parent = nullptr);
  void set_rows(const DocumentAnalysis& analysis);
  [[nodiscard]] QTableWidget* table() const { return table_; }

 signals:
  void kernel_activated(const QString& name);

 private:
  QTableWidget* table_;
};

// Colour swatches: event kinds, then the kernels that take the most time.
[[nodiscard]] QString legend_html(const DocumentAnalysis& analysis, std::size_t kernel_count = 12);

}  // namespace gtv::ui
