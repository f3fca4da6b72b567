#include "gtv/ui/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QToolBar>
#include <algorithm>
#include <utility>

#include "gtv/io/readable_formats.h"
#include "gtv/ui/app_palette.h"
#include "gtv/ui/classroom_view.h"
#include "gtv/ui/compare_view.h"
#include "gtv/ui/export.h"
#include "gtv/ui/rank_clock_dialog.h"
#include "gtv/ui/ranks_overview.h"
#include "gtv/ui/tab_titles.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_tab.h"
#include "gtv/ui/whatif_view.h"
#include "gtv/ui/widget_export.h"

namespace gtv::ui {
namespace {

MainWindow::ErrorHook& error_hook() {
  static MainWindow::ErrorHook hook;
  return hook;
}
MainWindow::SavePathHook& save_path_hook() {
  static MainWindow::SavePathHook hook;
  return hook;
}
MainWindow::OpenChoiceHook& open_choice_hook() {
  static MainWindow::OpenChoiceHook hook;
  return hook;
}
MainWindow::RankClockHook& rank_clock_hook() {
  static MainWindow::RankClockHook hook;
  return hook;
}
constexpr int kMaxRecent = 10;
const char* kRecentKey = "recentFiles";

}  // namespace

void MainWindow::set_error_hook(ErrorHook hook) { error_hook() = std::move(hook); }

void MainWindow::set_save_path_hook(SavePathHook hook) { save_path_hook() = std::move(hook); }

void MainWindow::set_open_choice_hook(OpenChoiceHook hook) { open_choice_hook() = std::move(hook); }

void MainWindow::set_rank_clock_hook(RankClockHook hook) { rank_clock_hook() = std::move(hook); }

void MainWindow::report_error(const QString& title, const QString& message) {
  if (error_hook())
    error_hook()(title, message);
  else
    QMessageBox::critical(this, title, message);
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), tabs_(new QTabWidget(this)) {
  setWindowTitle(tr("gtv - GPU Timeline Visualizer"));
  setAcceptDrops(true);
  tabs_->setTabsClosable(true);
  tabs_->setDocumentMode(true);
  setCentralWidget(tabs_);
  connect(tabs_, &QTabWidget::tabCloseRequested, this, [this](int index) {
    QWidget* w = tabs_->widget(index);
    if (auto* t = qobject_cast<TraceTab*>(w)) finish_batch_member(t->document());  // closed while it loaded
    tabs_->removeTab(index);
    w->deleteLater();
    refresh_tab_titles();
    if (tabs_->count() == 0) show_empty_hint();
  });
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    set_projector_view(false);
    sync_color_box();
  });
  build_menus();
  build_toolbar();
  resize(1500, 900);
  show_empty_hint();
}

void MainWindow::set_projector_view(bool on) {
  if (on == projector_) return;
  projector_ = on;
  if (on) {
    QList<QWidget*> chrome{menuBar(), statusBar(), tabs_->tabBar()};
    for (auto* bar : findChildren<QToolBar*>(QString(), Qt::FindDirectChildrenOnly)) chrome << bar;
    for (auto* dock : findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly)) chrome << dock;
    for (QWidget* w : chrome) {
      if (w->isHidden()) continue;
      hidden_for_projector_ << w;
      w->hide();
    }
    return;
  }
  for (QWidget* w : std::as_const(hidden_for_projector_)) w->show();
  hidden_for_projector_.clear();
  // The classroom in front (if it is still there) drops its full screen with the projector view.
  if (auto* classroom = qobject_cast<ClassroomView*>(tabs_->currentWidget()); classroom && classroom->is_full_screen())
    classroom->set_full_screen(false);
  else if (isFullScreen())
    setWindowState(windowState() & ~Qt::WindowFullScreen);
}

void MainWindow::show_empty_hint() {
  statusBar()->showMessage(
      tr("Open a trace (Ctrl+O) or drop a %1 file here").arg(QString::fromStdString(io::readable_suffixes_in_words())));
}

