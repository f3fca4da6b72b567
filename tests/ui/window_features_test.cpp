// QtTest (offscreen): the window around the timelines. Compare lets the user pick which open traces to stack;
// File > Export (and Ctrl+E, even from the search box) works on compare and classroom tabs and says so when a
// tab has nothing to export; classroom plays a chosen range and zooms to what it plays; the dark theme covers
// the whole window (side panels, compare) and the light one comes back exactly.
#include <QApplication>
#include <QDeadlineTimer>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QPushButton>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest/QtTest>
#include <algorithm>

#include "gtv/config.h"
#include "gtv/ui/app_palette.h"
#include "gtv/ui/classroom_view.h"
#include "gtv/ui/compare_view.h"
#include "gtv/ui/event_text.h"
#include "gtv/ui/lane_layout.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/panels_figure.h"
#include "gtv/ui/run_features.h"
#include "gtv/ui/side_panels.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_picker.h"
#include "gtv/ui/trace_tab.h"

using namespace gtv;
using namespace gtv::ui;

namespace {

QString recording(const char* name) {
  return QStringLiteral(GTV_SOURCE_DIR "/resources/traces/h200x2/%1.json.gz").arg(QLatin1String(name));
}

// A window with the runs features and these recordings open and loaded.
std::unique_ptr<MainWindow> window_with(std::initializer_list<const char*> names) {
  auto window = std::make_unique<MainWindow>();
  install_run_features(window.get());
  std::vector<TraceTab*> tabs;
  for (const char* name : names) tabs.push_back(window->open_file(recording(name)));
  for (TraceTab* tab : tabs) tab->document()->wait();
  // The loaded signals reach the tabs through the event loop.
  QDeadlineTimer deadline(30000);
  while (!deadline.hasExpired() &&
         std::any_of(tabs.begin(), tabs.end(), [](TraceTab* t) { return t->view()->trace() == nullptr; }))
    QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  return window;
}

std::vector<TraceTab*> trace_tabs(const MainWindow& window) {
  std::vector<TraceTab*> tabs;
  for (int i = 0; i < window.tabs()->count(); ++i)
    if (auto* t = qobject_cast<TraceTab*>(window.tabs()->widget(i))) tabs.push_back(t);
  return tabs;
}

bool is_dark(const QColor& c) { return c.lightness() < 100; }

QString rank_file(int rank) {
  return QStringLiteral(GTV_SOURCE_DIR "/tests/data/pytorch/ddp_gloo_rank%1.json.gz").arg(rank);
}

// Loads the tab in front and lets its loaded signal reach the view.
TraceTab* loaded_front(MainWindow& window) {
  auto* tab = qobject_cast<TraceTab*>(window.tabs()->currentWidget());
  if (tab == nullptr) return nullptr;
  tab->document()->wait();
  QDeadlineTimer deadline(30000);
  while (!deadline.hasExpired() && tab->view()->trace() == nullptr)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  return tab;
}

}  // namespace

class WindowFeaturesTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void traceChoicesCheckTheCurrentAndThePreviousTrace() {
    const QStringList titles{"a", "b", "c", "d"};
    TraceChoices c(titles, 2, 0);
    QCOMPARE(c.chosen(), (std::vector<int>{0, 2}));
    QVERIFY(c.can_compare());
    c.set_checked(0, false);
    QVERIFY(!c.can_compare());  // one run is no comparison
    c.set_checked(3, true);
    QCOMPARE(c.chosen(), (std::vector<int>{2, 3}));
    // No previous one: the neighbour before the current one (or after the first); no current one: the last two.
    QCOMPARE(TraceChoices(titles, 2, -1).chosen(), (std::vector<int>{1, 2}));
    QCOMPARE(TraceChoices(titles, 0, -1).chosen(), (std::vector<int>{0, 1}));
    QCOMPARE(TraceChoices(titles, -1, -1).chosen(), (std::vector<int>{2, 3}));
    QCOMPARE(TraceChoices(titles, 1, 1).chosen(), (std::vector<int>{0, 1}));
  }

  void pickerDialogNeedsTwoChecked() {
    TracePickerDialog dialog(TraceChoices({"sequential", "streams", "warmup"}, 1, 0));
    QCOMPARE(dialog.list()->count(), 3);
    QCOMPARE(dialog.list()->item(0)->checkState(), Qt::Checked);
    QCOMPARE(dialog.list()->item(1)->checkState(), Qt::Checked);
    QCOMPARE(dialog.list()->item(2)->checkState(), Qt::Unchecked);
    QVERIFY(dialog.ok_button()->isEnabled());
    dialog.list()->item(0)->setCheckState(Qt::Unchecked);
    QVERIFY(!dialog.ok_button()->isEnabled());
    dialog.list()->item(2)->setCheckState(Qt::Checked);
    QVERIFY(dialog.ok_button()->isEnabled());
    QCOMPARE(dialog.choices().chosen(), (std::vector<int>{1, 2}));
  }

  // The picker says how many runs stay readable at the window's height, from the panel's least readable height,
  // and warns when more are checked.
  void pickerSaysHowManyRunsFit() {
    const Theme theme = light_theme();
    const PanelFit two_gpus = compare_panel_fit(900, theme, 2);
    qInfo("a compare panel of two GPUs reads from %d px: %d fit in 900 px", two_gpus.panel_min_px, two_gpus.fits);
    QVERIFY(two_gpus.panel_min_px > 100);
    QVERIFY(two_gpus.fits >= 1 && two_gpus.fits * two_gpus.panel_min_px <= 900);
    QVERIFY((two_gpus.fits + 1) * two_gpus.panel_min_px > 900 - 40);  // no more would fit, margins aside
    // More GPUs (an idle row each) and a larger font need more height per panel; more height fits more panels.
    QVERIFY(compare_panel_fit(900, theme, 8).panel_min_px > two_gpus.panel_min_px);
    QVERIFY(compare_panel_fit(900, light_theme(2.0), 2).panel_min_px > two_gpus.panel_min_px);
    QVERIFY(compare_panel_fit(1800, theme, 2).fits > two_gpus.fits);
    QCOMPARE(compare_panel_fit(10, theme, 2).fits, 1);

    TraceChoices c({"a", "b", "c", "d"}, 1, 0);
    QCOMPARE(c.fit_text(), QString());  // not known: nothing said
    c.set_readable(3, 250, 800);
    QVERIFY2(c.fit_text().contains(QStringLiteral("(800 px) 3 runs stay readable")), qPrintable(c.fit_text()));
    QVERIFY(c.fit_text().contains(QStringLiteral("250 px")));
    QVERIFY(!c.beyond_readable());
    c.set_checked(2, true);
    QVERIFY(!c.beyond_readable());  // three checked, three fit
    c.set_checked(3, true);
    QVERIFY(c.beyond_readable());
    QVERIFY2(c.fit_text().startsWith(QStringLiteral("4 runs checked, but")), qPrintable(c.fit_text()));

    TraceChoices one({"a", "b", "c"}, 1, 0);
    one.set_readable(1, 500, 600);
    QVERIFY(one.fit_text().contains(QStringLiteral("1 run stays readable")));
    TracePickerDialog dialog(one);
    QVERIFY(dialog.fit_label()->text().contains(QStringLiteral("2 runs checked, but")));
    QVERIFY(dialog.ok_button()->isEnabled());  // a warning, not a refusal
    dialog.list()->item(0)->setCheckState(Qt::Unchecked);
    QVERIFY(!dialog.fit_label()->text().contains(QStringLiteral("checked, but")));
  }

  void comparingTheChosenTwoOpensTwoPanels() {
    auto window = window_with({"sequential", "streams", "warmup"});
    const auto tabs = trace_tabs(*window);
    QCOMPARE(tabs.size(), std::size_t{3});
    QString error;
    CompareView* view = compare_trace_tabs(window.get(), {tabs[0], tabs[2]}, &error);
    QVERIFY2(view != nullptr, qPrintable(error));
    QCOMPARE(view->run_count(), 2);
    QCOMPARE(window->tabs()->currentWidget(), view);
    QCOMPARE(window->tabs()->count(), 4);
    QVERIFY(window->tabs()->tabText(3).contains(QStringLiteral("sequential")));
    QVERIFY(window->tabs()->tabText(3).contains(QStringLiteral("warmup")));
    QVERIFY(!window->tabs()->tabText(3).contains(QStringLiteral("streams")));
    QVERIFY(compare_trace_tabs(window.get(), {tabs[1]}, &error) == nullptr);
    QVERIFY(!error.isEmpty());
  }

  void exportWorksOnCompareAndClassroomTabs() {
    QTemporaryDir dir;
    auto window = window_with({"sequential", "streams"});
    window->resize(1400, 800);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    QStringList errors;
    MainWindow::set_error_hook([&](const QString& title, const QString& m) { errors << title + ": " + m; });
    const auto tabs = trace_tabs(*window);
    QString error;
    QVERIFY(compare_trace_tabs(window.get(), {tabs[0], tabs[1]}, &error));
    QCoreApplication::processEvents();
    for (const char* ext : {"png", "svg", "pdf"}) {
      const QString path = dir.filePath(QStringLiteral("compare.%1").arg(QLatin1String(ext)));
      window->export_current_tab(path, false);
      QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
      QVERIFY2(QFileInfo(path).size() > 1000, ext);
    }
    // The compare figure (2x for print): the view's width, as tall as every panel with every lane, its legend and
    // caption need.
    const QImage image(dir.filePath(QStringLiteral("compare.png")));
    auto* compare = qobject_cast<CompareView*>(window->tabs()->currentWidget());
    std::vector<TimelineView*> views;
    views.reserve(static_cast<std::size_t>(compare->run_count()));
    for (int i = 0; i < compare->run_count(); ++i) views.push_back(compare->view(i));
    ExportOptions options;
    options.width_px = compare->width();
    const PanelsFigureDrawn drawn = panels_figure_drawn(views, compare->figure(false), options);
    for (const FigureRows& rows : drawn.panels) QVERIFY(rows.cut.empty());
    QCOMPARE(image.size(), QSize(compare->width(), static_cast<int>(std::ceil(drawn.layout.height_px))) * 2);

    window->tabs()->setCurrentWidget(tabs[0]);
    QVERIFY(open_classroom(window.get()));
    QCoreApplication::processEvents();
    const QString classroom = dir.filePath(QStringLiteral("classroom.png"));
    window->export_current_tab(classroom, true);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
    QVERIFY(QImage(classroom).width() > 1000);
    MainWindow::set_error_hook({});
  }

  void ctrlEExportsWhileTheSearchBoxHasFocus() {
    QTemporaryDir dir;
    auto window = window_with({"sequential"});
    window->resize(1400, 800);
    window->show();
    window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(window.get()));
    QString asked;
    QString path = dir.filePath(QStringLiteral("timeline.png"));
    MainWindow::set_save_path_hook([&](const QString& suggested) {
      asked = suggested;
      return path;
    });
    auto* search = window->findChild<QLineEdit*>();
    QVERIFY(search);
    search->setFocus();
    QTRY_VERIFY(search->hasFocus());
    QTest::keyClick(search, Qt::Key_E, Qt::ControlModifier);
    // The save dialog starts in the trace's folder, as the open dialogs do.
    const QString trace_dir = QFileInfo(recording("sequential")).absolutePath();
    QCOMPARE(window->dialog_dir(), trace_dir);
    QCOMPARE(asked, QDir(trace_dir).filePath(QStringLiteral("timeline.png")));
    QVERIFY(QFileInfo::exists(path));
    MainWindow::set_save_path_hook({});
  }

  // F11 is the window's: it takes the classroom in front to full screen wherever the focus is (here the search
  // box), not only after a click on its timeline.
  void f11WorksWithoutAClickOnTheTimeline() {
    auto window = window_with({"sequential"});
    window->resize(1400, 800);
    window->show();
    window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(window.get()));
    ClassroomView* classroom = open_classroom(window.get());
    QVERIFY(classroom != nullptr);
    auto* search = window->findChild<QLineEdit*>();
    search->setFocus();
    QTRY_VERIFY(search->hasFocus());
    QTest::keyClick(search, Qt::Key_F11);
    QTRY_VERIFY(window->isFullScreen());
    QVERIFY(window->projector_view());
    QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : window.get(), Qt::Key_Escape);
    QTRY_VERIFY(!window->isFullScreen());
    QVERIFY(!window->projector_view());
  }

  // The Kernels tab widens the side panel for its columns, never at the cost of the timeline's room: at a laptop's
  // 1366 px and a projector's 1280 px the timeline keeps most of the width.
  void kernelsTabLeavesTheTimelineItsRoom() {
    for (const QSize size : {QSize(1366, 768), QSize(1280, 720), QSize(1920, 1080)}) {
      auto window = window_with({"sequential"});
      window->resize(size);
      window->show();
      QVERIFY(QTest::qWaitForWindowExposed(window.get()));
      TraceTab* tab = trace_tabs(*window).front();
      tab->show_side_tab(QStringLiteral("kernels"));
      QCoreApplication::processEvents();
      const int after = tab->view()->width();
      QVERIFY2(after >= tab->width() * 6 / 10, qPrintable(QStringLiteral("%1 of %2").arg(after).arg(tab->width())));
    }
  }

  // The first view depends on the window's size, not on the sizes it went through: a window that opened small and
  // grew to 1366x768 shows what one opened at 1366x768 shows (every GPU row, the range rows that have something),
  // not a host process collapsed to its header over empty space.
  void firstViewDependsOnTheSizeNotTheHistory() {
    const QString threads = recording("threads");
    const auto lane_state_at = [&](std::initializer_list<QSize> sizes) {
      MainWindow window;
      window.resize(*sizes.begin());
      window.show();
      TraceTab* tab = window.open_file(threads);
      loaded_front(window);
      for (const QSize size : sizes) {
        window.resize(size);
        QTest::qWait(50);
      }
      TimelineView* view = tab->view();
      [&] {
        QVERIFY2(view->gpu_rows_bottom_px() <= view->lane_rect().height(),
                 qPrintable(QStringLiteral("%1 > %2").arg(view->gpu_rows_bottom_px()).arg(view->lane_rect().height())));
      }();
      return view->lane_state();
    };
    const LaneViewState direct = lane_state_at({QSize(1366, 768)});
    const LaneViewState grown = lane_state_at({QSize(900, 420), QSize(1366, 768)});
    QCOMPARE(grown.collapsed_groups, direct.collapsed_groups);
    QCOMPARE(grown.collapsed_rows, direct.collapsed_rows);
    QCOMPARE(grown.hidden_rows, direct.hidden_rows);
    QVERIFY(direct.collapsed_groups.empty());  // the host process is not folded to its header
    // Some of the host's range rows are still there at 1366x768.
    int range_rows_hidden = 0;
    for (const std::string& id : direct.hidden_rows) range_rows_hidden += id.find("range") != std::string::npos;
    QVERIFY2(range_rows_hidden < 6, qPrintable(QString::number(range_rows_hidden)));
  }

  // Several files that cannot be read, opened at once, give one message naming each of them.
  void severalBadFilesGiveOneMessage() {
    QTemporaryDir dir;
    QStringList paths;
    for (const char* name : {"a.json", "b.json", "c.json"}) {
      QFile file(dir.filePath(QLatin1String(name)));
      QVERIFY(file.open(QIODevice::WriteOnly));
      file.write("not a trace");
      paths << file.fileName();
    }
    MainWindow window;
    QStringList errors;
    MainWindow::set_error_hook([&](const QString& title, const QString& m) { errors << title + ": " + m; });
    MainWindow::set_open_choice_hook([](const QStringList&) { return false; });
    window.open_files(paths);
    QDeadlineTimer deadline(10000);
    while (!deadline.hasExpired() && errors.isEmpty()) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    QCoreApplication::processEvents();
    MainWindow::set_open_choice_hook({});
    MainWindow::set_error_hook({});
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors[0].startsWith(QStringLiteral("Cannot open 3 traces")), qPrintable(errors[0]));
    for (const char* name : {"a.json", "b.json", "c.json"})
      QVERIFY2(errors[0].contains(QLatin1String(name)), qPrintable(errors[0]));
    QCOMPARE(window.tabs()->count(), 0);
  }

  void aTabWithNothingToExportSaysSo() {
    MainWindow window;
    QStringList errors;
    MainWindow::set_error_hook([&](const QString& title, const QString& m) { errors << title + ": " + m; });
    bool asked = false;
    MainWindow::set_save_path_hook([&](const QString&) {
      asked = true;
      return QString();
    });
    QTemporaryDir dir;
    window.export_current_tab(dir.filePath(QStringLiteral("x.png")), false);  // no tab at all
    QCOMPARE(errors.size(), 1);
    // Through the menu: a message, and no file dialog for a picture that cannot be made.
    for (QAction* a : window.findChildren<QAction*>())
      if (a->shortcut() == QKeySequence(QStringLiteral("Ctrl+E"))) a->trigger();
    QCOMPARE(errors.size(), 2);
    QVERIFY(!asked);
    MainWindow::set_error_hook({});
    MainWindow::set_save_path_hook({});
  }

  void classroomPlaysAChosenRangeZoomedToIt() {
    QCOMPARE(chosen_playback_range(std::nullopt, std::nullopt, std::nullopt).has_value(), false);
    const TimeWindow a{100, 200}, b{300, 400}, c{500, 600};
    QCOMPARE(chosen_playback_range(a, b, c)->start_ns, TimeNs{100});
    QCOMPARE(chosen_playback_range(std::nullopt, b, c)->start_ns, TimeNs{300});
    QCOMPARE(chosen_playback_range(TimeWindow{5, 5}, std::nullopt, c)->end_ns, TimeNs{600});  // empty: skipped

    // The range measured in the trace tab is on offer in the classroom opened from it.
    auto window = window_with({"sequential"});
    TraceTab* tab = trace_tabs(*window)[0];
    const Trace& trace = *tab->document()->trace();
    const TimeNs t0 = trace.start_ns() + (trace.end_ns() - trace.start_ns()) / 2;
    const TimeWindow range{t0, t0 + 20'000'000};
    tab->view()->set_measure(range);
    ClassroomView* view = open_classroom(window.get());
    QVERIFY(view);
    view->set_playback_duration_ms(400);
    auto* button = [&]() -> QPushButton* {
      for (auto* candidate : view->findChildren<QPushButton*>())
        if (candidate->text() == QStringLiteral("Play this range")) return candidate;
      return nullptr;
    }();
    QVERIFY(button);
    QVERIFY(button->isEnabled());
    QCOMPARE(view->offered_range()->start_ns, range.t0_ns);
    const PlaybackSpan timed = view->playback_span();
    button->click();
    QVERIFY(view->playing_chosen_range());
    QVERIFY(view->is_playing());
    QCOMPARE(view->playback_span().start_ns, range.t0_ns);
    QCOMPARE(view->playback_span().end_ns, range.t1_ns);
    // Zoomed to what it plays: the range fills most of the window.
    const TimeWindow w = view->view()->window();
    QVERIFY(w.t0_ns <= range.t0_ns && w.t1_ns >= range.t1_ns);
    QVERIFY(w.span_ns() < range.span_ns() * 11 / 10);
    QSignalSpy finished(view, &ClassroomView::playback_finished);
    QVERIFY(finished.wait(10000));
    QCOMPARE(view->cursor_ns(), range.t1_ns);
    // Again: back to the timed work.
    button->click();
    QVERIFY(!view->playing_chosen_range());
    QCOMPARE(view->playback_span().start_ns, timed.start_ns);
    QCOMPARE(view->playback_span().end_ns, timed.end_ns);
    QCOMPARE(button->text(), QStringLiteral("Play this range"));
  }

  void classroomZoomsToTheTimedWorkWhenPlaybackStarts() {
    auto window = window_with({"sequential"});
    ClassroomView* view = open_classroom(window.get());
    QVERIFY(view);
    view->view()->fit();
    const PlaybackSpan span = view->playback_span();
    QVERIFY(view->view()->window().span_ns() > (span.end_ns - span.start_ns) * 2);  // start-up is long
    view->play();
    const TimeWindow w = view->view()->window();
    QVERIFY(w.t0_ns <= span.start_ns && w.t1_ns >= span.end_ns);
    QVERIFY(w.span_ns() < (span.end_ns - span.start_ns) * 11 / 10);
    view->pause();
  }

  void darkThemeCoversTheWindowAndComesBackExactly() {
    const QPalette light = QApplication::palette();
    const QString light_style = QApplication::style()->name();
    auto window = window_with({"sequential", "streams"});
    const auto tabs = trace_tabs(*window);
    QString error;
    CompareView* before = compare_trace_tabs(window.get(), {tabs[0], tabs[1]}, &error);
    QVERIFY(before);
    QVERIFY(!is_dark(tabs[0]->summary()->palette().color(QPalette::Window)));
    window->set_dark(true);
    QVERIFY(window->is_dark());
    QCoreApplication::processEvents();  // the palette reaches the widgets by a posted event
    for (QWidget* w : std::initializer_list<QWidget*>{tabs[0]->details(), tabs[0]->summary()->parentWidget(),
                                                      window->tabs(), window->menuBar()})
      QVERIFY2(
          is_dark(w->palette().color(QPalette::Window)),
          qPrintable(w->metaObject()->className() + QStringLiteral(" ") + w->palette().color(QPalette::Window).name()));
    // Text views draw on Base: the summary (the report) and the legend are light text on dark.
    QVERIFY(is_dark(tabs[0]->summary()->palette().color(QPalette::Base)));
    QVERIFY(!is_dark(tabs[0]->summary()->palette().color(QPalette::Text)));  // readable: light text on dark
    QVERIFY(before->view(0)->theme().dark);
    QVERIFY(before->view(1)->theme().dark);
    CompareView* after = compare_trace_tabs(window.get(), {tabs[1], tabs[0]}, &error);
    QVERIFY(after && after->view(0)->theme().dark);
    window->set_dark(false);
    QCoreApplication::processEvents();
    QCOMPARE(QApplication::palette(), light);
    QCOMPARE(QApplication::style()->name(), light_style);
    QVERIFY(!before->view(0)->theme().dark);
    QVERIFY(!is_dark(tabs[0]->summary()->palette().color(QPalette::Base)));
  }

  // Two rank files opened together (the open-choice answered "one run") are one trace: ranks in the tab title,
  // the group headers and the details of a GPU lane; View > Rank clocks merges them again with the clocks chosen.
  void rankFilesOpenAsOneRunAndTheirClocksCanBeSet() {
    MainWindow window;
    QStringList asked;
    MainWindow::set_open_choice_hook([&](const QStringList& paths) {
      asked = paths;
      return true;
    });
    window.open_files({rank_file(0), rank_file(1)});
    MainWindow::set_open_choice_hook({});
    QCOMPARE(asked.size(), 2);
    TraceTab* tab = loaded_front(window);
    QVERIFY(tab != nullptr && tab->view()->trace() != nullptr);
    QCOMPARE(window.tabs()->count(), 1);
    QCOMPARE(window.tabs()->tabText(0), QStringLiteral("2 ranks: ddp_gloo_rank0.json.gz"));
    const Trace& run = *tab->view()->trace();
    QCOMPARE(run.metadata().ranks.size(), std::size_t{2});
    const std::vector<std::string> labels = group_labels(run);
    QVERIFY(std::find(labels.begin(), labels.end(), "rank 1 · GPU 0  NVIDIA H200") != labels.end());
    const auto gpu1 = run.find_lane(gpu_lane_key(1, 7));
    QVERIFY(gpu1.has_value());
    QCOMPARE(lane_location(run, *gpu1), std::string("rank 1 · GPU 0 / stream 7"));
    QCOMPARE(run.metadata().clock.method, std::string("wall clock"));

    RankMergeOptions seen;
    MainWindow::set_rank_clock_hook([&](const TraceMetadata& meta, const RankMergeOptions& options) {
      seen = options;
      if (meta.ranks.size() != 2) seen.clock = ClockMethod::Collectives;  // fails the check below
      RankMergeOptions chosen;
      chosen.clock = ClockMethod::Collectives;
      chosen.manual_shift_ns[1] = 100'000;
      return std::optional<RankMergeOptions>(chosen);
    });
    window.rank_clocks_dialog();
    MainWindow::set_rank_clock_hook({});
    QCOMPARE(seen.clock, ClockMethod::WallClock);
    QCOMPARE(window.tabs()->count(), 1);
    TraceTab* again = loaded_front(window);
    QVERIFY(again != nullptr && again != tab && again->view()->trace() != nullptr);
    const TraceMetadata& meta = again->view()->trace()->metadata();
    QCOMPARE(meta.clock.method, std::string("collectives + manual"));
    QVERIFY2(meta.clock.basis.find("rank 1 moved +100.0 us by hand") != std::string::npos, meta.clock.basis.c_str());
    QCOMPARE(again->document()->merge_options().manual_shift_ns.at(1), TimeNs{100'000});
  }

  // Files that are no run (one rank twice) close their tab and say why; answered "separate", each gets a tab.
  void aBadSetOfRankFilesSaysWhyAndSeparateFilesGetTabs() {
    MainWindow window;
    QString error;
    MainWindow::set_error_hook([&](const QString&, const QString& message) { error = message; });
    window.open_run({rank_file(0), rank_file(0)});
    QDeadlineTimer deadline(10000);
    while (!deadline.hasExpired() && error.isEmpty()) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    QVERIFY2(error.contains(QStringLiteral("are both rank 0")), qPrintable(error));
    QCOMPARE(window.tabs()->count(), 0);
    MainWindow::set_open_choice_hook([](const QStringList&) { return false; });
    window.open_files({rank_file(0), rank_file(1)});
    MainWindow::set_open_choice_hook({});
    MainWindow::set_error_hook({});
    QCOMPARE(window.tabs()->count(), 2);
  }
};

QTEST_MAIN(WindowFeaturesTest)
#include "window_features_test.moc"
