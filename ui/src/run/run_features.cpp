#include "gtv/ui/run_features.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QTabBar>
#include <QTabWidget>
#include <algorithm>
#include <set>

#include "gtv/io/readable_formats.h"
#include "gtv/ui/classroom_view.h"
#include "gtv/ui/compare_view.h"
#include "gtv/ui/exercise_panel.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/record_dialog.h"
#include "gtv/ui/run_panel.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_picker.h"
#include "gtv/ui/trace_tab.h"
#include "gtv/ui/whatif_dialog.h"

namespace gtv::ui {
namespace {

QString file_stem(const QString& path) { return QString::fromStdString(io::trace_stem(path.toStdString())); }

// The trace tab in front and the one in front before it: "Compare open traces" checks these two first.
class TraceTabHistory : public QObject {
 public:
  explicit TraceTabHistory(MainWindow* window) : QObject(window) {
    setObjectName(QStringLiteral("gtvTraceTabHistory"));
    connect(window->tabs(), &QTabWidget::currentChanged, this, [this, window](int index) {
      auto* tab = qobject_cast<TraceTab*>(window->tabs()->widget(index));
      if (tab == nullptr || tab == current) return;
      previous = current;
      current = tab;
    });
  }
  QPointer<TraceTab> current;
  QPointer<TraceTab> previous;
};

TraceTabHistory* history_of(MainWindow* window) {
  return dynamic_cast<TraceTabHistory*>(window->findChild<QObject*>(QStringLiteral("gtvTraceTabHistory")));
}

std::vector<TraceTab*> loaded_trace_tabs(MainWindow* window) {
  std::vector<TraceTab*> tabs;
  for (int i = 0; i < window->tabs()->count(); ++i)
    if (auto* tab = qobject_cast<TraceTab*>(window->tabs()->widget(i)); tab && tab->document()->trace())
      tabs.push_back(tab);
  return tabs;
}

int index_of(const std::vector<TraceTab*>& tabs, const TraceTab* tab) {
  const auto it = std::find(tabs.begin(), tabs.end(), tab);
  return tab != nullptr && it != tabs.end() ? static_cast<int>(it - tabs.begin()) : -1;
}

// The height a new tab's page gets: the compare view's height when it opens.
int tab_page_height_px(MainWindow* window) {
  const QTabWidget* tabs = window->tabs();
  return tabs->currentWidget() != nullptr ? tabs->currentWidget()->height() : tabs->height() - tabs->tabBar()->height();
}

int gpu_count(const Trace& trace) {
  std::set<std::int64_t> devices;
  for (const Lane& lane : trace.lanes())
    if (lane.is_gpu()) devices.insert(lane.device());
  return static_cast<int>(devices.size());
}

void add_tab(MainWindow* window, QWidget* widget, const QString& title, const QString& tooltip) {
  const int index = window->tabs()->addTab(widget, title);
  window->tabs()->setTabToolTip(index, tooltip);
  window->tabs()->setCurrentIndex(index);
}

void build_menu(MainWindow* window, QDockWidget* dock, RunPanel* panel) {
  QMenu* menu = window->menuBar()->addMenu(QObject::tr("&Runs"));
  menu->addAction(dock->toggleViewAction());
  menu->addAction(QObject::tr("&Record a program..."), window,
                  [window, panel] { open_record_dialog(window, panel->data_dir()); });
  menu->addAction(QObject::tr("&Compare runs..."), window, [window] {
    const QStringList paths = QFileDialog::getOpenFileNames(window, QObject::tr("Runs to compare (two or more)"),
                                                            window->dialog_dir(), trace_file_filter());
    if (paths.size() < 2) return;
    // The files are not read yet: the fit of runs with one GPU, the most that can fit.
    const int height_px = tab_page_height_px(window);
    const PanelFit fit = compare_panel_fit(height_px, window->theme(), 1);
    if (paths.size() > fit.fits &&
        QMessageBox::question(window, QObject::tr("Compare"),
                              QObject::tr("At this window's height (%1 px) at most %2 runs stay readable (a panel "
                                          "needs %3 px); shorter panels leave out their strips and brackets. "
                                          "Compare all %4 anyway?")
                                  .arg(height_px)
                                  .arg(fit.fits)
                                  .arg(fit.panel_min_px)
                                  .arg(paths.size())) != QMessageBox::Yes)
      return;
    QString error;
    if (!open_compare(window, paths, {}, &error)) QMessageBox::warning(window, QObject::tr("Compare"), error);
  });
  menu->addAction(QObject::tr("Compare &open traces"), window, [window] {
    QString error;
    if (!compare_open_traces(window, &error) && !error.isEmpty())
      QMessageBox::information(window, QObject::tr("Compare"), error);
  });
  QMenu* classic = menu->addMenu(QObject::tr("C&lassic comparisons (H200 recordings)"));
  classic->setToolTipsVisible(true);
  for (const ClassicComparison& c : classic_comparisons()) {
    QAction* action = classic->addAction(c.title, window, [window, c] {
      QString error;
      if (!open_classic_comparison(window, c, &error)) QMessageBox::warning(window, c.title, error);
    });
    action->setToolTip(c.note.isEmpty() ? c.files.join(QStringLiteral(" vs ")) : c.note);
    action->setEnabled(!bundled_recordings_dir().isEmpty());
  }
  classic->addSeparator();
  classic->addAction(QObject::tr("All of them"), window, [window] {
    for (const ClassicComparison& c : classic_comparisons()) {
      QString error;
      if (!open_classic_comparison(window, c, &error)) QMessageBox::warning(window, c.title, error);
    }
  });
  menu->addAction(QObject::tr("&What if... (current trace)"), window, [window] { open_whatif(window); });
  menu->addAction(QObject::tr("Classroom &mode (current trace)"), QKeySequence(QObject::tr("Ctrl+Shift+C")), window,
                  [window] {
                    if (!open_classroom(window))
                      QMessageBox::information(window, QObject::tr("Classroom mode"),
                                               QObject::tr("Open a trace first; classroom mode replays it."));
                  });
  add_exercise_menu(menu, window);
}

}  // namespace

std::vector<ClassicComparison> classic_comparisons(const QString& recordings_dir) {
  const bool have_processes = QFileInfo::exists(recordings_dir + QStringLiteral("/processes.json.gz"));
  ClassicComparison threads{
      QObject::tr("threads vs processes"), {QStringLiteral("threads"), QStringLiteral("processes")}, {}};
  if (!have_processes) {
    threads.files[1] = QStringLiteral("threads-streams");
    threads.note = QObject::tr(
        "The processes scenario has no recording here: threads is compared with "
        "threads-streams (threads, each model on its own stream) instead.");
  }
  std::vector<ClassicComparison> classics = {
      {QObject::tr("sequential vs streams"), {QStringLiteral("sequential"), QStringLiteral("streams")}, {}},
      threads,
      {QObject::tr("pageable vs pinned"), {QStringLiteral("copy-pageable"), QStringLiteral("copy-pinned")}, {}},
  };
  // Offered only where cuda-graph was recorded with the others: no stand-in shows what a graph does.
  if (QFileInfo::exists(recordings_dir + QStringLiteral("/cuda-graph.json.gz")))
    classics.push_back(
        {QObject::tr("sequential vs cuda-graph"), {QStringLiteral("sequential"), QStringLiteral("cuda-graph")}, {}});
  return classics;
}

std::vector<ClassicComparison> classic_comparisons() { return classic_comparisons(bundled_recordings_dir()); }

RunPanel* install_run_features(MainWindow* window) {
  auto* panel = new RunPanel;
  auto* dock = new QDockWidget(QObject::tr("Run an experiment"), window);
  dock->setObjectName(QStringLiteral("runPanelDock"));
  dock->setWidget(panel);
  window->addDockWidget(Qt::RightDockWidgetArea, dock);
  new TraceTabHistory(window);
  dock->hide();  // the timeline gets the room until the user asks for the panel (Runs menu)
  QObject::connect(panel, &RunPanel::run_saved, window, [window](const QString& path) { window->open_file(path); });
  QObject::connect(panel, &RunPanel::open_recording, window,
                   [window](const QString& path) { window->open_file(path); });
  QObject::connect(panel, &RunPanel::compare_requested, window, [window](const QStringList& paths) {
    QString error;
    if (!open_compare(window, paths, QObject::tr("Your run (first) and the run recorded on 2x H200 (second)."), &error))
      QMessageBox::warning(window, QObject::tr("Compare"), error);
  });
  build_menu(window, dock, panel);
  return panel;
}

RecordDialog* open_record_dialog(MainWindow* window, const QString& data_dir) {
  // One at a time: a second ask shows the one already open (perhaps recording).
  if (auto* open = window->findChild<RecordDialog*>(QString(), Qt::FindDirectChildrenOnly)) {
    open->show();
    open->raise();
    open->activateWindow();
    return open;
  }
  auto* dialog = new RecordDialog(data_dir, window);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  QObject::connect(dialog, &RecordDialog::recorded, window, [window](const QString& path) { window->open_file(path); });
  QObject::connect(dialog, &RecordDialog::failed, window, [window](const QString& message) {
    QMessageBox::warning(window, QObject::tr("Record a program"), message);
  });
  dialog->show();
  return dialog;
}

CompareView* open_compare(MainWindow* window, const QStringList& paths, const QString& note, QString* error) {
  // A file that is not there is said at once; what a file holds is known once the worker has read it.
  for (const QString& p : paths) {
    const QFileInfo info(p);
    if (!info.isFile() || !info.isReadable()) {
      *error = QObject::tr("%1: no such readable file").arg(p);
      return nullptr;
    }
  }
  auto* view = new CompareView;
  view->set_note(note);
  view->set_theme(window->theme());
  QStringList stems;
  for (const QString& p : paths) stems << file_stem(p);
  const QString title = QObject::tr("compare: %1").arg(stems.join(QStringLiteral(" vs ")));
  add_tab(window, view, title, paths.join('\n'));
  QObject::connect(view, &CompareView::files_loaded, window, [window, view, title](const QString& e) {
    if (e.isEmpty()) return;
    window->tabs()->removeTab(window->tabs()->indexOf(view));
    view->deleteLater();
    QMessageBox::warning(window, title, e);
  });
  view->load_files(paths);
  return view;
}

CompareView* open_classic_comparison(MainWindow* window, const ClassicComparison& comparison, QString* error) {
  const QString dir = bundled_recordings_dir();
  if (dir.isEmpty()) {
    *error = QObject::tr("the bundled H200 recordings are not installed");
    return nullptr;
  }
  QStringList paths;
  for (const QString& f : comparison.files) paths << dir + QLatin1Char('/') + f + QStringLiteral(".json.gz");
  return open_compare(window, paths, comparison.note, error);
}

CompareView* compare_open_traces(MainWindow* window, QString* error) {
  const std::vector<TraceTab*> tabs = loaded_trace_tabs(window);
  if (tabs.size() < 2) {
    *error = QObject::tr("Open two or more traces first (runs from the panel open as tabs).");
    return nullptr;
  }
  QStringList titles;
  for (TraceTab* tab : tabs) titles << window->tabs()->tabText(window->tabs()->indexOf(tab));
  // From a compare or classroom tab, the trace tabs last in front are meant.
  const TraceTabHistory* history = history_of(window);
  const TraceTab* current_tab = window->current_tab();
  const TraceTab* previous_tab = nullptr;
  if (history != nullptr) {
    if (current_tab == nullptr) current_tab = history->current;
    previous_tab = history->current == current_tab ? history->previous.data() : history->current.data();
  }
  const int current = index_of(tabs, current_tab);
  const int previous = index_of(tabs, previous_tab);
  int gpus = 1;
  for (TraceTab* tab : tabs) gpus = std::max(gpus, gpu_count(*tab->document()->trace()));
  const int height_px = tab_page_height_px(window);
  const PanelFit fit = compare_panel_fit(height_px, window->theme(), gpus);
  TraceChoices choices(titles, current, previous);
  choices.set_readable(fit.fits, fit.panel_min_px, height_px);
  TracePickerDialog dialog(choices, window);
  if (dialog.exec() != QDialog::Accepted) return nullptr;  // cancelled: nothing to say
  std::vector<TraceTab*> chosen;
  for (int i : dialog.choices().chosen()) chosen.push_back(tabs[static_cast<std::size_t>(i)]);
  return compare_trace_tabs(window, chosen, error);
}

CompareView* compare_trace_tabs(MainWindow* window, const std::vector<TraceTab*>& tabs, QString* error) {
  if (tabs.size() < 2) {
    *error = QObject::tr("Choose two or more traces to compare.");
    return nullptr;
  }
  auto* view = new CompareView;
  QStringList titles;
  QStringList paths;
  for (TraceTab* tab : tabs) {
    const TraceDocument* d = tab->document();
    const QString title = window->tabs()->tabText(window->tabs()->indexOf(tab));
    view->add_run(d->trace(), title, d->analysis());
    titles << title;
    paths << d->path();
  }
  view->set_theme(window->theme());
  add_tab(window, view, QObject::tr("compare: %1").arg(titles.join(QStringLiteral(" vs "))), paths.join('\n'));
  return view;
}

ClassroomView* open_classroom(MainWindow* window) {
  TraceTab* tab = window->current_tab();
  if (tab == nullptr || !tab->document()->trace()) return nullptr;
  const auto trace = tab->document()->trace();
  QString scenario = QString::fromStdString(trace->metadata().scenario);
  if (scenario.isEmpty()) scenario = file_stem(tab->document()->path());
  auto* view = new ClassroomView;
  view->set_text_scale(window->theme().font_scale);
  view->set_trace(trace, scenario, tab->document()->analysis());
  // What the user measured or selected in the trace is on offer as "Play this range".
  const auto measured = timeline_measured(*tab->view());
  view->set_source_range(measured ? measured : timeline_selected_span(*tab->view()));
  add_tab(window, view, QObject::tr("classroom: %1").arg(scenario), tab->document()->path());
  QObject::connect(view, &ClassroomView::projector_view_changed, window, &MainWindow::set_projector_view);
  return view;
}

}  // namespace gtv::ui