TraceTab* MainWindow::open_file(const QString& path) {
  if (!path.startsWith(QStringLiteral(":/")) && is_ranks_input(path.toStdString())) {
    open_ranks({path});
    return nullptr;
  }
  auto* document = new TraceDocument(path);
  TraceTab* tab = open_document(document);
  if (!path.startsWith(QStringLiteral(":/"))) add_recent(QFileInfo(path).absoluteFilePath());
  document->load();
  return tab;
}

TraceTab* MainWindow::open_run(const QStringList& paths, const RankMergeOptions& options) {
  if (paths.size() < 2) {
    report_error(tr("Cannot open run"), tr("A run of ranks needs at least two files (one per rank)."));
    return nullptr;
  }
  auto* document = new TraceDocument(paths, options);
  TraceTab* tab = open_document(document);
  tabs_->setTabToolTip(tabs_->indexOf(tab), paths.join(QLatin1Char('\n')));
  document->load();
  return tab;
}

RanksOverview* MainWindow::open_ranks(const QStringList& paths, const RankMergeOptions& options) {
  auto* overview = new RanksOverview(paths, options);
  overview->set_theme(theme());
  const int index = tabs_->addTab(overview, overview->title());
  tabs_->setTabToolTip(index, paths.join(QLatin1Char('\n')));
  tabs_->setCurrentIndex(index);
  connect(overview, &RanksOverview::loaded, this, [this, overview] {
    if (const int i = tabs_->indexOf(overview); i >= 0) tabs_->setTabText(i, overview->title());
  });
  connect(overview, &RanksOverview::failed, this, [this, overview, paths](const QString& message) {
    if (const int i = tabs_->indexOf(overview); i >= 0) tabs_->removeTab(i);
    // As for a trace: Open Recent offers only what opens.
    if (paths.size() == 1) remove_recent(QFileInfo(paths.front()).absoluteFilePath());
    overview->deleteLater();
    report_error(tr("Cannot open the ranks overview"), message);
  });
  connect(overview, &RanksOverview::open_rank, this, &MainWindow::open_rank_trace);
  if (paths.size() == 1) add_recent(QFileInfo(paths.front()).absoluteFilePath());
  return overview;
}

TraceTab* MainWindow::open_rank_trace(const QString& file, std::int64_t rank, TimeWindow window) {
  if (file.isEmpty()) {
    report_error(tr("Cannot open rank %1").arg(rank), tr("Rank %1's summary names no trace file.").arg(rank));
    return nullptr;
  }
  if (!QFileInfo::exists(file)) {
    report_error(tr("Cannot open rank %1").arg(rank),
                 tr("Rank %1's trace %2 is not there (the summary keeps the path gtv-cli summarize was given; "
                    "gtv also looks beside the summary).")
                     .arg(rank)
                     .arg(file));
    return nullptr;
  }
  TraceTab* tab = open_file(file);
  if (tab == nullptr) return nullptr;
  // After the tab's own first view (connected first), so the collective is what shows.
  connect(tab->document(), &TraceDocument::loaded, tab, [tab, window] { tab->view()->set_window(window); });
  return tab;
}

