// QtTest (offscreen): runs stacked in the compare view are aligned at their first steady-state kernel and move
// together; classroom mode hides the GPU lanes (and the lesson) until revealed, plays the timed work, seeks on a
// click and goes full screen.
#include <qcustomplot.h>

#include <QDialog>
#include <QMenuBar>
#include <QScreen>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolBar>
#include <QtTest/QtTest>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "gtv/analysis/compare.h"
#include "gtv/config.h"
#include "gtv/experiments/catalog.h"
#include "gtv/io/trace_file.h"
#include "gtv/ui/band_rows.h"
#include "gtv/ui/classroom_view.h"
#include "gtv/ui/compare_view.h"
#include "gtv/ui/event_lane_row.h"
#include "gtv/ui/lane_layout.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/run_alignment.h"
#include "gtv/ui/run_features.h"
#include "gtv/ui/time_mapping.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_tab.h"

using namespace gtv;
using namespace gtv::ui;

namespace {

QString recording(const char* name) {
  return QStringLiteral(GTV_SOURCE_DIR "/resources/traces/h200x2/%1.json.gz").arg(QLatin1String(name));
}

// Written out here rather than calling run_alignment: the first GPU kernel at or after the last warm-up's end.
TimeNs expected_anchor_ns(const Trace& trace) {
  TimeNs warm_end = std::numeric_limits<TimeNs>::min();
  for (const Range& r : trace.ranges())
    if (r.kind == RangeKind::WarmUp && r.end_ns > warm_end) warm_end = r.end_ns;
  TimeNs best = std::numeric_limits<TimeNs>::max();
  for (const Lane& lane : trace.lanes())
    for (const Event& e : lane.events)
      if (lane.is_gpu() && e.kind == EventKind::Kernel && e.start_ns >= warm_end && e.start_ns < best)
        best = e.start_ns;
  return best;
}

// "Compare open traces" asks which to stack; with two open both are checked already, so OK compares them.
CompareView* compare_open_traces_accepting(MainWindow* window, QString* error) {
  QTimer::singleShot(0, [] {
    if (auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget())) dialog->accept();
  });
  return compare_open_traces(window, error);
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

class CompareClassroomTest : public QObject {
  Q_OBJECT
 private slots:
  void compare_aligns_at_first_steady_kernel();
  void compare_locks_zoom_and_pan();
  void compare_of_two_ranks_of_one_run_headlines_no_speedup();
  void classic_comparisons_open_as_tabs();
  void compare_panels_show_gpu_lanes_and_busy_strip();
  void compare_window_covers_every_run_whole();
  void compare_panels_never_overlap_at_any_height();
  void compare_panels_show_the_critical_path_row_whole();
  void compare_never_wider_than_the_screen();
  void compare_opens_on_the_aligned_timed_work();
  void compare_loads_runs_off_the_ui_thread();
  void classroom_hides_gpu_lanes_until_revealed();
  void classroom_playback_reaches_the_end();
  void classroom_fades_what_is_after_the_cursor();
  void classroom_plays_the_timed_loop();
  void classroom_click_seeks();
  void classroom_lesson_only_after_reveal();
  void classroom_f11_toggles_full_screen();
  void classroom_projector_view_is_the_lesson_alone();
};

void CompareClassroomTest::compare_aligns_at_first_steady_kernel() {
  CompareView view;
  view.resize(1200, 800);
  QCOMPARE(view.add_files({recording("sequential"), recording("streams")}), QString());
  QCOMPARE(view.run_count(), 2);
  auto a = io::read_trace(recording("sequential").toStdString());
  auto b = io::read_trace(recording("streams").toStdString());
  QVERIFY(a && b);
  QVERIFY(!a->ranges().empty());  // the recordings carry warm-up ranges, so this is the steady-state case
  const TimeNs anchor_a = expected_anchor_ns(*a);
  const TimeNs anchor_b = expected_anchor_ns(*b);
  QVERIFY(anchor_a != std::numeric_limits<TimeNs>::max());
  QCOMPARE(view.anchor_ns(0), anchor_a);
  QCOMPARE(view.anchor_ns(1), anchor_b);
  QCOMPARE(view.offset_ns(0), TimeNs{0});
  QCOMPARE(view.offset_ns(1), anchor_b - anchor_a);
  // A window around run 0's anchor shows the same stretch, shifted by the offset, in run 1.
  const TimeWindow w{anchor_a - 1'000'000, anchor_a + 2'000'000};
  view.set_window(w);
  QCOMPARE(view.view(0)->window(), w);
  QCOMPARE(view.view(1)->window(), (TimeWindow{w.t0_ns + anchor_b - anchor_a, w.t1_ns + anchor_b - anchor_a}));
  // The headline is the core comparison's speedup, on its basis, in its words; whole-trace wall time comes second.
  const analysis::Comparison c = analysis::compare(*a, *b, "sequential", "streams");
  const QString figures = view.figures_text(1);
  QVERIFY2(figures.contains(QStringLiteral("speedup vs sequential: ")), qPrintable(figures));
  if (c.speedup > 0)
    QVERIFY2(figures.contains(QString::number(c.speedup, 'f', 2) + QStringLiteral("&times;</b>")), qPrintable(figures));
  QVERIFY2(figures.contains(QString::fromStdString(c.basis_text).toHtmlEscaped()), qPrintable(figures));
  QVERIFY(figures.indexOf(QStringLiteral("speedup vs")) < figures.indexOf(QStringLiteral("whole trace")));
  QVERIFY(view.figures_text(0).contains(QStringLiteral("overlap")));
}

// Two ranks of one DDP run: what differs is what one rank waited for the other, so no speedup is headlined; the
// core's note is in the header's tooltip.
void CompareClassroomTest::compare_of_two_ranks_of_one_run_headlines_no_speedup() {
  CompareView view;
  view.resize(1200, 800);
  QCOMPARE(view.add_files({QStringLiteral(GTV_SOURCE_DIR "/tests/data/pytorch/ddp_gloo_rank0.json.gz"),
                           QStringLiteral(GTV_SOURCE_DIR "/tests/data/pytorch/ddp_gloo_rank1.json.gz")}),
           QString());
  const QString figures = view.figures_text(1);
  QVERIFY2(figures.contains(QStringLiteral("speedup vs ddp_gloo_rank0: <b>none: ranks of one run</b>")),
           qPrintable(figures));
  QVERIFY2(!figures.contains(QStringLiteral("&times;</b>")), qPrintable(figures));
}

void CompareClassroomTest::compare_locks_zoom_and_pan() {
  CompareView view;
  view.resize(1200, 800);
  QCOMPARE(view.add_files({recording("copy-pageable"), recording("copy-pinned")}), QString());
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  const TimeNs offset = view.offset_ns(1);
  view.set_window({view.anchor_ns(0) - 2'000'000, view.anchor_ns(0) + 2'000'000});
  view.view(1)->zoom_by(2.0);  // zoom in run 1: run 0 follows
  const TimeWindow w1 = view.view(1)->window();
  QCOMPARE(w1.span_ns(), TimeNs{2'000'000});
  QCOMPARE(view.view(0)->window(), (TimeWindow{w1.t0_ns - offset, w1.t1_ns - offset}));
  view.view(0)->pan_by_px(-40);  // pan in run 0: run 1 follows
  const TimeWindow w0 = view.view(0)->window();
  QVERIFY(w0.t0_ns != w1.t0_ns - offset);
  QCOMPARE(view.view(1)->window(), (TimeWindow{w0.t0_ns + offset, w0.t1_ns + offset}));
  // Fit and a zoom out past the ends stay inside the shared stretch, which every view accepts: still locked.
  const TimeWindow shared = view.shared_bounds();
  QCOMPARE(view.view(1)->bounds(), (TimeWindow{shared.t0_ns + offset, shared.t1_ns + offset}));
  view.fit();
  QCOMPARE(view.view(0)->window(), shared);
  QCOMPARE(view.view(1)->window(), (TimeWindow{shared.t0_ns + offset, shared.t1_ns + offset}));
  view.view(1)->zoom_by(0.25);
  QCOMPARE(view.view(0)->window(), shared);
  QCOMPARE(view.view(1)->window(), (TimeWindow{shared.t0_ns + offset, shared.t1_ns + offset}));
}

void CompareClassroomTest::classic_comparisons_open_as_tabs() {
  MainWindow window;
  const auto classics = classic_comparisons();
  QCOMPARE(classics.size(), std::size_t{3});
  const int before = window.tabs()->count();
  for (const ClassicComparison& c : classics) {
    QString error;
    CompareView* view = open_classic_comparison(&window, c, &error);
    QVERIFY2(view != nullptr, qPrintable(error));
    // Read and analysed in a worker: the tab is there at once, the runs once the worker is done.
    QSignalSpy loaded(view, &CompareView::files_loaded);
    QVERIFY(view->loading() || view->run_count() == 2);
    QVERIFY(view->run_count() == 2 || loaded.wait(120000));
    QCOMPARE(view->run_count(), 2);
    QCOMPARE(view->note(), c.note);
  }
  QCOMPARE(window.tabs()->count(), before + 3);
  // The bundled recordings have `processes`; a directory without it gets the stand-in and a note.
  QCOMPARE(classics[1].files, (QStringList{QStringLiteral("threads"), QStringLiteral("processes")}));
  QTemporaryDir empty;
  const auto stand_in = classic_comparisons(empty.path());
  QCOMPARE(stand_in[1].files, (QStringList{QStringLiteral("threads"), QStringLiteral("threads-streams")}));
  QVERIFY(stand_in[1].note.contains(QStringLiteral("processes scenario has no recording")));
  // sequential vs cuda-graph is offered only where cuda-graph is recorded (the bundled recordings lack it).
  QCOMPARE(stand_in.size(), std::size_t{3});
  for (const ClassicComparison& c : classics) QVERIFY(!c.files.contains(QStringLiteral("cuda-graph")));
  QTemporaryDir with_graph;
  QVERIFY(QFile(with_graph.filePath(QStringLiteral("cuda-graph.json.gz"))).open(QIODevice::WriteOnly));
  const auto graph_classics = classic_comparisons(with_graph.path());
  QCOMPARE(graph_classics.size(), std::size_t{4});
  QCOMPARE(graph_classics[3].title, QStringLiteral("sequential vs cuda-graph"));
  QCOMPARE(graph_classics[3].files, (QStringList{QStringLiteral("sequential"), QStringLiteral("cuda-graph")}));
  // Compare open traces: fewer than two trace tabs is a one-line message; with two, both are stacked.
  QString too_few;
  QVERIFY(compare_open_traces(&window, &too_few) == nullptr);
  QVERIFY(too_few.contains(QStringLiteral("two or more")));
  window.open_file(recording("sequential"))->document()->wait();
  window.open_file(recording("streams"))->document()->wait();
  QString none;
  CompareView* open = compare_open_traces_accepting(&window, &none);
  QVERIFY2(open != nullptr, qPrintable(none));
  QCOMPARE(open->run_count(), 2);
  auto seq = io::read_trace(recording("sequential").toStdString());
  QVERIFY(seq);
  QCOMPARE(open->anchor_ns(0), expected_anchor_ns(*seq));
  QCOMPARE(window.tabs()->count(), before + 6);
  QString error;
  QVERIFY(open_compare(&window, {recording("sequential"), QStringLiteral("/nonexistent/x.json")}, {}, &error) ==
          nullptr);
  QVERIFY(!error.isEmpty());
  QCOMPARE(window.tabs()->count(), before + 6);
}

void CompareClassroomTest::compare_panels_show_gpu_lanes_and_busy_strip() {
  CompareView view;
  view.resize(1200, 800);
  QCOMPARE(view.add_files({recording("sequential"), recording("streams")}), QString());
  const QStringList files = {recording("sequential"), recording("streams")};
  for (int run = 0; run < view.run_count(); ++run) {
    const TimelineView* v = view.view(run);
    const auto& lanes = v->trace()->lanes();
    // A GPU lane with nothing in the run's timed work (the default stream the streams run left) gives its room away.
    const LoadResult loaded = load_trace_file(files[run]);
    const PlaybackSpan span = classroom_playback_span(*loaded.trace, &loaded.analysis->report());
    int gpu_rows = 0;
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      const auto lane = static_cast<LaneIndex>(i);
      QCOMPARE(v->lane_state().collapsed_rows.count(event_lane_row_id(lanes[i].key)) == 1, !lanes[i].is_gpu());
      if (!lanes[i].is_gpu()) continue;
      const bool works = std::any_of(lanes[i].events.begin(), lanes[i].events.end(), [&](const Event& e) {
        return e.start_ns < span.end_ns && e.end_ns() > span.start_ns;
      });
      const int row = v->layout().row_of_lane(lane);
      QCOMPARE(row >= 0, works);  // shown, not in a collapsed group, where it works
      if (!works) continue;
      QVERIFY(!v->layout().rows()[static_cast<std::size_t>(row)].collapsed);
      ++gpu_rows;
    }
    QVERIFY(gpu_rows > 0);
    QVERIFY(!v->state().overlays.busy_gpus.empty());  // the run's own GPUs-busy strip
  }
  // A run with many host threads is scrolled down to its GPUs: the first GPU lane starts in view.
  CompareView tall;
  tall.resize(1200, 900);
  QCOMPARE(tall.add_files({recording("threads"), recording("streams")}), QString());
  tall.show();
  QVERIFY(QTest::qWaitForWindowExposed(&tall));
  QCoreApplication::processEvents();
  const TimelineView* v = tall.view(0);
  const auto& lanes = v->trace()->lanes();
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    if (!lanes[i].is_gpu()) continue;
    const LaneRow& row =
        v->layout().rows()[static_cast<std::size_t>(v->layout().row_of_lane(static_cast<LaneIndex>(i)))];
    QVERIFY2(row.top_px >= v->scroll_px() && row.bottom_px() <= v->scroll_px() + v->lane_rect().height(),
             qPrintable(QStringLiteral("lane %1 at %2, scroll %3, height %4")
                            .arg(i)
                            .arg(row.top_px)
                            .arg(v->scroll_px())
                            .arg(v->lane_rect().height())));
    break;
  }
  QCOMPARE(tall.fit_note(), QString());  // two runs fit at 900 px
  // Six runs at 900 px: the panels are too low for their GPU lanes, and the view says how many.
  CompareView six;
  six.resize(1200, 900);
  QCOMPARE(six.add_files({recording("sequential"), recording("streams"), recording("threads"), recording("processes"),
                          recording("copy-pinned"), recording("baseline")}),
           QString());
  six.show();
  QVERIFY(QTest::qWaitForWindowExposed(&six));
  QCoreApplication::processEvents();
  QVERIFY2(six.fit_note().contains(QStringLiteral(" of 6 panels cannot show their GPU lanes whole")),
           qPrintable(six.fit_note()));
  // Every panel starts at a row's top: no host row clipped at its top edge.
  for (int run = 0; run < 2; ++run) {
    const TimelineView* panel = tall.view(run);
    const auto& rows = panel->layout().rows();
    QVERIFY2(std::any_of(rows.begin(), rows.end(), [&](const LaneRow& r) { return r.top_px == panel->scroll_px(); }),
             qPrintable(QStringLiteral("run %1 scrolled to %2; max %3; tops %4")
                            .arg(run)
                            .arg(panel->scroll_px())
                            .arg(panel->layout().total_height_px() - panel->lane_rect().height())
                            .arg([&] {
                              QStringList tops;
                              for (const LaneRow& r : rows) tops << QString::number(r.top_px);
                              return tops.join(QLatin1Char(' '));
                            }())));
  }
}

