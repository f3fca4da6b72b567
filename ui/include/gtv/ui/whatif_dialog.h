#pragma once
// Runs > What if...: the changes that apply to the trace in front as checkboxes (each tried alone first, off the UI
// thread, with its predicted length beside it), those that do not apply listed with their one-line reason, and
// fields for the changes that take a parameter (placement=GPU,GPU,... and no-sync=NAME). Predict computes the
// predicted run off the UI thread (whatif_view.h: compute_whatif); a change that does not apply says why in the
// dialog and nothing opens.
#include <QDialog>
#include <QFutureWatcher>
#include <memory>
#include <vector>

#include "gtv/ui/whatif_view.h"

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QVBoxLayout;

namespace gtv::ui {

class WhatIfDialog : public QDialog {
  Q_OBJECT
 public:
  WhatIfDialog(std::shared_ptr<const Trace> trace, std::shared_ptr<const DocumentAnalysis> analysis, QString path,
               QWidget* parent = nullptr);
  ~WhatIfDialog() override;

  // Blocks until the changes have been tried (tests, the command line).
  void wait_for_checks();
  // The changes offered as checkboxes (they apply), by their text ("streams").
  [[nodiscard]] QStringList offered() const;
  // The changes that do not apply, each "pinned: no pageable copies ...".
  [[nodiscard]] QStringList refused() const;
  void set_checked(const QString& change, bool checked);
  [[nodiscard]] QLineEdit* placement_field() const { return placement_; }
  [[nodiscard]] QLineEdit* no_sync_field() const { return no_sync_; }
  // The chosen changes, in the order they apply (placement, then the checked ones, then no-sync); an error names a
  // field that does not parse, or changes that conflict.
  [[nodiscard]] Expected<std::vector<whatif::Change>> chosen() const;
  // Starts the prediction (as the Predict button); the dialog is accepted when it succeeds.
  void predict();
  // Blocks until a prediction started by predict() has finished (tests, the command line).
  void wait_for_prediction();
  // The one line shown under the changes: why nothing was predicted; empty when nothing is wrong.
  [[nodiscard]] QString error() const;
  // The prediction, once the dialog is accepted.
  [[nodiscard]] WhatIfRun take_run() { return std::move(run_); }

 private:
  void on_checked(const std::vector<ChangeCheck>& checks);
  void on_predicted();
  void show_error(const QString& text);

  std::shared_ptr<const Trace> trace_;
  std::shared_ptr<const DocumentAnalysis> analysis_;  // the document's (may be null)
  // Its analysed trace (or one made for the dialog): the graph every check and the prediction share.
  std::shared_ptr<const analysis::AnalysedTrace> analysed_;
  QString path_;
  QLabel* status_;
  QVBoxLayout* offered_box_;
  QLabel* refused_;  // the heading of the changes that do not apply, one label each in refused_box_
  QVBoxLayout* refused_box_;
  QLineEdit* placement_;
  QLineEdit* no_sync_;
  QLabel* error_;
  QDialogButtonBox* buttons_;
  std::vector<std::pair<whatif::Change, QCheckBox*>> boxes_;
  QStringList refused_lines_;
  QFutureWatcher<std::vector<ChangeCheck>> checks_;
  QFutureWatcher<WhatIfRun> prediction_;
  bool pending_ = false;  // a prediction started and not yet handled
  WhatIfRun run_;
};

class MainWindow;
class WhatIfView;

// The dialog for the trace tab in front, then the view in a new tab; nullptr when no trace is in front or the
// dialog was cancelled.
WhatIfView* open_whatif(MainWindow* window);
// A view of a computed run in a new tab named "what if: streams".
WhatIfView* open_whatif_view(MainWindow* window, WhatIfRun run);

}  // namespace gtv::ui