void MainWindow::open_files(const QStringList& paths) {
  if (!paths.isEmpty() &&
      std::all_of(paths.begin(), paths.end(), [](const QString& p) { return is_ranks_input(p.toStdString()); })) {
    open_ranks(paths);
    return;
  }
  if (paths.size() >= 2) {
    const bool one_run =
        open_choice_hook()
            ? open_choice_hook()(paths)
            : QMessageBox::question(
                  this, tr("Open %1 files").arg(paths.size()),
                  tr("Are these the files of the ranks of one distributed run (one file per rank)?\n\nYes: open "
                     "them as one run, on one clock, lanes grouped by rank.\nNo: open each in its own tab."),
                  QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes;
    if (one_run) {
      open_run(paths);
      return;
    }
  }
  // Files that fail among several opened at once are reported together, once every one of them has finished.
  for (const QString& path : paths) {
    TraceTab* tab = open_file(path);
    if (paths.size() < 2) continue;
    TraceDocument* document = tab->document();
    open_batch_.insert(document);
    auto finished = [this, document] { finish_batch_member(document); };
    connect(document, &TraceDocument::loaded, this, finished);
    connect(document, &TraceDocument::failed, this, finished);
  }
}

void MainWindow::finish_batch_member(TraceDocument* document) {
  if (!open_batch_.remove(document) || !open_batch_.isEmpty() || batch_failures_.isEmpty()) return;
  const QStringList failures = std::exchange(batch_failures_, {});
  report_error(failures.size() == 1 ? tr("Cannot open trace") : tr("Cannot open %1 traces").arg(failures.size()),
               failures.join(QLatin1Char('\n')));
}

QString MainWindow::dialog_dir() const {
  // The trace in front's folder: the next file is most often its neighbour (another run, the variant, a figure).
  if (const TraceTab* t = current_tab()) {
    const QString path = t->document()->path();
    if (!path.startsWith(QStringLiteral(":/"))) return QFileInfo(path).absolutePath();
  }
  const QStringList recent = recent_files();
  return recent.isEmpty() ? QString() : QFileInfo(recent.first()).absolutePath();
}

void MainWindow::rank_clocks_dialog() {
  TraceTab* tab = current_tab();
  if (tab == nullptr || !tab->document()->is_run() || !tab->document()->trace()) {
    report_error(tr("Rank clocks"), tr("The tab in front is not a run of ranks: open the rank files together "
                                       "(File > Open ranks as one run) first."));
    return;
  }
  const TraceMetadata& meta = tab->document()->trace()->metadata();
  std::optional<RankMergeOptions> chosen;
  if (rank_clock_hook()) {
    chosen = rank_clock_hook()(meta, tab->document()->merge_options());
  } else {
    RankClockDialog dialog(meta, tab->document()->merge_options(), this);
    if (dialog.exec() == QDialog::Accepted) chosen = dialog.options();
  }
  if (!chosen) return;
  const QStringList paths = tab->document()->rank_paths();
  const int index = tabs_->indexOf(tab);
  TraceTab* fresh = open_run(paths, *chosen);
  if (fresh == nullptr) return;
  tabs_->removeTab(tabs_->indexOf(tab));
  tab->deleteLater();
  tabs_->tabBar()->moveTab(tabs_->indexOf(fresh), index);
  tabs_->setCurrentWidget(fresh);
  refresh_tab_titles();
}

TraceTab* MainWindow::open_document(TraceDocument* document) {
  auto* tab = new TraceTab(document);
  const int index = tabs_->addTab(tab, document->title());
  tabs_->setCurrentIndex(index);
  refresh_tab_titles();
  connect(document, &TraceDocument::failed, this, [this, tab](const QString& message) { on_failed(tab, message); });
  connect(document, &TraceDocument::loaded, this, [this, document] {
    statusBar()->showMessage(tr("%1: %2 events").arg(document->title()).arg(document->trace()->event_count()), 5000);
  });
  tab->view()->set_theme(theme());
  connect(tab->view(), &TimelineView::color_mode_changed, this, &MainWindow::sync_color_box);
  sync_color_box();
  return tab;
}

void MainWindow::on_failed(TraceTab* tab, const QString& message) {
  const int index = tabs_->indexOf(tab);
  if (index >= 0) tabs_->removeTab(index);
  // Open Recent offers only files that open: one that failed (moved, deleted, not a trace) leaves the list.
  if (const QString path = tab->document()->path(); !path.startsWith(QStringLiteral(":/")))
    remove_recent(QFileInfo(path).absoluteFilePath());
  tab->deleteLater();
  refresh_tab_titles();
  if (open_batch_.contains(tab->document())) {
    const QString name = QFileInfo(tab->document()->path()).fileName();
    batch_failures_ << (message.contains(name) ? message : tr("%1: %2").arg(name, message));
    return;  // reported with the batch's other failures
  }
  report_error(tr("Cannot open trace"), message);
}

TraceTab* MainWindow::current_tab() const { return qobject_cast<TraceTab*>(tabs_->currentWidget()); }

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::open_dialog);
  file->addAction(tr("Open ranks as one &run..."), this, &MainWindow::open_run_dialog);
  file->addAction(tr("Open ranks &overview (folder of .gtvsum)..."), this, &MainWindow::open_ranks_dialog);
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  export_action_ = file->addAction(tr("&Export visible range..."), QKeySequence(tr("Ctrl+E")), this,
                                   [this] { export_dialog(false); });
  file->addAction(tr("Export &whole trace..."), this, [this] { export_dialog(true); });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  refresh_recent_menu();

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("&Fit"), this, [this] {
    if (auto* t = current_tab()) t->view()->fit();
  });
  view->addAction(tr("Zoom to &selection"), this, [this] {
    if (auto* t = current_tab()) t->view()->zoom_to_selection();
  });
  view->addAction(tr("Show all lanes"), this, [this] {
    if (auto* t = current_tab()) t->view()->show_all_lanes();
  });
  view->addAction(tr("Rank &clocks..."), this, &MainWindow::rank_clocks_dialog);
  dark_action_ = view->addAction(tr("&Dark theme"));
  dark_action_->setCheckable(true);
  connect(dark_action_, &QAction::toggled, this, &MainWindow::set_dark);
  add_color_menu(view);
  QMenu* scale = view->addMenu(tr("Presentation font scale"));
  auto* group = new QActionGroup(this);
  for (double s : {1.0, 1.25, 1.5, 2.0}) {
    QAction* a = scale->addAction(QStringLiteral("%1x").arg(s));
    a->setCheckable(true);
    a->setChecked(s == 1.0);
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, s] {
      font_scale_ = s;
      apply_theme();
    });
  }
}