// However short a panel, its bands (brackets above the lanes; warm-up labels, GPUs-busy strip and idle rows under
// them) never cover the lanes, and the lanes keep a group header and a row: the critical-path row under the GPUs
// is never drawn over by the strip.
void CompareClassroomTest::compare_panels_never_overlap_at_any_height() {
  CompareView view;
  view.resize(1200, 900);
  QCOMPARE(view.add_files({recording("sequential"), recording("streams"), recording("threads")}), QString());
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  bool some_band_left_out = false;
  for (int height = 900; height >= 240; height -= 30) {
    view.resize(1200, height);
    QCoreApplication::processEvents();
    for (int run = 0; run < view.run_count(); ++run) {
      TimelineView* v = view.view(run);
      v->replot_now();
      const TimelineState& st = v->state();
      const QRectF axis = v->plot()->axisRect()->rect();
      const QRectF lanes = v->lane_rect();
      const QString where = QStringLiteral("panel %1 at a view height of %2 px (axis rect %3 px)")
                                .arg(run)
                                .arg(height)
                                .arg(axis.height());
      const double min_lanes_px = std::min(v->layout().total_height_px(), readable_lanes_px(v->layout().options()));
      QVERIFY2(lanes.height() >= std::min(axis.height(), min_lanes_px) - 0.5, qPrintable(where));
      QVERIFY2(lanes.top() >= axis.top() + st.bands.above_px - 0.5, qPrintable(where));
      // Under the lanes, top to bottom: warm-up labels, the strip, the idle rows, all inside the axis rect; above
      // them the brackets; no band over another.
      const std::vector<std::string> below = {kWarmupLabelRowId, kBusyStripRowId, kIdleRowId};
      double below_px = lanes.bottom();
      for (const std::string& id : below)
        if (const std::optional<QRectF> band = st.band_rect(axis, id)) {
          QVERIFY2(band->top() >= below_px - 0.5, qPrintable(where + QString::fromStdString(" " + id)));
          QVERIFY2(band->bottom() <= axis.bottom() + 0.5, qPrintable(where + QString::fromStdString(" " + id)));
          below_px = band->bottom();
        }
      if (const std::optional<QRectF> brackets = st.band_rect(axis, kBracketRowId))
        QVERIFY2(brackets->top() >= axis.top() - 0.5 && brackets->bottom() <= lanes.top() + 0.5, qPrintable(where));
      QVERIFY2(st.bands.above_px + st.bands.below_px <= std::max(0.0, axis.height()) + 0.5, qPrintable(where));
      some_band_left_out = some_band_left_out || (!st.band_index(kBusyStripRowId) && !st.overlays.busy_gpus.empty()) ||
                           (!st.band_index(kIdleRowId) && !st.overlays.idle.empty());
      // The critical-path row, where the panel scrolls to it, lies in the lane area only.
      const auto& rows = v->layout().rows();
      for (const LaneRow& r : rows) {
        if (r.label.rfind("critical path", 0) != 0) continue;
        const double top = st.row_y(lanes, r.top_px);
        if (top < lanes.bottom())
          QVERIFY2(
              std::min(top + r.height_px, lanes.bottom()) <=
                  st.band_rect(axis, kBusyStripRowId).value_or(QRectF(axis.bottomLeft(), axis.bottomRight())).top() +
                      0.5,
              qPrintable(where));
      }
    }
  }
  QVERIFY(some_band_left_out);  // the heights tried reach panels too short for every band
  // Tall enough, nothing is left out.
  view.resize(1200, 1600);
  QCoreApplication::processEvents();
  for (int run = 0; run < view.run_count(); ++run) {
    view.view(run)->replot_now();
    QVERIFY(view.view(run)->state().band_index(kBusyStripRowId).has_value());
    QVERIFY(view.view(run)->state().band_index(kIdleRowId).has_value());
  }
}

