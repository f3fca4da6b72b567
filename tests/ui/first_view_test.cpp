// QtTest (offscreen): a trace tab opens on the timed work with the verdict above the plot, F still fits all; W/S
// zoom around the mouse; Open Recent forgets files that fail; same-named files get distinct tab titles.
#include "gtv/ui/first_view.h"

#include <qcustomplot.h>

#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include "gtv/analysis/compare.h"
#include "gtv/io/trace_file.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/side_panels.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_tab.h"
#include "test_traces.h"

using namespace gtv;
using namespace gtv::ui;

namespace {

const QString kRecording = QStringLiteral(GTV_SOURCE_DIR "/resources/traces/h200x2/sequential.json.gz");

std::unique_ptr<TraceTab> loaded_tab(const QString& path) {
  auto* document = new TraceDocument(path);
  document->load();
  document->wait();
  auto tab = std::make_unique<TraceTab>(document);
  tab->resize(1400, 800);
  return tab;
}

std::unique_ptr<TraceTab> tab_of(Trace trace) {
  auto* document = new TraceDocument(QStringLiteral("built.json"));
  document->set_trace(std::move(trace));
  auto tab = std::make_unique<TraceTab>(document);
  tab->resize(1400, 800);
  return tab;
}

void move_mouse(QWidget* widget, QPointF pos) {
  QMouseEvent move(QEvent::MouseMove, pos, widget->mapToGlobal(pos), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
  QApplication::sendEvent(widget, &move);
}

}  // namespace

class FirstViewTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aRecordingOpensOnItsTimedRegionAndFFitsAll() {
    const auto tab = loaded_tab(kRecording);
    QVERIFY(tab->view()->trace() != nullptr);
    const analysis::Report& report = tab->document()->analysis()->report();
    QVERIFY(report.region.from_measurements);
    const TimeWindow first = tab->view()->window();
    QCOMPARE(first, fit_window(report.region.start_ns, report.region.end_ns, 0.03));
    // Padded on both sides, and much shorter than the trace (the start-up is not in view).
    QVERIFY(first.t0_ns < report.region.start_ns && first.t1_ns > report.region.end_ns);
    const Trace& trace = *tab->view()->trace();
    QVERIFY(first.span_ns() * 2 < trace.end_ns() - trace.start_ns());

    QTest::keyClick(tab->view()->plot(), Qt::Key_F);
    QCOMPARE(tab->view()->window(), fit_window(trace.start_ns(), trace.end_ns()));
  }