// Colour by model/range, kind, kernel name or stream; per tab, so the checks follow the current tab on opening.
void MainWindow::add_color_menu(QMenu* view) {
  QMenu* colors = view->addMenu(tr("&Colour by (C cycles)"));
  auto* group = new QActionGroup(colors);
  const std::pair<ColorMode, QString> modes[] = {{ColorMode::Owner, tr("&Model / range that launched it")},
                                                 {ColorMode::Kind, tr("&Kind")},
                                                 {ColorMode::KernelName, tr("Kernel &name")},
                                                 {ColorMode::Stream, tr("&Stream")}};
  for (const auto& entry : modes) {
    const ColorMode mode = entry.first;  // a named variable: clang before 16 cannot capture a structured binding
    QAction* a = colors->addAction(entry.second);
    a->setCheckable(true);
    a->setData(static_cast<int>(mode));
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, mode] {
      if (auto* t = current_tab()) t->view()->set_color_mode(mode);
    });
  }
  connect(colors, &QMenu::aboutToShow, this, [this, group] {
    const TraceTab* t = current_tab();
    for (QAction* a : group->actions()) {
      a->setEnabled(t != nullptr);
      a->setChecked(t && a->data().toInt() == static_cast<int>(t->view()->color_mode()));
    }
  });
}