// threads vs processes at 1700x950 (the documented screenshot): each panel opens on its GPUs with the critical-path
// row under them whole, neither cut by the lane area's edge nor under the strips.
void CompareClassroomTest::compare_panels_show_the_critical_path_row_whole() {
  CompareView view;
  view.resize(1700, 950);
  QCOMPARE(view.add_files({recording("threads"), recording("processes")}), QString());
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  QCoreApplication::processEvents();
  for (int run = 0; run < view.run_count(); ++run) {
    TimelineView* v = view.view(run);
    v->replot_now();
    const auto& rows = v->layout().rows();
    const auto path = std::find_if(rows.begin(), rows.end(), [](const LaneRow& r) {
      return r.kind == RowKind::Row && r.label.rfind("critical path", 0) == 0;
    });
    QVERIFY2(path != rows.end(), "the recordings have a critical path");
    const double shown_to_px = v->scroll_px() + v->lane_rect().height();
    QVERIFY2(path->top_px >= v->scroll_px() && path->bottom_px() <= shown_to_px + 0.5,
             qPrintable(QStringLiteral("panel %1: the row at %2-%3 px, the panel shows %4-%5 px")
                            .arg(run)
                            .arg(path->top_px)
                            .arg(path->bottom_px())
                            .arg(v->scroll_px())
                            .arg(shown_to_px)));
    // And the first GPU header is in view.
    const auto gpu =
        std::find_if(rows.begin(), rows.end(), [](const LaneRow& r) { return r.kind == RowKind::DeviceHeader; });
    QVERIFY(gpu->top_px >= v->scroll_px() && gpu->bottom_px() <= shown_to_px);
  }
}

