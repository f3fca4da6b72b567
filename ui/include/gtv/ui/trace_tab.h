#pragma once
// One tab of the main window: a document's progress while it loads, then its timeline with the side panels.
#include <QWidget>

class QFileSystemWatcher;
class QLabel;
class QProgressBar;
class QStackedWidget;
class QTabWidget;
class QTextBrowser;

namespace gtv::ui {

class DetailsPanel;
class KernelTable;
class TimelineView;
class TraceDocument;

class TraceTab : public QWidget {
  Q_OBJECT
 public:
  // Takes ownership of document (as a child).
  explicit TraceTab(TraceDocument* document, QWidget* parent = nullptr);
  [[nodiscard]] TraceDocument* document() const { return document_; }
  [[nodiscard]] TimelineView* view() const { return view_; }
  [[nodiscard]] DetailsPanel* details() const { return details_; }
  [[nodiscard]] KernelTable* kernels() const { return kernels_; }
  [[nodiscard]] QTextBrowser* summary() const { return summary_; }
  // The verdict line above the plot: the report's headline sentences, word-wrapped, selectable.
  [[nodiscard]] QLabel* verdict() const { return verdict_; }
  // Shown when the file changes on disk after it was read: the tab keeps showing what it read.
  [[nodiscard]] QLabel* changed_notice() const { return changed_notice_; }
  // The side panel in front ("Details", "Summary", ...).
  [[nodiscard]] QString current_side_tab() const;
  // Brings a side panel to the front by name: "details", "summary", "kernels" or "legend".
  void show_side_tab(const QString& name);
  // Rebuilds the Legend panel for the view's colour mode and theme.
  void refresh_legend();

 private:
  void on_loaded();
  // Details while an event is selected (from any panel but the Kernels table, which keeps its place while its rows
  // select their kernels), the Summary (the verdict and its numbers) while none is.
  void follow_selection();
  void watch_file();
  void on_file_changed();

  TraceDocument* document_;
  QStackedWidget* stack_;
  QProgressBar* progress_;
  QLabel* verdict_;
  QLabel* changed_notice_;
  QFileSystemWatcher* watcher_ = nullptr;
  TimelineView* view_;
  QTabWidget* side_;
  DetailsPanel* details_;
  QTextBrowser* summary_;
  KernelTable* kernels_;
  QTextBrowser* legend_;
  bool selecting_from_table_ = false;  // a Kernels table row is selecting its kernel
};

}  // namespace gtv::ui