void MainWindow::build_toolbar() {
  QToolBar* bar = addToolBar(tr("Timeline"));
  bar->addAction(tr("Open"), this, &MainWindow::open_dialog);
  bar->addAction(tr("Fit (F)"), this, [this] {
    if (auto* t = current_tab()) t->view()->fit();
  });
  bar->addAction(tr("Zoom in (+)"), this, [this] {
    if (auto* t = current_tab()) t->view()->zoom_by(1.5);
  });
  bar->addAction(tr("Zoom out (-)"), this, [this] {
    if (auto* t = current_tab()) t->view()->zoom_by(1 / 1.5);
  });
  bar->addSeparator();
  color_box_ = new QComboBox;
  color_box_->setToolTip(tr("What the events are coloured by (C cycles; the Legend tab says what each colour means)"));
  for (int m = 0; m < kColorModeCount; ++m)
    color_box_->addItem(tr("Colour: %1").arg(QString::fromStdString(std::string(to_string(static_cast<ColorMode>(m))))),
                        m);
  connect(color_box_, &QComboBox::activated, this, [this](int index) {
    if (auto* t = current_tab()) t->view()->set_color_mode(static_cast<ColorMode>(color_box_->itemData(index).toInt()));
  });
  bar->addWidget(color_box_);
  bar->addSeparator();
  search_ = new QLineEdit;
  search_->setPlaceholderText(tr("Search kernel, call and annotation names"));
  search_->setToolTip(
      tr("Highlights the events whose name contains the text. Enter or Next: the next match, zoomed "
         "in until it can be read; Previous: the one before."));
  search_->setClearButtonEnabled(true);
  search_->setMaximumWidth(320);
  search_->installEventFilter(this);  // lets the window's shortcuts (Ctrl+E) past the line edit
  bar->addWidget(search_);
  search_count_ = new QLabel;
  auto run_search = [this] {
    TraceTab* t = current_tab();
    if (!t) return;
    const std::size_t n = t->view()->set_search(search_->text());
    search_count_->setText(search_->text().isEmpty() ? QString() : tr(" %1 matches ").arg(n));
  };
  // "3 of 231" once a match is shown, so Next and Previous say where they are.
  auto step_search = [this](bool forward) {
    TimelineView* view = current_tab() ? current_tab()->view() : nullptr;
    if (!view || !(forward ? view->search_next() : view->search_previous())) return;
    if (const auto at = view->search_position())
      search_count_->setText(tr(" %1 of %2 ").arg(*at + 1).arg(view->search_results().size()));
  };
  connect(search_, &QLineEdit::textChanged, this, run_search);
  connect(search_, &QLineEdit::returnPressed, this, [step_search] { step_search(true); });
  bar->addAction(tr("Previous"), this, [step_search] { step_search(false); });
  bar->addAction(tr("Next"), this, [step_search] { step_search(true); });
  bar->addWidget(search_count_);
  auto* focus_search = new QAction(this);
  focus_search->setShortcut(QKeySequence::Find);
  connect(focus_search, &QAction::triggered, search_, [this] {
    search_->setFocus();
    search_->selectAll();
  });
  addAction(focus_search);
}

void MainWindow::sync_color_box() {
  if (!color_box_) return;
  const TraceTab* t = current_tab();
  color_box_->setEnabled(t != nullptr);
  if (t) color_box_->setCurrentIndex(color_box_->findData(static_cast<int>(t->view()->color_mode())));
}

void MainWindow::set_dark(bool dark) {
  dark_ = dark;
  if (dark_action_->isChecked() != dark) dark_action_->setChecked(dark);  // toggled comes back here: no-op then
  apply_app_palette(dark);
  apply_theme();
}

Theme MainWindow::theme() const { return dark_ ? dark_theme(font_scale_) : light_theme(font_scale_); }

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  // A line edit claims Ctrl+E (end of line, on X11) before the window's shortcut sees it; the export shortcut
  // is the window's, whatever has the focus. Ignored and filtered, the override lets the shortcut run.
  if (watched == search_ && event->type() == QEvent::ShortcutOverride) {
    const auto* key = static_cast<QKeyEvent*>(event);
    if (QKeySequence(key->keyCombination()) == export_action_->shortcut()) {
      event->ignore();
      return true;
    }
  }
  return QMainWindow::eventFilter(watched, event);
}

void MainWindow::set_font_scale(double scale) {
  font_scale_ = scale;
  apply_theme();
}