void CompareClassroomTest::compare_window_covers_every_run_whole() {
  CompareView view;
  view.resize(1200, 800);
  QCOMPARE(view.add_files({recording("sequential"), recording("streams")}), QString());
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.fit();
  for (int run = 0; run < view.run_count(); ++run) {
    const Trace& t = *view.view(run)->trace();
    const TimeWindow w = view.view(run)->window();
    QVERIFY2(w.t0_ns <= t.start_ns() && w.t1_ns >= t.end_ns(), qPrintable(QString::number(run)));
    // Locked: each run shows run 0's window shifted by its offset.
    QCOMPARE(w, (TimeWindow{view.view(0)->window().t0_ns + view.offset_ns(run),
                            view.view(0)->window().t1_ns + view.offset_ns(run)}));
  }
}

// The compare opens on the runs' timed work, not the whole traces (start-up would squeeze the loops into the right
// fifth), and each axis counts from its run's alignment point, so no label is negative there.
void CompareClassroomTest::compare_loads_runs_off_the_ui_thread() {
  // The runs are read and analysed in a worker: the view says what it loads, then holds the same runs, headers
  // and alignment as a view that loaded them in the calling thread.
  CompareView direct;
  QCOMPARE(direct.add_files({recording("sequential"), recording("streams")}), QString());
  CompareView view;
  QSignalSpy loaded(&view, &CompareView::files_loaded);
  view.load_files({recording("sequential"), recording("streams")});
  QVERIFY(view.loading());
  QCOMPARE(view.run_count(), 0);
  bool says_loading = false;
  for (const QLabel* l : view.findChildren<QLabel*>(QString(), Qt::FindDirectChildrenOnly))
    says_loading = says_loading || l->text().contains(QStringLiteral("analysing 2 runs: sequential, streams"));
  QVERIFY(says_loading);
  QVERIFY(loaded.wait(120000));
  QCOMPARE(loaded.first().first().toString(), QString());
  QCOMPARE(view.run_count(), 2);
  for (int run = 0; run < 2; ++run) {
    QCOMPARE(view.figures_text(run), direct.figures_text(run));
    QCOMPARE(view.anchor_ns(run), direct.anchor_ns(run));
  }
  // A file that does not read as a trace is the error, and no run is added.
  QTemporaryDir dir;
  const QString bad = dir.filePath(QStringLiteral("bad.json"));
  {
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"traceEvents\": [ {\"ph\": ");
  }
  CompareView failing;
  QSignalSpy failed(&failing, &CompareView::files_loaded);
  failing.load_files({recording("sequential"), bad});
  QVERIFY(failed.wait(120000));
  QVERIFY(failed.first().first().toString().contains(QStringLiteral("bad.json")));
  QCOMPARE(failing.run_count(), 0);
}

