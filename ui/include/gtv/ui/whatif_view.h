#pragma once
// What if in the window: the recorded run on top, the run core/whatif predicts for the chosen changes under it
// (marked "predicted", never mistaken for a recording) and, where the bundled pairs hold a recording of the variant
// (whatif/recorded_pairs.h), that recording with the prediction's error. The panels are a CompareView aligned at
// the start of each run's timed region, zoomed and panned together on one axis; a summary above says the
// predicted length, its band, the speedup and what the band means for the recorded length, the band is drawn on
// the panels' time axis (whatif_band.h), and every assumption the prediction made is listed, one line each, folded.
#include <QFutureWatcher>
#include <QString>
#include <QWidget>
#include <memory>
#include <span>
#include <vector>

#include "gtv/ui/document_analysis.h"
#include "gtv/ui/export.h"
#include "gtv/ui/panels_figure.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/trace_document.h"
#include "gtv/whatif/change.h"
#include "gtv/whatif/predict.h"

class QLabel;
class QPushButton;
class QToolButton;

namespace gtv::ui {

class BandStrip;
class CompareView;

// What the view shows, computed off the UI thread (compute_whatif).
struct WhatIfRun {
  std::vector<whatif::Change> changes;
  whatif::Prediction prediction;
  QString recorded_label;  // "h200x1/sequential"
  std::shared_ptr<const Trace> recorded;
  std::shared_ptr<const DocumentAnalysis> recorded_analysis;
  std::shared_ptr<const Trace> predicted;
  std::shared_ptr<const DocumentAnalysis> predicted_analysis;
  // The recording of the variant, when the bundled pairs list one for this recording and these changes.
  QString variant_label;  // "h200x1/streams"
  std::shared_ptr<const Trace> variant;
  std::shared_ptr<const DocumentAnalysis> variant_analysis;
  TimeNs variant_window_ns = 0;  // its window, measured as the prediction's
  QString error;                 // one line (why a change does not apply); empty on success
  [[nodiscard]] bool ok() const { return error.isEmpty() && predicted != nullptr; }
};

// Predicts, builds and analyses the predicted run and reads the recording of the variant where one is listed. In
// the calling thread (a worker's, or `gtv --export`). `path` names the recording (for the pairs' lookup and labels).
[[nodiscard]] WhatIfRun compute_whatif(std::shared_ptr<const Trace> trace,
                                       std::shared_ptr<const DocumentAnalysis> analysis, const QString& path,
                                       std::vector<whatif::Change> changes);

// The file of the variant's recording beside `path` (the bundled layout: traces/h200x1/sequential.json.gz), empty
// when the pairs list none for it or the file is missing.
[[nodiscard]] QString variant_recording_path(const QString& path, std::span<const whatif::Change> changes);

// One change tried alone on a trace: whether it applies, and the prediction or the one-line reason.
struct ChangeCheck {
  whatif::Change change;
  bool applies = false;
  TimeNs predicted_ns = 0;
  QString reason;  // "no pageable copies in this trace's window: nothing to change"
};
// Every change that needs no parameter (whatif::parameterless_changes), tried on the analysed trace's one graph
// (whatif::try_each_change). A change that is not replayed (balanced-ranks) never applies here: it has no timeline
// to draw (its reason says so, with its number where it predicts).
[[nodiscard]] std::vector<ChangeCheck> check_changes(const analysis::AnalysedTrace& analysed);

// The length of a recording's window as the prediction measures it (whatif::recorded_window), on its graph.
[[nodiscard]] TimeNs recorded_window_ns(const analysis::AnalysedTrace& analysed);

// "113.9 ms"
[[nodiscard]] QString whatif_ms(TimeNs ns);
// "1.13x faster than recorded", "1.05x slower than recorded"
[[nodiscard]] QString speedup_text(const whatif::Prediction& p);
// "predicted 113.9 ms, recorded 115.2 ms: error -1.1%"
[[nodiscard]] QString prediction_error_text(TimeNs predicted_ns, TimeNs recorded_ns);

class WhatIfView : public QWidget {
  Q_OBJECT
 public:
  explicit WhatIfView(QWidget* parent = nullptr);
  ~WhatIfView() override;
  // Builds the panels (2, or 3 with a recording of the variant). Call once.
  void set_run(WhatIfRun run);
  [[nodiscard]] const WhatIfRun& run() const { return run_; }
  [[nodiscard]] CompareView* panels() const { return panels_; }
  [[nodiscard]] QLabel* summary() const { return summary_; }
  [[nodiscard]] BandStrip* band() const { return band_; }
  // The button that unfolds the assumptions, and each assumption's whole sentence (one line each, elided to the
  // width, the whole sentence in its tooltip).
  [[nodiscard]] QToolButton* assumptions_button() const { return assumptions_button_; }
  [[nodiscard]] QStringList assumption_lines() const;
  // The figure of the view (title, band, the panels with every lane, legend, caption; panels_figure.h) and its
  // export: the panels' window as shown.
  [[nodiscard]] PanelsFigure figure(bool dark) const;
  [[nodiscard]] Status export_figure(const ExportOptions& options, bool dark, std::string* fit_note = nullptr);
  [[nodiscard]] int panel_count() const;
  void set_theme(const Theme& theme);
  // Sets a recording of the variant beside the prediction as the third panel (one the pairs do not list: a run
  // made now with the run panel, say), with the prediction's error; replaces none that is there already.
  // window_ns: its window's length (recorded_window_ns), computed here when negative.
  void add_variant(std::shared_ptr<const Trace> trace, std::shared_ptr<const DocumentAnalysis> analysis,
                   const QString& label, TimeNs window_ns = -1);
  // The button that asks for such a recording (hidden once there is a third panel).
  [[nodiscard]] QPushButton* variant_button() const { return variant_button_; }

 private:
  void choose_variant();

  void show_assumptions();

  QLabel* summary_;
  QToolButton* assumptions_button_;
  QWidget* assumptions_;
  BandStrip* band_;
  QPushButton* variant_button_;
  CompareView* panels_;
  WhatIfRun run_;
  struct LoadedVariant {
    LoadResult loaded;
    TimeNs window_ns = 0;
  };
  QFutureWatcher<LoadedVariant> variant_loading_;
  QString variant_path_;
};

}  // namespace gtv::ui