void MainWindow::apply_theme() {
  // Classroom tabs keep their projector theme (black, large type) in both, at the presentation scale.
  for (int i = 0; i < tabs_->count(); ++i) {
    if (auto* classroom = qobject_cast<ClassroomView*>(tabs_->widget(i))) {
      classroom->set_text_scale(font_scale_);
    } else if (auto* t = qobject_cast<TraceTab*>(tabs_->widget(i))) {
      t->view()->set_theme(theme());
      t->refresh_legend();  // its swatch for the busy strip is drawn on the plot's header colour
    } else if (auto* compare = qobject_cast<CompareView*>(tabs_->widget(i))) {
      compare->set_theme(theme());
    } else if (auto* ranks = qobject_cast<RanksOverview*>(tabs_->widget(i))) {
      ranks->set_theme(theme());
    }
  }
}

void MainWindow::open_dialog() {
  const QStringList paths = QFileDialog::getOpenFileNames(
      this, tr("Open trace"), dialog_dir(), trace_file_filter() + tr(";;Rank summaries of a run (*.gtvsum)"));
  open_files(paths);
}

void MainWindow::open_ranks_dialog() {
  const QString dir =
      QFileDialog::getExistingDirectory(this, tr("Folder of the run's rank summaries (gtv-cli summarize)"));
  if (!dir.isEmpty()) open_ranks({dir});
}

void MainWindow::open_run_dialog() {
  const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Rank files of one run (one per rank)"),
                                                          dialog_dir(), trace_file_filter());
  if (!paths.isEmpty()) open_run(paths);
}

void MainWindow::export_dialog(bool whole_trace) {
  QWidget* current = tabs_->currentWidget();
  const TraceTab* t = current_tab();
  if (current == nullptr || (t != nullptr && !t->view()->trace())) {
    report_error(tr("Nothing to export"), current == nullptr
                                              ? tr("Open a trace first; File > Export saves its picture.")
                                              : tr("The trace is still loading; export it once it shows."));
    return;
  }
  const QString name = t                                       ? QStringLiteral("timeline.png")
                       : qobject_cast<CompareView*>(current)   ? QStringLiteral("compare.png")
                       : qobject_cast<RanksOverview*>(current) ? QStringLiteral("ranks.png")
                                                               : QStringLiteral("classroom.png");
  const QString dir = dialog_dir();
  const QString suggested = dir.isEmpty() ? name : QDir(dir).filePath(name);
  const QString path = save_path_hook() ? save_path_hook()(suggested)
                                        : QFileDialog::getSaveFileName(this, tr("Export image"), suggested,
                                                                       tr("Images (*.png *.jpg *.pdf *.svg)"));
  if (!path.isEmpty()) export_current_tab(path, whole_trace);
}