void CompareClassroomTest::compare_opens_on_the_aligned_timed_work() {
  CompareView view;
  view.resize(1200, 800);
  QCOMPARE(view.add_files({recording("sequential"), recording("streams")}), QString());
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  const TimeWindow w0 = view.view(0)->window();
  TimeNs whole_ns = 0;
  for (int run = 0; run < view.run_count(); ++run) {
    const LoadResult loaded = load_trace_file(recording(run == 0 ? "sequential" : "streams"));
    const analysis::Region region = loaded.analysis->report().region;
    QVERIFY(region.from_measurements);
    // Each run's timed measurements lie inside the window shown beside it.
    const TimeWindow w = view.view(run)->window();
    QVERIFY2(w.t0_ns <= region.start_ns && w.t1_ns >= region.end_ns, qPrintable(QString::number(run)));
    QCOMPARE(w, (TimeWindow{w0.t0_ns + view.offset_ns(run), w0.t1_ns + view.offset_ns(run)}));
    whole_ns = std::max(whole_ns, loaded.trace->end_ns() - loaded.trace->start_ns());
  }
  QVERIFY2(w0.span_ns() < whole_ns / 2, qPrintable(QString::number(w0.span_ns())));
  QVERIFY(view.view(0)->plot()->xAxis->label().contains(QStringLiteral("aligned")));
  // F still fits every run whole.
  view.fit();
  QVERIFY(view.view(0)->window().span_ns() > w0.span_ns());
}

