#pragma once
// The main window: traces in tabs, opened by dialog, drag and drop, command line or the recent-files menu.
// A trace that fails to load closes its own tab and reports the error; other tabs are untouched.
#include <QMainWindow>
#include <QSet>
#include <QStringList>
#include <functional>
#include <optional>

#include "gtv/model/rank_merge.h"

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QTabWidget;

namespace gtv::ui {

struct Theme;
class TraceTab;
class TraceDocument;
class RanksOverview;
struct TimeWindow;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  // Opens a file (or ":/" resource) in a new tab and starts loading it; returns the tab.
  TraceTab* open_file(const QString& path);
  // Opens the files of the ranks of one run as one trace in a new tab (gtv/model/rank_merge.h).
  TraceTab* open_run(const QStringList& paths, const RankMergeOptions& options = {});
  // Opens a reduced run (a folder of .gtvsum rank summaries, or the summaries themselves) as a ranks overview in a
  // new tab (ranks_overview.h); a click on a cell opens that rank's own trace at that collective.
  RanksOverview* open_ranks(const QStringList& paths, const RankMergeOptions& options = {});
  // Opens a rank's own trace file in a new tab showing window (the trace's own clock) once it is read.
  TraceTab* open_rank_trace(const QString& file, std::int64_t rank, TimeWindow window);
  // Opens what a dialog or a drop gave: folders and .gtvsum files as one ranks overview; one file in a tab; several,
  // after asking (the open-choice hook), as one run of ranks or a tab each. Of several opened each in its tab, those
  // that fail are reported in one message, once every file has loaded or failed.
  void open_files(const QStringList& paths);
  // Opens a document already holding a trace (or one the caller will load).
  TraceTab* open_document(TraceDocument* document);
  [[nodiscard]] QTabWidget* tabs() const { return tabs_; }
  [[nodiscard]] TraceTab* current_tab() const;
  [[nodiscard]] QStringList recent_files() const;
  // The folder the file dialogs start in: the trace in front's, else the most recent file's (empty: the current).
  [[nodiscard]] QString dialog_dir() const;
  // The dark theme covers the whole application (app_palette.h) and every timeline, compare panels included.
  void set_dark(bool dark);
  [[nodiscard]] bool is_dark() const { return dark_; }
  void set_font_scale(double scale);
  // The timeline theme of the window's current settings (for views opened into it, e.g. compare).
  [[nodiscard]] Theme theme() const;

  // The projector view: the tab in front alone, without menus, toolbars, tab bar, status bar or panels (classroom
  // full screen); off restores what was shown. Leaving the tab, or closing it, turns it off.
  void set_projector_view(bool on);
  [[nodiscard]] bool projector_view() const { return projector_; }

  // File > Export for the tab in front, to path: the trace tab's figure (the visible range, or the whole trace),
  // the compare view with every panel, the classroom view's picture, the What if view. A message (error hook) instead,
  // never silence, when the tab has nothing to export.
  void export_current_tab(const QString& path, bool whole_trace);

  // Errors go through this hook (tests capture them); by default a QMessageBox.
  using ErrorHook = std::function<void(const QString& title, const QString& message)>;
  static void set_error_hook(ErrorHook hook);
  // The file name export asks for goes through this hook (tests answer it); by default a save dialog. An empty
  // answer cancels.
  using SavePathHook = std::function<QString(const QString& suggested)>;
  static void set_save_path_hook(SavePathHook hook);
  // Whether several files opened at once are the ranks of one run (true) or traces of their own; by default a
  // question box.
  using OpenChoiceHook = std::function<bool(const QStringList& paths)>;
  static void set_open_choice_hook(OpenChoiceHook hook);
  // The clock options View > Rank clocks chooses for the run in front (nullopt: cancelled); by default a dialog.
  using RankClockHook = std::function<std::optional<RankMergeOptions>(const TraceMetadata&, const RankMergeOptions&)>;
  static void set_rank_clock_hook(RankClockHook hook);
  // View > Rank clocks: merges the run in front again with the options chosen, in its tab's place.
  void rank_clocks_dialog();

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void build_menus();
  void add_color_menu(QMenu* view);
  void build_toolbar();
  void open_dialog();
  void open_run_dialog();
  void open_ranks_dialog();
  void export_dialog(bool whole_trace);
  void report_error(const QString& title, const QString& message);
  void add_recent(const QString& path);
  void remove_recent(const QString& path);
  void refresh_recent_menu();
  void refresh_tab_titles();
  void on_failed(TraceTab* tab, const QString& message);
  void finish_batch_member(TraceDocument* document);
  void apply_theme();
  void show_empty_hint();

  QTabWidget* tabs_;
  QMenu* recent_menu_ = nullptr;
  QAction* dark_action_ = nullptr;
  QAction* export_action_ = nullptr;
  QLineEdit* search_ = nullptr;
  QLabel* search_count_ = nullptr;
  QComboBox* color_box_ = nullptr;  // the colour mode of the current tab, always in view
  void sync_color_box();
  bool dark_ = false;
  double font_scale_ = 1.0;
  bool projector_ = false;
  QList<QWidget*> hidden_for_projector_;
  QSet<TraceDocument*> open_batch_;  // files opened together, still loading
  QStringList batch_failures_;  // their failures so far, one line each  // what the projector view hid, shown again
                                // when it ends
};

}  // namespace gtv::ui