void MainWindow::export_current_tab(const QString& path, bool whole_trace) {
  QWidget* current = tabs_->currentWidget();
  const double scale = QFileInfo(path).suffix().toLower() == "pdf" ? 1.0 : 2.0;  // print quality for raster
  Status status = ok_status();
  if (TraceTab* t = current_tab(); t && t->view()->trace()) {
    ExportOptions options;
    options.path = path;
    options.whole_trace = whole_trace;
    options.width_px = t->view()->width();
    options.height_px = whole_trace ? 0 : t->view()->height();  // whole trace: tall enough for every lane
    options.scale = scale;
    if (const auto analysis = t->document()->analysis())
      options.figure =
          figure_text(*t->view()->trace(), *analysis, t->document()->path(), t->view()->color_mode(), dark_);
    std::string fit_note;
    status = export_timeline(*t->view(), options, &fit_note);
    if (status.ok())
      statusBar()->showMessage(
          fit_note.empty() ? tr("Wrote %1").arg(path) : tr("Wrote %1: %2").arg(path, QString::fromStdString(fit_note)),
          8000);
  } else if (auto* compare = qobject_cast<CompareView*>(current)) {
    // A figure of every run as the tab shows its window (every lane, title, legend, caption); the whole trace is
    // every run whole, then the zoom comes back.
    const TimeWindow before = compare->run_count() > 0 ? compare->view(0)->window() : TimeWindow{};
    if (whole_trace) compare->fit();
    ExportOptions options;
    options.path = path;
    options.scale = scale;
    options.width_px = compare->width();
    status = compare->export_figure(options, dark_);
    if (whole_trace) compare->set_window(before);
    if (status.ok()) statusBar()->showMessage(tr("Wrote %1").arg(path), 8000);
  } else if (auto* classroom = qobject_cast<ClassroomView*>(current)) {
    status = export_widget(*classroom, path, scale);
  } else if (auto* ranks = qobject_cast<RanksOverview*>(current); ranks && ranks->run()) {
    RanksFigureOptions figure;
    figure.colour = ranks->canvas()->colour();
    figure.by_lateness = ranks->canvas()->by_lateness();
    figure.columns = ranks->canvas()->column_kind();
    figure.width_px = std::max(ranks->width(), 1200);
    figure.dark = dark_;
    figure.scale = scale;
    status = export_ranks_figure(ranks->run(), path, figure);
  } else if (auto* whatif = qobject_cast<WhatIfView*>(current)) {
    // The What if figure (as gtv --export --whatif draws it): the band, every panel with every lane.
    CompareView* panels = whatif->panels();
    const TimeWindow before = panels->run_count() > 0 ? panels->view(0)->window() : TimeWindow{};
    if (whole_trace) panels->fit();
    ExportOptions options;
    options.path = path;
    options.scale = scale;
    options.width_px = whatif->width();
    status = whatif->export_figure(options, dark_);
    if (whole_trace) panels->set_window(before);
    if (status.ok()) statusBar()->showMessage(tr("Wrote %1").arg(path), 8000);
  } else {
    status = Error{tr("this tab has no picture to export").toStdString()};
  }
  if (!status.ok()) report_error(tr("Export failed"), QString::fromStdString(status.error().message));
}

QStringList MainWindow::recent_files() const { return QSettings().value(kRecentKey).toStringList(); }

void MainWindow::add_recent(const QString& path) {
  QStringList list = recent_files();
  list.removeAll(path);
  list.prepend(path);
  while (list.size() > kMaxRecent) list.removeLast();
  QSettings().setValue(kRecentKey, list);
  refresh_recent_menu();
}

void MainWindow::remove_recent(const QString& path) {
  QStringList list = recent_files();
  if (list.removeAll(path) == 0) return;
  QSettings().setValue(kRecentKey, list);
  refresh_recent_menu();
}

void MainWindow::refresh_tab_titles() {
  // Trace tabs of files get titles that tell same-named files apart; the full path is the tooltip.
  std::vector<int> indexes;
  std::vector<std::string> paths;
  for (int i = 0; i < tabs_->count(); ++i) {
    const auto* tab = qobject_cast<TraceTab*>(tabs_->widget(i));
    if (!tab || tab->document()->path().startsWith(QStringLiteral(":/")) || tab->document()->is_run()) continue;
    indexes.push_back(i);
    paths.push_back(QFileInfo(tab->document()->path()).absoluteFilePath().toStdString());
  }
  const std::vector<std::string> titles = distinct_tab_titles(paths);
  for (std::size_t k = 0; k < indexes.size(); ++k) {
    tabs_->setTabText(indexes[k], QString::fromStdString(titles[k]));
    tabs_->setTabToolTip(indexes[k], QString::fromStdString(paths[k]));
  }
  for (int i = 0; i < tabs_->count(); ++i)
    if (const auto* tab = qobject_cast<TraceTab*>(tabs_->widget(i)); tab && tabs_->tabToolTip(i).isEmpty())
      tabs_->setTabToolTip(i, tab->document()->path());
}

void MainWindow::refresh_recent_menu() {
  recent_menu_->clear();
  for (const QString& path : recent_files()) recent_menu_->addAction(path, this, [this, path] { open_file(path); });
  recent_menu_->setEnabled(!recent_menu_->isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  QStringList paths;
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) paths << url.toLocalFile();
  open_files(paths);
  event->acceptProposedAction();
}

}  // namespace gtv::ui