void CompareClassroomTest::compare_never_wider_than_the_screen() {
  MainWindow window;
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  const int screen_px = window.screen()->availableGeometry().width();
  const int before_px = window.width();
  window.open_file(recording("sequential"))->document()->wait();
  window.open_file(recording("streams"))->document()->wait();
  QString error;
  CompareView* view = compare_open_traces_accepting(&window, &error);
  QVERIFY2(view != nullptr, qPrintable(error));
  QVERIFY(view->sizeHint().width() <= screen_px);
  QVERIFY(view->minimumSizeHint().width() <= screen_px);
  QCoreApplication::processEvents();
  QVERIFY2(window.width() <= std::max(before_px, screen_px),
           qPrintable(QStringLiteral("%1 > %2").arg(window.width()).arg(screen_px)));
  QVERIFY(window.minimumSizeHint().width() <= screen_px);
}

void CompareClassroomTest::classroom_hides_gpu_lanes_until_revealed() {
  auto loaded = io::read_trace(recording("sequential").toStdString());
  QVERIFY(loaded);
  auto trace = std::make_shared<const Trace>(std::move(loaded.value()));
  ClassroomView view;
  view.resize(1600, 900);
  view.set_trace(trace);
  const std::string md = file_text(GTV_SOURCE_DIR "/resources/scenarios/sequential.md");
  const QString lesson = QString::fromStdString(exp::lesson_sentence(md));
  QVERIFY(!lesson.isEmpty());
  QVERIFY(view.lesson().contains(lesson));
  std::set<LaneIndex> gpu_lanes;
  for (LaneIndex i = 0; i < trace->lanes().size(); ++i)
    if (trace->lane(i).is_gpu()) gpu_lanes.insert(i);
  QVERIFY(!gpu_lanes.empty());
  QVERIFY(!view.gpu_revealed());
  std::set<LaneIndex> launching;
  for (const Flow& f : trace->flows())
    if (f.kind == FlowKind::LaunchToGpu) launching.insert(f.from.lane);
  for (LaneIndex i = 0; i < trace->lanes().size(); ++i) {
    if (gpu_lanes.count(i) != 0 || launching.count(i) != 0)  // helper threads that launched nothing stay hidden
      QCOMPARE(view.view()->lane_state().hidden_rows.count(event_lane_row_id(trace->lane(i).key)), gpu_lanes.count(i));
  }
  // The status line counts the launches waiting at the cursor; GPU work running appears only once revealed.
  const TimeNs t = expected_anchor_ns(*trace) - 1;
  int queued = 0;
  for (const Flow& f : trace->flows())
    if (trace->event(f.from).start_ns <= t && trace->event(f.to).start_ns > t) ++queued;
  QVERIFY(queued > 0);
  view.set_cursor_ns(t);
  const QString waiting = queued == 1 ? QStringLiteral(" 1 launch waiting for the GPU")
                                      : QStringLiteral(" %1 launches waiting for the GPU").arg(queued);
  QVERIFY2(view.status_text().contains(waiting), qPrintable(view.status_text()));
  QVERIFY(!view.status_text().contains(QStringLiteral("running")));
  QVERIFY(!view.status_text().contains(QStringLiteral("idle")));
  view.set_gpu_revealed(true);
  // Two GPUs in this recording: the sentence says how many kernels and copies run on them, in words.
  int running = 0;
  for (const Lane& lane : trace->lanes())
    for (const Event& e : lane.events)
      if (lane.is_gpu() && is_gpu_activity(e.kind) && e.start_ns <= t && t < e.end_ns()) ++running;
  const QString expected = running == 0   ? QStringLiteral("every GPU is idle")
                           : running == 1 ? QStringLiteral("1 kernel or copy running on the GPUs")
                                          : QStringLiteral("%1 kernels and copies running on the GPUs").arg(running);
  QVERIFY2(view.status_text().contains(expected), qPrintable(view.status_text()));
  for (LaneIndex i : gpu_lanes)
    QCOMPARE(view.view()->lane_state().hidden_rows.count(event_lane_row_id(trace->lane(i).key)), std::size_t{0});
  QVERIFY(view.view()->theme().font_scale >= 2.0);
  QCOMPARE(view.view()->theme().background, QColor(0, 0, 0));
}

void CompareClassroomTest::classroom_playback_reaches_the_end() {
  auto loaded = io::read_trace(recording("streams").toStdString());
  QVERIFY(loaded);
  auto trace = std::make_shared<const Trace>(std::move(loaded.value()));
  ClassroomView view;
  view.resize(1200, 700);
  view.set_trace(trace);
  view.set_playback_duration_ms(400);
  // Without timed measurements, playback covers the steady part: start-up is skipped.
  const auto steady = analysis::steady_part(*trace);
  QVERIFY(steady.has_value());
  QCOMPARE(view.playback_span().start_ns, steady->start_ns);
  QCOMPARE(view.playback_span().end_ns, steady->end_ns);
  QCOMPARE(view.cursor_ns(), steady->start_ns);
  QSignalSpy moved(&view, &ClassroomView::cursor_moved);
  QSignalSpy finished(&view, &ClassroomView::playback_finished);
  view.play();
  QVERIFY(view.is_playing());
  QVERIFY(finished.wait(60000));
  QCOMPARE(view.cursor_ns(), steady->end_ns);
  QVERIFY(!view.is_playing());
  const TimeNs span = steady->length_ns();
  const TimeNs step = view.step_ns();
  QCOMPARE(step, (span + 9) / 10);  // 400 ms in 40 ms ticks: 10 steps
  QCOMPARE(moved.count(), static_cast<int>((span + step - 1) / step));
  // Each step moved the cursor forward by one step (the last one stops at the end).
  for (int i = 0; i + 1 < moved.count(); ++i) QCOMPARE(moved[i][0].value<TimeNs>(), steady->start_ns + step * (i + 1));
  QCOMPARE(moved.last()[0].value<TimeNs>(), steady->end_ns);
}

