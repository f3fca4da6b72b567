#pragma once
// The panels beside the timeline: details of the selected event (with jumps along its flow and its dependency), the
// summary with the verdict, the sortable kernel table and the colour legend.
#include <QWidget>
#include <memory>

#include "gtv/ui/document_analysis.h"

class QLabel;
class QPushButton;
class QTableWidget;
class QTextBrowser;
class QTimer;

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
  QPushButton* jump_dependency_;
  QTimer* range_timer_;  // refreshes once a shift-drag pauses
};

// Summary text: verdict lines first, then the numbers.
[[nodiscard]] QString summary_html(const Trace& trace, const DocumentAnalysis& analysis);

class KernelTable : public QWidget {
  Q_OBJECT
 public:
  explicit KernelTable(QWidget* parent = nullptr);
  void set_rows(const DocumentAnalysis& analysis);
  [[nodiscard]] QTableWidget* table() const { return table_; }
  // The width that shows every column whole: the tab widens its side panel to it (up to a share of the window).
  [[nodiscard]] int wanted_width() const;

 signals:
  void kernel_activated(const QString& name);

 private:
  QTableWidget* table_;
};

// Colour swatches for every colour the timeline uses (legend.h): event kinds, the kernels that take the most
// time, the GPUs-busy strip, warm-up, idle causes (those of this trace first) and measurement brackets.
// GPU work is listed as the view colours it (color_mode).
[[nodiscard]] QString legend_html(const Trace& trace, const DocumentAnalysis& analysis,
                                  ColorMode color_mode = ColorMode::KernelName, std::size_t kernel_count = 12,
                                  Rgb strip_background = 0xeef0f3, Rgb background = 0xffffff);

}  // namespace gtv::ui