  void aTraceWithoutMeasurementsOpensOnItsSteadyPart() {
    const auto tab = tab_of(test::small_trace());
    QVERIFY(!tab->document()->analysis()->report().region.from_measurements);
    const auto steady = analysis::steady_part(*tab->view()->trace());
    QVERIFY(steady.has_value());
    QCOMPARE(steady->start_ns, TimeNs{20'000});  // the first kernel; the host op before it is start-up
    QCOMPARE(tab->view()->window(), fit_window(20'000, 90'000, 0.03));
    QCOMPARE(tab->view()->window(), (TimeWindow{17'900, 92'100}));
  }

  void theVerdictLineIsTheReportsHeadline() {
    const auto tab = loaded_tab(kRecording);
    const analysis::Report& report = tab->document()->analysis()->report();
    QVERIFY(report.verdict.size() >= 2);
    QLabel* verdict = tab->verdict();
    QCOMPARE(verdict->text(), QString::fromStdString(report.verdict[0] + " " + report.verdict[1]));
    QVERIFY(verdict->wordWrap());
    QVERIFY(verdict->textInteractionFlags() & Qt::TextSelectableByMouse);
    QCOMPARE(verdict->textFormat(), Qt::PlainText);
    // Shown, wrapped within its width, and given the height its lines need (never clipped).
    tab->show();
    QVERIFY(QTest::qWaitForWindowExposed(tab.get()));
    QVERIFY(verdict->isVisible());
    QVERIFY(verdict->height() >= verdict->heightForWidth(verdict->width()));
    QVERIFY(verdict->geometry().bottom() <= tab->view()->geometry().top());
    // Nothing is selected: the side panel shows the Summary; selecting an event shows its Details.
    QCOMPARE(tab->current_side_tab(), QStringLiteral("Summary"));
    const Trace& trace = *tab->view()->trace();
    for (LaneIndex l = 0; l < trace.lanes().size(); ++l)
      if (!trace.lane(l).events.empty()) {
        tab->view()->select(EventRef{l, 0});
        break;
      }
    QCOMPARE(tab->current_side_tab(), QStringLiteral("Details"));
    tab->view()->select(std::nullopt);
    QCOMPARE(tab->current_side_tab(), QStringLiteral("Summary"));
    // A click on an event while the Kernels table is in front shows that event's Details too.
    tab->show_side_tab(QStringLiteral("Kernels"));
    QCOMPARE(tab->current_side_tab(), QStringLiteral("Kernels"));
    for (LaneIndex l = 0; l < trace.lanes().size(); ++l)
      if (!trace.lane(l).events.empty()) {
        tab->view()->select(EventRef{l, 0});
        break;
      }
    QCOMPARE(tab->current_side_tab(), QStringLiteral("Details"));
    // A shift-drag range shows what ran in it, on both GPUs, and says its window.
    tab->view()->select(std::nullopt);
    tab->show_side_tab(QStringLiteral("Summary"));
    const analysis::Region& region = tab->document()->analysis()->report().region;
    tab->view()->set_measure(TimeWindow{region.start_ns, region.end_ns});
    QCOMPARE(tab->current_side_tab(), QStringLiteral("Details"));
    QTRY_VERIFY(tab->details()->text().contains(QStringLiteral("selected (")));
    const QString details = tab->details()->text();
    QVERIFY2(details.contains(QStringLiteral("GPU 0: busy")) && details.contains(QStringLiteral("GPU 1: busy")) &&
                 details.contains(QStringLiteral("Two or more GPUs busy at once")),
             qPrintable(details));
  }

  void wZoomsAroundTheMouse() {
    TimelineView view;
    view.resize(1000, 600);
    view.set_trace(std::make_shared<const Trace>(test::small_trace()));
    view.replot_now();
    const QRectF lanes = view.lane_rect();
    const TimeWindow before = view.window();
    const double x = 300;
    const TimeNs under_mouse = TimeMapping(before, lanes.width()).time_at(x);
    move_mouse(view.plot(), QPointF(lanes.left() + x, lanes.top() + 10));
    QTest::keyClick(view.plot(), Qt::Key_W);
    const TimeWindow zoomed = view.window();
    QCOMPARE(zoomed, zoom_window(before, under_mouse, 1.5));
    QVERIFY(zoomed != zoom_window(before, before.t0_ns + before.span_ns() / 2, 1.5));  // not around the centre
    // The time under the mouse stays under it (to the nanosecond the mapping rounds to).
    QVERIFY(std::llabs(TimeMapping(zoomed, lanes.width()).time_at(x) - under_mouse) <= 1);
    QVERIFY(std::abs(TimeMapping(zoomed, lanes.width()).x_of(under_mouse) - x) < 0.01);
    QTest::keyClick(view.plot(), Qt::Key_S);
    QCOMPARE(view.window(), zoom_window(zoomed, TimeMapping(zoomed, lanes.width()).time_at(x), 1 / 1.5));

    // Over the lane headers (not the plot), the centre is the anchor.
    move_mouse(view.plot(), QPointF(lanes.left() - 20, lanes.top() + 10));
    const TimeWindow w = view.window();
    QTest::keyClick(view.plot(), Qt::Key_W);
    QCOMPARE(view.window(), zoom_window(w, w.t0_ns + w.span_ns() / 2, 1.5));
  }

  void aFailedOpenLeavesOpenRecent() {
    MainWindow::set_error_hook([](const QString&, const QString&) {});
    MainWindow window;
    QTemporaryDir dir;
    const QString good_path = dir.filePath("good.json");
    QVERIFY(io::write_trace(test::small_trace(), good_path.toStdString()).ok());
    const QString bad_path = dir.filePath("gone.json");  // does not exist
    TraceTab* good = window.open_file(good_path);
    QTRY_VERIFY(good->view()->trace() != nullptr);
    window.open_file(bad_path);
    QVERIFY(window.recent_files().contains(QFileInfo(bad_path).absoluteFilePath()));  // until it fails
    QTRY_COMPARE(window.tabs()->count(), 1);
    QVERIFY(!window.recent_files().contains(QFileInfo(bad_path).absoluteFilePath()));
    QCOMPARE(window.recent_files().front(), QFileInfo(good_path).absoluteFilePath());
    MainWindow::set_error_hook({});
  }

  void sameNamedFilesGetDistinctTabTitles() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("h200x2") && QDir(dir.path()).mkpath("Downloads"));
    const QString a = dir.filePath("h200x2/warmup.json");
    const QString b = dir.filePath("Downloads/warmup.json");
    for (const QString& path : {a, b}) QVERIFY(io::write_trace(test::small_trace(), path.toStdString()).ok());
    MainWindow window;
    window.open_file(a);
    QCOMPARE(window.tabs()->tabText(0), QStringLiteral("warmup.json"));
    window.open_file(b);
    QCOMPARE(window.tabs()->tabText(0), QStringLiteral("warmup.json \u2014 h200x2"));
    QCOMPARE(window.tabs()->tabText(1), QStringLiteral("warmup.json \u2014 Downloads"));
    QCOMPARE(window.tabs()->tabToolTip(0), QFileInfo(a).absoluteFilePath());
    QCOMPARE(window.tabs()->tabToolTip(1), QFileInfo(b).absoluteFilePath());
    // Closing one leaves the other's title bare again.
    emit window.tabs()->tabCloseRequested(1);
    QCOMPARE(window.tabs()->tabText(0), QStringLiteral("warmup.json"));
    QTRY_VERIFY(qobject_cast<TraceTab*>(window.tabs()->widget(0))->view()->trace() != nullptr);
  }
};

QTEST_MAIN(FirstViewTest)
#include "first_view_test.moc"