void CompareClassroomTest::classroom_fades_what_is_after_the_cursor() {
  auto loaded = io::read_trace(recording("sequential").toStdString());
  QVERIFY(loaded);
  auto trace = std::make_shared<const Trace>(std::move(loaded.value()));
  ClassroomView view;
  view.resize(1600, 900);
  view.set_trace(trace);
  view.set_gpu_revealed(true);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.view()->fit();
  // The longest GPU kernel: wide enough that its centre pixel is its own colour.
  std::optional<EventRef> longest;
  TimeNs longest_ns = 0;
  for (LaneIndex l = 0; l < trace->lanes().size(); ++l) {
    const Lane& lane = trace->lane(l);
    for (std::uint32_t i = 0; lane.is_gpu() && i < lane.events.size(); ++i)
      if (lane.events[i].kind == EventKind::Kernel && lane.events[i].duration_ns > longest_ns) {
        longest_ns = lane.events[i].duration_ns;
        longest = EventRef{l, i};
      }
  }
  QVERIFY(longest.has_value());
  auto grab_at = [&](TimeNs cursor_ns) {
    view.set_cursor_ns(cursor_ns);
    view.view()->replot_now();
    return view.grab().toImage();
  };
  const auto centre = view.view()->event_center(*longest);
  QVERIFY(centre.has_value());
  const QPoint p = view.view()->plot()->mapTo(&view, centre->toPoint());
  const QColor shown = grab_at(trace->end_ns()).pixelColor(p);    // cursor at the end: nothing faded
  const QColor faded = grab_at(trace->start_ns()).pixelColor(p);  // cursor at the start: all of it after
  QVERIFY2(shown.value() > 80, qPrintable(shown.name()));         // a kernel colour, not the black background
  // The fade covers it with the background (black) at 225/255: about an eighth of the colour is left.
  for (auto channel : {&QColor::red, &QColor::green, &QColor::blue})
    QVERIFY2((faded.*channel)() <= (shown.*channel)() * 30 / 255 + 2,
             qPrintable(shown.name() + QStringLiteral(" -> ") + faded.name()));
}

void CompareClassroomTest::classroom_plays_the_timed_loop() {
  const LoadResult loaded = load_trace_file(recording("sequential"));
  QVERIFY2(loaded.error.isEmpty(), qPrintable(loaded.error));
  const analysis::Region region = loaded.analysis->report().region;
  QVERIFY(region.from_measurements);
  QVERIFY(region.start_ns > loaded.trace->start_ns());
  ClassroomView view;
  view.resize(1200, 700);
  view.set_trace(loaded.trace, {}, loaded.analysis);
  view.set_playback_duration_ms(200);
  QCOMPARE(view.cursor_ns(), region.start_ns);
  QSignalSpy finished(&view, &ClassroomView::playback_finished);
  view.play();
  QVERIFY(finished.wait(60000));
  QCOMPARE(view.cursor_ns(), region.end_ns);
  // Play again from the end starts over at the region's start, not the trace's.
  view.play();
  QVERIFY(view.cursor_ns() <= region.start_ns + view.step_ns());
  QVERIFY(view.cursor_ns() >= region.start_ns);
  view.pause();
  view.restart();
  QCOMPARE(view.cursor_ns(), region.start_ns);
}

void CompareClassroomTest::classroom_click_seeks() {
  const LoadResult loaded = load_trace_file(recording("sequential"));
  QVERIFY(loaded.error.isEmpty());
  ClassroomView view;
  view.resize(1600, 900);
  view.set_trace(loaded.trace, {}, loaded.analysis);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.view()->fit();
  const QRectF lanes = view.view()->lane_rect();
  const QPoint at(static_cast<int>(lanes.left() + lanes.width() * 0.3), static_cast<int>(lanes.center().y()));
  const TimeNs expected = TimeMapping(view.view()->window(), lanes.width()).time_at(at.x() - lanes.left());
  QVERIFY(expected != view.cursor_ns());
  QTest::mouseClick(view.view()->plot(), Qt::LeftButton, {}, at);
  QCOMPARE(view.cursor_ns(), expected);
  // A drag pans the timeline; it does not seek.
  const TimeNs before = view.cursor_ns();
  QTest::mousePress(view.view()->plot(), Qt::LeftButton, {}, at);
  QTest::mouseMove(view.view()->plot(), at + QPoint(200, 0));
  QTest::mouseRelease(view.view()->plot(), Qt::LeftButton, {}, at + QPoint(200, 0));
  QCOMPARE(view.cursor_ns(), before);
}

