#pragma once
// Two or more runs stacked on a shared time axis, aligned at each run's first steady-state kernel
// (run_alignment.h); zoom and pan in any of them moves all of them. Each run's header carries its numbers from
// core/analysis: wall, GPU busy, overlap, effective parallelism, and the comparison with the first run (its
// speedup on the basis analysis::compare chose, in that basis's words). Each panel opens on its GPU lanes (host
// lanes collapsed) with the busy strip of its own analysis, so overlap reads per run.
#include <QFutureWatcher>
#include <QStringList>
#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "gtv/model/trace.h"
#include "gtv/ui/document_analysis.h"
#include "gtv/ui/export.h"
#include "gtv/ui/panels_figure.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/time_mapping.h"
#include "gtv/ui/trace_document.h"

class QLabel;
class QSplitter;

namespace gtv::ui {

class TimelineView;

// How many compare panels stay readable in a height: a panel is readable from panel_min_px up (its header of two
// lines, the time axes, a GPU header and a row of its lanes, the GPUs-busy strip and one idle row per GPU, all
// measured at theme's font); below that the panel leaves strips out so that none covers its lanes.
struct PanelFit {
  int panel_min_px = 0;
  int fits = 1;  // panels of panel_min_px that fit (at least 1)
};
// height_px: the height the compare view gets (a tab page); gpu_count: the most GPUs a run has.
[[nodiscard]] PanelFit compare_panel_fit(int height_px, const Theme& theme, int gpu_count);

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);
  ~CompareView() override;

  // A line above the runs (e.g. why a comparison uses a stand-in recording).
  void set_note(const QString& note);
  [[nodiscard]] QString note() const;
  // How many panels cannot show their GPU lanes whole at the view's height, in words; empty when every one can.
  [[nodiscard]] QString fit_note() const;
  // Grow to fit: the view takes the height every panel needs to show its GPU lanes and the rows under them whole
  // (its minimum height grows), for a view inside a scroll area, which then scrolls all panels together.
  void set_grow_to_fit(bool grow);
  // Where the runs are aligned and what the axis calls it; by default each run's first steady-state kernel. Set
  // before the runs are added.
  using AnchorOf = std::function<TimeNs(const Trace&)>;
  void set_alignment(AnchorOf anchor_of, const QString& axis_label);
  // Replaces a run's header (its figures) with this rich text, drawn with this style sheet.
  void set_header(int run, const QString& html, const QString& style_sheet = {});
  // analysis: the run's document analysis (its overlays); null: analysed here.
  void add_run(std::shared_ptr<const Trace> trace, const QString& label,
               std::shared_ptr<const DocumentAnalysis> analysis = nullptr);
  // Loads each file in the calling thread and adds it; returns the first error (one line), empty when all
  // loaded. Labels default to the file names without .json.gz.
  QString add_files(const QStringList& paths, const QStringList& labels = {});
  // Reads and analyses the files in a worker thread, saying meanwhile what it loads, then adds them in order;
  // files_loaded(error) follows, the error (one line) empty when every run was added. On an error no run is
  // added. Closing the view cancels the loading.
  void load_files(const QStringList& paths, const QStringList& labels = {});
  [[nodiscard]] bool loading() const { return watcher_.isRunning(); }

  [[nodiscard]] int run_count() const { return static_cast<int>(runs_.size()); }
  [[nodiscard]] TimelineView* view(int run) const { return runs_[static_cast<std::size_t>(run)].view; }
  [[nodiscard]] TimeNs anchor_ns(int run) const { return runs_[static_cast<std::size_t>(run)].anchor_ns; }
  // anchor_ns(run) - anchor_ns(0): time t of run 0 is shown beside t + offset_ns(run) of that run.
  [[nodiscard]] TimeNs offset_ns(int run) const;
  [[nodiscard]] QString figures_text(int run) const;

  // Sets the window in run 0's time; the others follow with their offsets.
  void set_window(TimeWindow window_run0);
  // Shows the stretch all runs share on the aligned axis.
  void fit();
  // The view the compare opens on: every run's timed work (its timed measurements, else its steady part) on the
  // aligned axis, with a small margin, in run 0's time.
  [[nodiscard]] TimeWindow timed_work_window() const;
  void show_timed_work();
  // The stretch (in run 0's time) from the earliest aligned start to the latest aligned end of all runs: every
  // view accepts it (shifted) unclamped, so zoom and pan stay locked and fit shows every run whole.
  [[nodiscard]] TimeWindow shared_bounds() const { return shared_bounds_; }
  void set_theme(const Theme& theme);

  // The figure of the runs as the view shows their window (panels_figure.h): a title naming the runs, each run's
  // header over its timeline with every lane, one legend, and a caption saying where the runs are aligned and the
  // comparison's notes (the headers' tooltips in the window).
  [[nodiscard]] PanelsFigure figure(bool dark) const;
  [[nodiscard]] Status export_figure(const ExportOptions& options, bool dark, std::string* fit_note = nullptr);

  // Never wider than the screen's available width: long headers wrap instead of widening the window.
  [[nodiscard]] QSize sizeHint() const override;
  [[nodiscard]] QSize minimumSizeHint() const override;

 signals:
  void files_loaded(const QString& error);

 protected:
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  struct Run {
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const DocumentAnalysis> analysis;
    QString label;
    TimeNs anchor_ns = 0;
    TimelineView* view = nullptr;
    QLabel* header = nullptr;
    QString figures;  // the header text, computed once when the run is added
    QString notes;    // the comparison's notes, one a line (the header's tooltip)
  };
  // notes: the comparison's warnings, one a line (the header's tooltip).
  [[nodiscard]] QString compute_figures(const Run& r, const Run* first, QString* notes) const;
  void sync_from(int run);
  // The other panels scrolled as far from their first GPU's header as this one, so their GPU lanes stay in line.
  void sync_scroll_from(int run);
  // Hides the run's GPU lanes with nothing in its timed work (a default stream the work left), so its working
  // streams get the room.
  void hide_idle_gpu_lanes(Run& run) const;
  void refresh_figures();
  void share_bounds();
  // Scrolls each panel down to its first GPU (as far as it scrolls), so the GPU lanes are in view.
  void reveal_gpu_lanes();
  [[nodiscard]] QSize fit_to_screen(QSize size) const;

  // Measured on the panels as laid out: fit_note_ says how many cut their GPU lanes.
  void update_fit_note();
  QLabel* note_;
  QLabel* loading_label_;
  QLabel* fit_note_;
  QSplitter* splitter_;
  std::optional<Theme> theme_;
  QStringList loading_labels_;
  AnchorOf anchor_of_;  // set_alignment; empty: the first steady-state kernel
  QString axis_label_;
  QFutureWatcher<std::vector<LoadResult>> watcher_;
  std::shared_ptr<std::atomic<bool>> cancelled_ = std::make_shared<std::atomic<bool>>(false);
  std::vector<Run> runs_;
  TimeWindow shared_bounds_;
  bool syncing_ = false;
  bool syncing_scroll_ = false;
  bool grow_to_fit_ = false;
  bool shown_ = false;
};

}  // namespace gtv::ui