void CompareClassroomTest::classroom_lesson_only_after_reveal() {
  const LoadResult loaded = load_trace_file(recording("sequential"));
  QVERIFY(loaded.error.isEmpty());
  ClassroomView view;
  view.resize(1600, 900);
  view.set_trace(loaded.trace, {}, loaded.analysis);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  QVERIFY(!view.lesson().isEmpty());
  QVERIFY(!view.lesson_shown());
  QVERIFY(!view.grab().isNull());
  view.set_gpu_revealed(true);
  QVERIFY(view.lesson_shown());
  view.set_gpu_revealed(false);
  QVERIFY(!view.lesson_shown());
}

void CompareClassroomTest::classroom_f11_toggles_full_screen() {
  const LoadResult loaded = load_trace_file(recording("sequential"));
  QVERIFY(loaded.error.isEmpty());
  ClassroomView view;
  view.resize(1200, 700);
  view.set_trace(loaded.trace, {}, loaded.analysis);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.activateWindow();
  QVERIFY(QTest::qWaitForWindowActive(&view));
  QVERIFY(!view.isFullScreen());
  QTest::keyClick(&view, Qt::Key_F11);
  QTRY_VERIFY(view.isFullScreen());
  QVERIFY(view.is_full_screen());
  QTest::keyClick(&view, Qt::Key_Escape);
  QTRY_VERIFY(!view.isFullScreen());
  QTest::keyClick(&view, Qt::Key_F11);
  QTRY_VERIFY(view.isFullScreen());
  QTest::keyClick(&view, Qt::Key_F11);
  QTRY_VERIFY(!view.isFullScreen());
}

// Full screen from the main window shows the classroom alone: no menus, toolbar, tabs, status bar or panels; the
// timed work from its start; the thread that launched the GPU work open down to its launches, the tracer's own
// thread hidden. Leaving full screen brings back exactly what was there.
void CompareClassroomTest::classroom_projector_view_is_the_lesson_alone() {
  MainWindow window;
  window.resize(1400, 800);
  TraceTab* tab = window.open_file(QStringLiteral(GTV_SOURCE_DIR "/resources/traces/h200x1/sequential.json.gz"));
  tab->document()->wait();
  QCoreApplication::processEvents();
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  ClassroomView* view = open_classroom(&window);
  QVERIFY(view != nullptr);
  const auto trace = tab->document()->trace();
  const analysis::Region region = tab->document()->analysis()->report().region;
  QCOMPARE(view->cursor_ns(), region.start_ns);
  QVERIFY(view->view()->window().t0_ns <= region.start_ns);
  QVERIFY(view->view()->window().t1_ns >= region.end_ns);
  QVERIFY(view->view()->window().span_ns() < 2 * region.length_ns());  // the timed work fills the view
  std::set<LaneIndex> launching;
  for (const Flow& f : trace->flows())
    if (f.kind == FlowKind::LaunchToGpu) launching.insert(f.from.lane);
  QVERIFY(!launching.empty());
  int hidden_threads = 0;
  for (LaneIndex i = 0; i < trace->lanes().size(); ++i) {
    if (trace->lane(i).is_gpu()) continue;
    const bool launched = launching.count(i) != 0;
    const std::string id = event_lane_row_id(trace->lane(i).key);
    if (launched) QCOMPARE(view->view()->lane_state().collapsed_rows.count(id), std::size_t{0});
    QCOMPARE(view->view()->lane_state().hidden_rows.count(id), launched ? std::size_t{0} : std::size_t{1});
    hidden_threads += launched ? 0 : 1;
  }
  QVERIFY(hidden_threads > 0);  // the recording has a CUPTI helper thread that launched nothing
  QVERIFY(window.menuBar()->isVisible());
  QVERIFY(window.tabs()->tabBar()->isVisible());
  QToolBar* toolbar = window.findChild<QToolBar*>();
  QVERIFY(toolbar != nullptr && toolbar->isVisible());
  view->set_full_screen(true);
  QVERIFY(window.projector_view());
  QVERIFY(!window.menuBar()->isVisible());
  QVERIFY(!window.tabs()->tabBar()->isVisible());
  QVERIFY(!window.statusBar()->isVisible());
  QVERIFY(!toolbar->isVisible());
  QVERIFY(view->isVisible());
  view->set_full_screen(false);
  QVERIFY(!window.projector_view());
  QVERIFY(window.menuBar()->isVisible());
  QVERIFY(window.tabs()->tabBar()->isVisible());
  QVERIFY(toolbar->isVisible());
  // Going to another tab ends the projector view too.
  view->set_full_screen(true);
  window.tabs()->setCurrentWidget(tab);
  QVERIFY(!window.projector_view());
  QVERIFY(window.tabs()->tabBar()->isVisible());
  QVERIFY(!view->is_full_screen());
}

QTEST_MAIN(CompareClassroomTest)
#include "compare_classroom_test.moc"
