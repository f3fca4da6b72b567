// QtTest (offscreen): the timeline view, its interaction, documents in the main window, and export.
#include "gtv/ui/timeline_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHeaderView>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QtTest/QtTest>
#include <cmath>
#include <set>
#include <string>

#include "bench/synthetic_trace.h"
#include "gtv/analysis/kernel_stats.h"
#include "gtv/io/trace_file.h"
#include "gtv/ui/critical_path_row.h"
#include "gtv/ui/document_analysis.h"
#include "gtv/ui/event_lane_row.h"
#include "gtv/ui/export.h"
#include "gtv/ui/first_view.h"
#include "gtv/ui/lane_plottable.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/side_panels.h"
#include "gtv/ui/timeline_layers.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_tab.h"
#include "gtv/ui/work_owner.h"
#include "test_traces.h"

using namespace gtv;
using namespace gtv::ui;

class TimelineViewTest : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<TimelineView> make_view(int width = 1000, int height = 600) {
    auto view = std::make_unique<TimelineView>();
    view->resize(width, height);
    view->set_trace(std::make_shared<const Trace>(test::small_trace()));
    view->replot_now();
    return view;
  }
  static EventRef find(const Trace& t, std::string_view name) {
    for (LaneIndex l = 0; l < t.lanes().size(); ++l)
      for (std::uint32_t i = 0; i < t.lane(l).events.size(); ++i)
        if (t.name(t.lane(l).events[i]) == name) return {l, i};
    return {};
  }

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void lanesOfATrace() {
    auto view = make_view();
    const auto& rows = view->layout().rows();
    QCOMPARE(rows.size(), std::size_t{6});  // process header, thread, GPU 0 header, stream, GPU 1 header, stream
    QCOMPARE(rows[0].label, std::string("Process 100  python"));
    QCOMPARE(rows[1].kind, RowKind::Row);
    QVERIFY(rows[1].lane.has_value());
    QCOMPARE(rows[1].depth_rows, 2);  // forward with launches nested inside
    QCOMPARE(rows[2].label, std::string("GPU 0  NVIDIA H200"));
    QCOMPARE(rows[4].label, std::string("GPU 1  NVIDIA H200"));
    QCOMPARE(view->trace()->lane(rows[5].lane.value()).key, gpu_lane_key(1, 7));
  }

  void fitShowsTheTraceWithMargins() {
    auto view = make_view();
    QCOMPARE(view->window(), fit_window(0, 100'000));
    QCOMPARE(view->window(), (TimeWindow{-2'000, 102'000}));
  }

  static void send_wheel(TimelineView& view, QPointF pos, QPoint delta, Qt::KeyboardModifiers mods) {
    QWheelEvent wheel(pos, view.plot()->mapToGlobal(pos), QPoint(), delta, Qt::NoButton, mods, Qt::NoScrollPhase,
                      false);
    QApplication::sendEvent(view.plot(), &wheel);
  }

  // Perfetto's and Nsight Systems' convention: Ctrl+wheel zooms at the mouse, the plain wheel scrolls the rows,
  // Shift+wheel pans in time.
  // Once the file is read the load says the analysis runs (a 10M-event trace spends most of its wait there), and
  // the fractions before it stay within 0..1.
  void loadingSaysWhenTheAnalysisRuns() {
    std::vector<double> seen;
    const LoadResult loaded =
        load_trace_file(QStringLiteral(GTV_SOURCE_DIR "/resources/traces/h200x2/sequential.json.gz"), [&](double f) {
          seen.push_back(f);
          return true;
        });
    QVERIFY(loaded.error.isEmpty());
    QVERIFY(seen.size() >= 2);
    QCOMPARE(seen.back(), kAnalysingProgress);
    for (std::size_t i = 0; i + 1 < seen.size(); ++i) QVERIFY(seen[i] >= 0 && seen[i] <= 1);
    TraceDocument document(QStringLiteral(GTV_SOURCE_DIR "/resources/traces/h200x2/sequential.json.gz"));
    QSignalSpy analysing(&document, &TraceDocument::analysing);
    QSignalSpy done(&document, &TraceDocument::loaded);
    document.load();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 30000);
    QCOMPARE(analysing.count(), 1);
  }

  // A row name too long for the label column keeps its end, which tells rows apart (the unit, the thread id).
  void longRowNamesKeepTheirEnd() {
    const QFontMetricsF metrics{QFont()};
    const QString label = QStringLiteral("device memory allocated since start (bytes)");
    const QString arrow = QStringLiteral("\u25BE ");
    QCOMPARE(header_label_text(arrow, label, metrics.horizontalAdvance(arrow + label) + 1, metrics), arrow + label);
    const QString cut = header_label_text(arrow, label, metrics.horizontalAdvance(arrow + label) * 0.6, metrics);
    QVERIFY2(cut.startsWith(arrow + QStringLiteral("device")), qPrintable(cut));
    QVERIFY2(cut.endsWith(QStringLiteral("(bytes)")), qPrintable(cut));
    QVERIFY2(cut.contains(QChar(0x2026)), qPrintable(cut));
    QVERIFY(metrics.horizontalAdvance(cut) <= metrics.horizontalAdvance(arrow + label) * 0.6);
  }

  void ctrlWheelZoomsAtTheCursor() {
    auto view = make_view();
    const TimeWindow before = view->window();
    const QRectF lanes = view->lane_rect();
    const QPointF pos(lanes.left() + 300, lanes.top() + 10);
    const TimeNs anchor = TimeMapping(before, lanes.width()).time_at(300);
    send_wheel(*view, pos, QPoint(0, 120), Qt::ControlModifier);
    QCOMPARE(view->window(), zoom_window(before, anchor, 1.25));
  }

  void plainWheelScrollsAndShiftWheelPans() {
    auto view = make_view(1000, 120);  // shorter than the rows: there is something to scroll
    QVERIFY(view->max_scroll_px() > 0);
    view->zoom_by(4);  // room to pan: the view keeps the trace in sight
    const TimeWindow before = view->window();
    const QRectF lanes = view->lane_rect();
    const QPointF pos(lanes.left() + 300, lanes.top() + 10);
    send_wheel(*view, pos, QPoint(0, -120), Qt::NoModifier);
    QCOMPARE(view->window(), before);
    QVERIFY(view->scroll_px() > 0);
    send_wheel(*view, pos, QPoint(0, 120), Qt::NoModifier);
    QCOMPARE(view->scroll_px(), 0.0);
    send_wheel(*view, pos, QPoint(0, -120), Qt::ShiftModifier);  // the wheel turned down: later in time
    QCOMPARE(view->window(), pan_window(before, 0.1 * lanes.width(), lanes.width()));
    QCOMPARE(view->scroll_px(), 0.0);
  }

  void keysZoomAndPan() {
    auto view = make_view();
    const double width = view->lane_rect().width();
    TimeWindow expected = view->window();
    QTest::keyClick(view->plot(), Qt::Key_Plus);
    expected = zoom_window(expected, expected.t0_ns + expected.span_ns() / 2, 1.5);
    QCOMPARE(view->window(), expected);
    QTest::keyClick(view->plot(), Qt::Key_W);
    expected = zoom_window(expected, expected.t0_ns + expected.span_ns() / 2, 1.5);
    QCOMPARE(view->window(), expected);
    QTest::keyClick(view->plot(), Qt::Key_D);
    expected = pan_window(expected, 0.1 * width, width);
    QCOMPARE(view->window(), expected);
    QTest::keyClick(view->plot(), Qt::Key_A);
    expected = pan_window(expected, -0.1 * width, width);
    QCOMPARE(view->window(), expected);
    QTest::keyClick(view->plot(), Qt::Key_F);
    QCOMPARE(view->window(), fit_window(0, 100'000));
  }

  void dragPansAndCtrlDragZoomsToTheBox() {
    auto view = make_view();
    view->zoom_by(4);
    const TimeWindow before = view->window();
    const QRectF lanes = view->lane_rect();
    const QPoint a(static_cast<int>(lanes.left()) + 400, static_cast<int>(lanes.top()) + 5);
    const QPoint b = a - QPoint(100, 0);
    QTest::mousePress(view->plot(), Qt::LeftButton, Qt::NoModifier, a);
    QTest::mouseMove(view->plot(), b);
    QTest::mouseRelease(view->plot(), Qt::LeftButton, Qt::NoModifier, b);
    QCOMPARE(view->window(), pan_window(before, 100, lanes.width()));

    view->fit();
    const TimeWindow fitted = view->window();
    const TimeMapping map(fitted, lanes.width());
    const QPoint c(static_cast<int>(lanes.left()) + 200, static_cast<int>(lanes.top()) + 5);
    const QPoint d = c + QPoint(300, 20);
    QTest::mousePress(view->plot(), Qt::LeftButton, Qt::ControlModifier, c);
    QTest::mouseMove(view->plot(), d);
    QTest::mouseRelease(view->plot(), Qt::LeftButton, Qt::ControlModifier, d);
    QCOMPARE(view->window(), (TimeWindow{map.time_at(c.x() - lanes.left()), map.time_at(d.x() - lanes.left())}));
  }

  void shiftDragMeasures() {
    auto view = make_view();
    const QRectF lanes = view->lane_rect();
    const TimeMapping map(view->window(), lanes.width());
    const QPoint a(static_cast<int>(lanes.left()) + 500, static_cast<int>(lanes.top()) + 5);
    const QPoint b = a - QPoint(250, 0);
    QTest::mousePress(view->plot(), Qt::LeftButton, Qt::ShiftModifier, a);
    QTest::mouseMove(view->plot(), b);
    QTest::mouseRelease(view->plot(), Qt::LeftButton, Qt::ShiftModifier, b);
    QVERIFY(view->measured().has_value());
    QCOMPARE(*view->measured(), (TimeWindow{map.time_at(250), map.time_at(500)}));
  }

  void tooltipOfAKernel() {
    auto view = make_view();
    const EventRef gemm = find(*view->trace(), "gemm_big");
    const auto centre = view->event_center(gemm);
    QVERIFY(centre.has_value());
    QCOMPARE(view->tooltip_at(*centre), QStringLiteral("gemm_big\n"
                                                       "start: 50.000 us\n"
                                                       "duration: 40.000 us\n"
                                                       "where: GPU 0 / stream 7\n"
                                                       "correlation: 2\n"
                                                       "launched by: cudaLaunchKernel (Process 100 / thread 1)\n"
                                                       "grid: (128, 1, 1)\n"
                                                       "block: (256, 1, 1)\n"
                                                       "registers/thread: 32\n"
                                                       "shared memory: 0 bytes"));
  }

  void clickSelectsAndJumpsAlongTheFlow() {
    auto view = make_view();
    DetailsPanel details(view.get());
    const EventRef gemm = find(*view->trace(), "gemm_big");
    const QPoint centre = view->event_center(gemm)->toPoint();
    QTest::mouseClick(view->plot(), Qt::LeftButton, Qt::NoModifier, centre);
    QVERIFY(view->selected().has_value());
    QCOMPARE(*view->selected(), gemm);
    QVERIFY(details.text().contains(QStringLiteral("launched by")));
    QVERIFY(view->jump_to_flow());
    const EventRef launch = view->trace()->flow_of(gemm)->from;
    QCOMPARE(*view->selected(), launch);
    QCOMPARE(view->trace()->event(launch).correlation_id, std::uint64_t{2});
  }

  void searchFindsKernelsInTimeOrder() {
    auto view = make_view();
    QCOMPARE(view->set_search(QStringLiteral("_")), std::size_t{2});  // gemm_big, relu_small
    QVERIFY(view->search_next());
    QCOMPARE(view->trace()->name(view->trace()->event(*view->selected())), std::string_view("gemm_big"));
    QVERIFY(view->search_next());
    QCOMPARE(view->trace()->name(view->trace()->event(*view->selected())), std::string_view("relu_small"));
    QVERIFY(view->search_previous());
    QCOMPARE(view->trace()->name(view->trace()->event(*view->selected())), std::string_view("gemm_big"));
    QCOMPARE(view->search_position(), std::optional<std::size_t>(0));
  }

  // A collapsed group says what it holds, on its header band.
  void collapsedGroupsSayWhatTheyHold() {
    const Trace trace = test::small_trace();
    const std::map<GroupKey, std::string> summaries = group_summaries(trace);
    QCOMPARE(summaries.at({LaneKind::GpuStream, 0}), std::string("1 stream \u00b7 2 kernels"));
    QCOMPARE(summaries.at({LaneKind::GpuStream, 1}), std::string("1 stream \u00b7 1 kernel"));
    QCOMPARE(summaries.at({LaneKind::HostThread, test::kPid}), std::string("1 thread \u00b7 4 events"));
    auto view = make_view();
    view->toggle_group({LaneKind::GpuStream, 0});
    QCOMPARE(view->state().group_summaries.at({LaneKind::GpuStream, 0}), summaries.at({LaneKind::GpuStream, 0}));
    const QImage image = view->plot()->toPixmap().toImage();
    // The header band of the collapsed GPU 0 holds text (dark pixels) where an expanded header is a plain fill.
    const LaneRow& header = view->layout().rows().at(2);
    QVERIFY(header.collapsed);
    const QRectF lanes = view->lane_rect();
    const int y = static_cast<int>(lanes.top() + header.top_px + header.height_px / 2);
    int dark = 0;
    for (int x = static_cast<int>(lanes.left()); x < static_cast<int>(lanes.left()) + 200; ++x)
      dark += qGray(image.pixel(x, y)) < 128 ? 1 : 0;
    QVERIFY2(dark > 5, qPrintable(QString::number(dark)));
  }

  // A block of kernels of several owners shows who ran when: each stretch in the colour of the owner whose kernels
  // ran there, in the order they ran, never one colour for the whole block.
  void ownerStripesShowWhoRanWhen() {
    TraceBuilder b;
    const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
    constexpr int kKernels = 40'000;  // 1 us each, 0.5 us apart: dozens to a pixel at full view
    constexpr int kRun = 4'000;       // the two models take turns, 6 ms each
    for (int i = 0; i < kKernels; ++i) {
      Event e;
      e.start_ns = TimeNs{i} * 1500;
      e.duration_ns = 1000;
      e.kind = EventKind::Kernel;
      e.name = b.intern("k");
      b.add_event(gpu, e);
    }
    auto trace = std::make_shared<const Trace>(std::move(b.build().value()));
    auto owners = std::make_shared<WorkOwners>();
    owners->names = {"model 0 forward", "model 1 forward"};
    owners->colors = owner_colors(owners->names);
    owners->of_event.resize(trace->lanes().size());
    for (int i = 0; i < kKernels; ++i) owners->of_event[gpu].push_back(static_cast<std::uint16_t>((i / kRun) % 2));
    owners->gpu_events = owners->owned_events = kKernels;
    TimelineView view;
    view.resize(1200, 400);
    view.set_trace(trace);
    OverlayData overlays;
    overlays.owners = owners;
    view.set_overlays(overlays);
    view.set_color_mode(ColorMode::Owner);
    view.fit();
    view.replot_now();
    const QImage image = view.plot()->toPixmap().toImage();
    const LaneRow& row = view.layout().rows().at(static_cast<std::size_t>(view.layout().row_of_lane(gpu)));
    const QRectF lanes = view.lane_rect();
    const TimeMapping map(view.window(), lanes.width());
    const int y = static_cast<int>(lanes.top() + row.top_px + row.height_px / 2);
    const QColor stripe[2] = {QColor::fromRgb(owners->colors[0]).darker(125),
                              QColor::fromRgb(owners->colors[1]).darker(125)};
    auto distance = [](const QColor& c, const QColor& to) {
      return std::abs(c.red() - to.red()) + std::abs(c.green() - to.green()) + std::abs(c.blue() - to.blue());
    };
    for (int run = 0; run < kKernels / kRun; ++run) {
      const TimeNs mid_ns = (TimeNs{run} * kRun + kRun / 2) * 1500;
      const int x = static_cast<int>(lanes.left() + map.x_of(mid_ns));
      int votes[2] = {0, 0};
      for (int dx = -4; dx <= 4; ++dx) {
        const QColor c = image.pixelColor(x + dx, y);
        ++votes[distance(c, stripe[0]) <= distance(c, stripe[1]) ? 0 : 1];
      }
      QVERIFY2(votes[run % 2] > votes[1 - run % 2],
               qPrintable(QStringLiteral("run %1 at x %2: %3 pixels of model 0, %4 of model 1")
                              .arg(run)
                              .arg(x)
                              .arg(votes[0])
                              .arg(votes[1])));
    }
  }

  // Next zooms in on a match too narrow to read at the current zoom, and says which match it is.
  void searchNextZoomsToANarrowMatch() {
    TraceBuilder b;
    const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
    for (int i = 0; i < 3; ++i) {  // kernels of 1 us every 10 ms: under a pixel at full view
      Event e;
      e.start_ns = i * 10'000'000;
      e.duration_ns = 1000;
      e.kind = EventKind::Kernel;
      e.name = b.intern("tiny");
      b.add_event(gpu, e);
    }
    TimelineView view;
    view.resize(1000, 400);
    view.set_trace(std::make_shared<const Trace>(std::move(b.build().value())));
    view.replot_now();
    QCOMPARE(view.set_search(QStringLiteral("tiny")), std::size_t{3});
    QVERIFY(view.search_next());
    QVERIFY(view.search_next());
    QCOMPARE(view.search_position(), std::optional<std::size_t>(1));
    const Event& e = view.trace()->event(*view.selected());
    QCOMPARE(e.start_ns, TimeNs{10'000'000});
    const double px =
        static_cast<double>(e.duration_ns) / static_cast<double>(view.window().span_ns()) * view.lane_rect().width();
    QVERIFY2(px >= 24, qPrintable(QString::number(px)));
    QVERIFY(view.window().t0_ns <= e.start_ns && e.end_ns() <= view.window().t1_ns);
    // Centred in the view, not at its edge.
    QVERIFY(std::abs((view.window().t0_ns + view.window().t1_ns) / 2 - (e.start_ns + e.duration_ns / 2)) <= 1);
    // The first match starts the trace: the view shows it whole and no time before the trace.
    QVERIFY(view.search_next());
    QVERIFY(view.search_next());
    QCOMPARE(view.search_position(), std::optional<std::size_t>(0));
    QCOMPARE(view.window().t0_ns, TimeNs{0});
    QVERIFY(view.window().t1_ns >= 1000);
  }

  void aMatchNearTheStartIsCentredWithoutTimeBeforeTheTrace() {
    // At a 1 ms span, a match at 100 us would show 400 us before the trace: the window narrows about it.
    const TimeWindow w = centred_match_window(100'000, 10'000, 1'000'000, 0, 50'000'000);
    QCOMPARE(w, (TimeWindow{0, 210'000}));
    QCOMPARE(centred_match_window(20'000'000, 10'000, 1'000'000, 0, 50'000'000), (TimeWindow{19'505'000, 20'505'000}));
    QCOMPARE(centred_match_window(0, 10'000, 1'000'000, 0, 50'000'000), (TimeWindow{0, 12'000}));
    QCOMPARE(centred_match_window(49'990'000, 10'000, 1'000'000, 0, 50'000'000), (TimeWindow{49'988'000, 50'000'000}));
  }

  void mergedBlocksTellTheirCountInTheTooltip() {
    TraceBuilder b;
    const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
    for (int i = 0; i < 1000; ++i) {  // 1000 kernels of 100 ns every 200 ns: sub-pixel at full view
      Event e;
      e.start_ns = i * 200;
      e.duration_ns = 100;
      e.kind = EventKind::Kernel;
      e.name = b.intern("tiny");
      b.add_event(gpu, e);
    }
    TimelineView view;
    view.resize(1000, 400);
    view.set_trace(std::make_shared<const Trace>(std::move(b.build().value())));
    view.set_window({0, 200'000});
    view.replot_now();
    QCOMPARE(view.lanes_plottable()->last_span_count(), std::size_t{1});
    const QRectF lanes = view.lane_rect();
    const double y = lanes.top() + view.layout().depth_top_px(1, 0) + 5;
    const QString tip = view.tooltip_at(QPointF(lanes.left() + lanes.width() / 2, y));
    QVERIFY2(tip.startsWith(QStringLiteral("1000 events merged")), qPrintable(tip));
  }

  void drawsOnlyWhatTheLevelOfDetailReturns() {
    // 12 lanes of 200k events: a full view draws merged blocks, a bounded number of spans, not 200k rectangles.
    TimelineView view;
    view.resize(1200, 700);
    view.set_trace(std::make_shared<const Trace>(bench::synthetic_trace(200'000)));
    view.replot_now();
    const std::size_t full = view.lanes_plottable()->last_span_count();
    QVERIFY(full > 0);
    std::size_t expected = 0;
    for (const Lane& lane : view.trace()->lanes())
      expected += query_lod(lane, {view.window().t0_ns, view.window().t1_ns, view.lane_rect().width()}).size();
    QCOMPARE(full, expected);
    QVERIFY(full < 12 * 2 * 1200);
  }

  void analysisOverlaysReserveBands() {
    TraceBuilder b;
    const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
    Event e;
    e.start_ns = 1'000;
    e.duration_ns = 50'000;
    e.kind = EventKind::Kernel;
    e.name = b.intern("k");
    b.add_event(gpu, e);
    Measurement m;
    m.name = "loop";
    m.method = MeasurementMethod::StopwatchNoSync;
    m.reported_ns = 5'000;
    m.host_start_ns = 0;
    m.host_end_ns = 5'000;
    b.add_measurement(m);
    b.add_range({"iteration 0", RangeKind::Iteration, 0, 30'000, 1, 1, -1});
    const Trace trace = std::move(b.build().value());
    const DocumentAnalysis analysis = analyse_document(trace);
    QCOMPARE(analysis.overlays.iterations.size(), std::size_t{1});
    QVERIFY(!analysis.overlays.brackets.empty());
    QCOMPARE(analysis.overlays.brackets.front().start_ns, TimeNs{0});
    QCOMPARE(analysis.overlays.brackets.front().end_ns, TimeNs{5'000});
    QCOMPARE(analysis.report().kernels.kernels.size(), std::size_t{1});
    QCOMPARE(analysis.report().kernels.kernels.front().total_ns, TimeNs{50'000});
    TimelineView view;
    view.resize(800, 400);
    view.set_trace(std::make_shared<const Trace>(test::small_trace()));
    view.replot_now();
    const double top_without = view.lane_rect().top();
    view.set_overlays(analysis.overlays);
    view.replot_now();
    QVERIFY(view.lane_rect().top() > top_without);
  }

  // The critical-path row sits under the lanes; hovering it names the stretch, a click selects the event it is.
  void criticalPathRowClickSelectsItsEvent() {
    TimelineView view;
    view.resize(1200, 700);
    const LoadResult result =
        load_trace_file(QStringLiteral(GTV_SOURCE_DIR "/resources/traces/h200x1/sequential.json.gz"));
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    view.set_trace(result.trace);
    const DocumentAnalysis analysis = analyse_document(*result.trace);
    view.set_overlays(analysis.overlays);
    const CriticalPathSpans& path = view.state().overlays.critical_path;
    QVERIFY(!path.empty());
    // The longest stretch that belongs to a kernel: wide enough to click at any zoom.
    const CriticalStretch* kernel = nullptr;
    for (const CriticalStretch& s : path.stretches)
      if (s.event && result.trace->lane(s.event->lane).is_gpu() &&
          (!kernel || s.end_ns - s.start_ns > kernel->end_ns - kernel->start_ns))
        kernel = &s;
    QVERIFY(kernel);
    view.set_window({kernel->start_ns - 1'000'000, kernel->end_ns + 1'000'000});
    view.replot_now();
    const auto& rows = view.layout().rows();
    int path_row = -1;
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (rows[i].kind == RowKind::Row && rows[i].label == "critical path (" + path.region + ")") path_row = int(i);
    QVERIFY(path_row > 0);
    QCOMPARE(rows[static_cast<std::size_t>(path_row) - 1].label, std::string("Critical path"));
    const QRectF area = view.lane_rect();
    const TimeMapping map(view.window(), area.width());
    const double x = area.left() + map.x_of((kernel->start_ns + kernel->end_ns) / 2);
    const double y = view.state().row_y(area, view.layout().depth_top_px(path_row, 0)) + 5;
    QVERIFY(area.contains(QPointF(x, y)));
    const QString tip = view.tooltip_at(QPointF(x, y));
    QVERIFY2(tip.startsWith(QStringLiteral("critical path of the timed loop: kernel (GPU 0 / stream 7)")),
             qPrintable(tip));
    QTest::mouseClick(view.plot(), Qt::LeftButton, Qt::NoModifier, QPointF(x, y).toPoint());
    QVERIFY(view.selected().has_value());
    QCOMPARE(*view.selected(), *kernel->event);
  }

  // The first view of `threads` at a laptop's height: host rows give way until the GPU lanes and the critical path
  // are in view without scrolling; without the fit they are below the fold.
  void firstViewFitsTheGpusOnScreen() {
    TimelineView view;
    view.resize(1400, 700);
    const LoadResult result =
        load_trace_file(QStringLiteral(GTV_SOURCE_DIR "/resources/traces/h200x1/threads.json.gz"));
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    view.set_trace(result.trace);
    const DocumentAnalysis analysis = analyse_document(*result.trace);
    view.set_overlays(analysis.overlays);
    view.set_window(first_view_window(*result.trace, analysis.report()));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.replot_now();
    QVERIFY2(view.gpu_rows_bottom_px() > view.lane_rect().height(), "the test needs a trace whose GPUs start below");
    view.fit_gpus_in_view();
    QTRY_VERIFY(view.gpu_rows_bottom_px() <= view.lane_rect().height());
    bool gpu_lane = false, path = false;
    for (const LaneRow& r : view.layout().rows()) {
      gpu_lane = gpu_lane || (r.lane && r.group.first == LaneKind::GpuStream);
      path = path || r.group == kCriticalPathGroup;
    }
    QVERIFY(gpu_lane && path);
    QCOMPARE(view.state().scroll_px, 0.0);
  }

  void kernelTableSortsByNumbers() {
    const Trace trace = test::small_trace();
    const DocumentAnalysis analysis = analyse_document(trace);
    KernelTable table;
    table.set_rows(analysis);
    QCOMPARE(table.table()->rowCount(), 3);
    QCOMPARE(table.table()->item(0, 0)->text(), QStringLiteral("gemm_big"));  // 40 us, most total time first
    table.table()->sortByColumn(2, Qt::AscendingOrder);
    QCOMPARE(table.table()->item(2, 0)->text(), QStringLiteral("gemm_big"));
  }

  // Kernel names read in the table: the short, demangled name in the cell, the whole one in the tooltip, in a column
  // the user can drag wider that starts as wide as the names need (up to a cap).
  void kernelTableShowsReadableNames() {
    auto trace = io::read_trace(std::string(GTV_SOURCE_DIR) + "/resources/traces/h200x2/sequential.json.gz");
    QVERIFY(trace.ok());
    const DocumentAnalysis analysis = analyse_document(*trace);
    KernelTable table;
    table.resize(420, 600);
    table.set_rows(analysis);
    QHeaderView* header = table.table()->horizontalHeader();
    QCOMPARE(header->sectionResizeMode(0), QHeaderView::Interactive);
    QCOMPARE(table.table()->textElideMode(), Qt::ElideMiddle);
    const QFontMetrics metrics(table.table()->font());
    int widest = 0;
    for (int r = 0; r < table.table()->rowCount(); ++r) {
      const QTableWidgetItem* item = table.table()->item(r, 0);
      const QString full = item->toolTip();
      QVERIFY(!item->text().startsWith(QStringLiteral("_Z")) && !item->text().startsWith(QStringLiteral("void ")));
      QVERIFY2(item->text().startsWith(QString::fromStdString(analysis::shorten_kernel_name(full.toStdString()))),
               qPrintable(item->text()));  // "name [2]" where two kernels shorten alike
      widest = std::max(widest, metrics.horizontalAdvance(item->text()));
    }
    QVERIFY(table.table()->columnWidth(0) >= std::min(widest, 280));
    header->resizeSection(0, 700);  // dragged wider: it stays
    QCOMPARE(table.table()->columnWidth(0), 700);
  }

  void collapseAndHideLanes() {
    auto view = make_view();
    view->toggle_lane_collapsed(0);
    QCOMPARE(view->layout().rows()[1].depth_rows, 1);
    // A lane is collapsed and hidden by its row's id, as every row is.
    const std::string lane0 = event_lane_row_id(view->trace()->lane(0).key);
    QVERIFY(view->lane_state().collapsed_rows == std::set<std::string>{lane0});
    view->toggle_row_collapsed(lane0);
    QCOMPARE(view->layout().rows()[1].depth_rows, 2);
    view->toggle_lane_collapsed(0);
    view->set_lane_hidden(1, true);
    QCOMPARE(view->layout().row_of_lane(1), -1);
    QVERIFY(view->lane_state().hidden_rows == std::set<std::string>{event_lane_row_id(view->trace()->lane(1).key)});
    view->toggle_group({LaneKind::GpuStream, 1});
    QCOMPARE(view->layout().row_of_lane(2), -1);
    view->show_all_lanes();
    QCOMPARE(view->layout().row_of_lane(2), 5);
  }

  void exportedPixelsCarryTheKernelColour() {
    QTemporaryDir dir;
    auto view = make_view(1000, 600);
    const EventRef gemm = find(*view->trace(), "gemm_big");
    const EventRef relu = find(*view->trace(), "relu_small");
    ExportOptions options;
    options.path = dir.filePath("out.png");
    options.width_px = view->plot()->width();
    options.height_px = view->plot()->height();
    QVERIFY(export_timeline(*view, options).ok());
    QImage image(options.path);
    QCOMPARE(image.size(), QSize(options.width_px, options.height_px));
    for (EventRef ref : {gemm, relu}) {
      const Event& e = view->trace()->event(ref);
      const TimeMapping map(view->window(), view->lane_rect().width());
      // Three quarters along the event, clear of its left-aligned name.
      const double x = view->lane_rect().left() + map.x_of(e.start_ns + e.duration_ns * 3 / 4);
      const double y = view->event_center(ref)->y();
      const QRgb expected = static_cast<QRgb>(kernel_color(view->trace()->name(e)));
      QCOMPARE(image.pixel(static_cast<int>(x), static_cast<int>(y)) & 0xffffff, expected);
    }
    QVERIFY(!QFile::exists(options.path + ".part"));
  }

  void exportsVectorFormats() {
    QTemporaryDir dir;
    auto view = make_view();
    for (const char* name : {"out.svg", "out.pdf", "out.jpg"}) {
      ExportOptions options;
      options.path = dir.filePath(name);
      options.whole_trace = true;
      QVERIFY2(export_timeline(*view, options).ok(), name);
      QVERIFY(QFileInfo(options.path).size() > 1000);
    }
    QFile svg(dir.filePath("out.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("gemm_big"));  // names stay text in vector output
    ExportOptions scaled;
    scaled.path = dir.filePath("scaled.png");
    scaled.width_px = 400;
    scaled.height_px = 300;
    scaled.scale = 2;
    QVERIFY(export_timeline(*view, scaled).ok());
    QCOMPARE(QImage(scaled.path).size(), QSize(800, 600));
    ExportOptions bad;
    bad.path = dir.filePath("out.bmpx");
    QVERIFY(!export_timeline(*view, bad).ok());
  }

  // The label column's edge drags like Perfetto's: wider, narrower, never past its minimum or half the view; the
  // labels re-elide to it and their tooltip has the whole name.
  void labelColumnResizesByDraggingItsEdge() {
    auto view = make_view(1200, 600);
    QSignalSpy resized(view.get(), &TimelineView::label_column_resized);
    QCOMPARE(view->lane_rect().left(), kDefaultLabelColumnPx);
    const int y = static_cast<int>(view->lane_rect().top()) + 10;
    auto drag_edge_to = [&](int x) {
      const int edge = static_cast<int>(view->lane_rect().left());
      QTest::mousePress(view->plot(), Qt::LeftButton, Qt::NoModifier, QPoint(edge + 2, y));
      QTest::mouseMove(view->plot(), QPoint(x, y));
      QTest::mouseRelease(view->plot(), Qt::LeftButton, Qt::NoModifier, QPoint(x, y));
      view->replot_now();
    };
    drag_edge_to(400);
    QCOMPARE(view->lane_rect().left(), 400.0);
    QCOMPARE(view->label_column_width(), 400.0);
    QCOMPARE(resized.count(), 1);
    QCOMPARE(resized.front().front().toDouble(), 400.0);
    drag_edge_to(20);
    QCOMPARE(view->lane_rect().left(), kMinLabelColumnPx);
    drag_edge_to(1150);
    QCOMPARE(view->lane_rect().left(), 600.0);  // half of the view's 1200 px
    // A narrower window takes the column down with it.
    view->resize(800, 600);
    view->replot_now();
    QCOMPARE(view->lane_rect().left(), 400.0);
    // The tooltip over a label is the row's whole label, however narrow the column.
    const LaneRow& first = view->layout().rows().front();
    QCOMPARE(view->tooltip_at(QPointF(30, view->lane_rect().top() + first.top_px + 4)),
             QString::fromStdString(first.label));
  }

  // The width the user dragged to is kept in the settings: the next tab opens with it.
  void labelColumnWidthIsKept() {
    QSettings().setValue(QStringLiteral("timeline/label_column_px"), 333.0);
    MainWindow window;
    auto* doc = new TraceDocument(QStringLiteral("kept.json"));
    doc->set_trace(test::small_trace());
    TraceTab* tab = window.open_document(doc);
    QCOMPARE(tab->view()->label_column_width(), 333.0);
    emit tab->view()->label_column_resized(280.0);
    QCOMPARE(QSettings().value(QStringLiteral("timeline/label_column_px")).toDouble(), 280.0);
    QSettings().remove(QStringLiteral("timeline/label_column_px"));
  }

  // Something on screen names the colour mode: the toolbar's box, and the legend's first title.
  void colourModeIsShown() {
    MainWindow window;
    auto* doc = new TraceDocument(QStringLiteral("colours.json"));
    doc->set_trace(test::small_trace());
    TraceTab* tab = window.open_document(doc);
    auto* box = window.findChild<QComboBox*>();
    QVERIFY(box != nullptr);
    for (const ColorMode mode : {ColorMode::Stream, ColorMode::Kind, ColorMode::KernelName, ColorMode::Owner}) {
      tab->view()->set_color_mode(mode);
      QVERIFY2(box->currentText().contains(QString::fromStdString(std::string(to_string(mode)))),
               qPrintable(box->currentText()));
    }
    QTest::keyClick(tab->view()->plot(), Qt::Key_C);  // C cycles: the box follows
    QVERIFY(box->currentText().contains(QStringLiteral("kind")));
    box->activated(box->findData(static_cast<int>(ColorMode::Stream)));
    QCOMPARE(tab->view()->color_mode(), ColorMode::Stream);
  }

  void badFileOpensAnErrorAndLeavesOtherTabs() {
    QStringList errors;
    MainWindow::set_error_hook([&](const QString&, const QString& message) { errors << message; });
    MainWindow window;
    auto* good = new TraceDocument(QStringLiteral("good.json"));
    good->set_trace(test::small_trace());
    TraceTab* good_tab = window.open_document(good);
    QTemporaryDir dir;
    const QString bad_path = dir.filePath("bad.json");
    QFile bad(bad_path);
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{\"traceEvents\": [ {\"ph\": ");
    bad.close();
    window.open_file(bad_path);
    QCOMPARE(window.tabs()->count(), 2);
    QTRY_COMPARE(errors.size(), 1);
    QVERIFY2(errors.front().contains(QStringLiteral("bad.json")), qPrintable(errors.front()));
    QCOMPARE(window.tabs()->count(), 1);
    QCOMPARE(window.tabs()->widget(0), good_tab);
    QVERIFY(good_tab->view()->trace() != nullptr);
    QVERIFY(!window.recent_files().contains(QFileInfo(bad_path).absoluteFilePath()));  // Open Recent forgets it
    MainWindow::set_error_hook({});
  }

  // A file truncated under an open tab (a profiler rewriting it) changes nothing shown and raises a notice.
  void aFileChangedOnDiskGivesANotice() {
    QTemporaryDir dir;
    const QString path = dir.filePath("live.json.gz");
    QVERIFY(QFile::copy(QStringLiteral(GTV_TEST_DATA_DIR "/pytorch/two_gpus_schedule.json.gz"), path));
    MainWindow window;
    TraceTab* tab = window.open_file(path);
    QTRY_VERIFY(tab->view()->trace() != nullptr);
    const std::size_t events = tab->view()->trace()->event_count();
    QVERIFY(tab->changed_notice()->isHidden());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write("{\"traceEvents\": [");
    file.close();
    QTRY_VERIFY(!tab->changed_notice()->isHidden());
    QVERIFY2(tab->changed_notice()->text().contains(QStringLiteral("live.json.gz changed on disk")),
             qPrintable(tab->changed_notice()->text()));
    QCOMPARE(tab->view()->trace()->event_count(), events);
    tab->view()->replot_now();
  }

  // A forward op of a training trace jumps to its backward op and back (Kineto's fwdbwd flows).
  void jumpFollowsForwardBackwardLinks() {
    const LoadResult result = load_trace_file(QStringLiteral(GTV_TEST_DATA_DIR "/pytorch/conv_training.json.gz"));
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QVERIFY(!result.trace->backward_links().empty());
    const Flow link = result.trace->backward_links().front();
    TimelineView view;
    view.resize(1200, 800);
    view.set_trace(result.trace);
    view.select(link.from);
    QVERIFY(view.jump_to_flow());
    QCOMPARE(*view.selected(), link.to);
    QVERIFY(view.jump_to_flow());
    QCOMPARE(*view.selected(), link.from);
  }

  // A Kineto stream wait (tests/data/edge/kineto_cuda_sync.json): the held kernel lists the work it waited for and
  // jumps to it, and the selection draws the link dashed, in the dependency colour, from the end of the work waited
  // for to the start of the held kernel.
  void dependencyIsListedJumpedToAndDrawn() {
    const LoadResult result = load_trace_file(QStringLiteral(GTV_TEST_DATA_DIR "/edge/kineto_cuda_sync.json"));
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QVERIFY(!result.trace->dependencies().empty());
    const Flow link = result.trace->dependencies().front();  // producer (stream 7) -> consumer (stream 22)
    TimelineView view;
    view.resize(1200, 800);
    view.set_trace(result.trace);
    view.replot_now();
    DetailsPanel details(&view);
    view.select(link.to);
    QVERIFY2(details.text().contains(QStringLiteral("waits for")) &&
                 details.text().contains(QStringLiteral("producer (GPU 0 / stream 7)")),
             qPrintable(details.text()));

    // Points along the line (from the producer's end to the consumer's start) in the dependency colour, in an
    // export of the view: none before the selection, most of them with it (a dashed line leaves gaps).
    QTemporaryDir dir;
    const Trace& t = *view.trace();
    auto points_on_line = [&](const QString& name) {
      ExportOptions options;
      options.path = dir.filePath(name);
      options.width_px = view.plot()->width();
      options.height_px = view.plot()->height();
      if (!export_timeline(view, options).ok()) return -1;
      const QImage image(options.path);
      const TimeMapping map(view.window(), view.lane_rect().width());
      const QPointF from(view.lane_rect().left() + map.x_of(t.event(link.from).end_ns()),
                         view.event_center(link.from)->y());
      const QPointF to(view.lane_rect().left() + map.x_of(t.event(link.to).start_ns), view.event_center(link.to)->y());
      const QColor colour = light_theme().dependency;
      int on_line = 0;
      for (int i = 10; i <= 90; ++i) {
        const QPointF p = from + (to - from) * (i / 100.0);
        const QColor c = image.pixelColor(static_cast<int>(std::lround(p.x())), static_cast<int>(std::lround(p.y())));
        const int distance = std::abs(c.red() - colour.red()) + std::abs(c.green() - colour.green()) +
                             std::abs(c.blue() - colour.blue());
        if (distance < 60) ++on_line;
      }
      return on_line;
    };
    view.select(std::nullopt);
    QCOMPARE(points_on_line(QStringLiteral("unselected.png")), 0);
    view.select(link.to);
    const int on_line = points_on_line(QStringLiteral("selected.png"));
    QVERIFY2(on_line >= 20, qPrintable(QStringLiteral("%1 of 81 points on the line").arg(on_line)));

    QVERIFY(view.jump_to_dependency());
    QCOMPARE(*view.selected(), link.from);
  }

  void jumpingToAnEventInACollapsedGroupShowsIt() {
    auto view = make_view();
    view->toggle_group({LaneKind::GpuStream, 1});
    const EventRef relu = find(*view->trace(), "relu_small");
    QCOMPARE(view->layout().row_of_lane(relu.lane), -1);
    view->jump_to(relu);
    QVERIFY(view->layout().row_of_lane(relu.lane) >= 0);
    QCOMPARE(*view->selected(), relu);
  }

  void dropOpensTabs() {
    QTemporaryDir dir;
    const QString path = dir.filePath("dropped.json");
    QVERIFY(io::write_trace(test::small_trace(), path.toStdString()).ok());
    MainWindow window;
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    QCOMPARE(window.tabs()->count(), 1);
    QCOMPARE(window.tabs()->tabText(0), QStringLiteral("dropped.json"));
    auto* tab = qobject_cast<TraceTab*>(window.tabs()->widget(0));
    QTRY_VERIFY(tab->view()->trace() != nullptr);
  }

  void opensAFileInTheBackground() {
    QTemporaryDir dir;
    const QString path = dir.filePath("small.json.gz");
    QVERIFY(io::write_trace(test::small_trace(), path.toStdString()).ok());
    MainWindow window;
    TraceTab* tab = window.open_file(path);
    QSignalSpy loaded(tab->document(), &TraceDocument::loaded);
    QTRY_VERIFY(tab->view()->trace() != nullptr);
    QCOMPARE(tab->view()->trace()->event_count(), std::size_t{7});
    QCOMPARE(tab->kernels()->table()->rowCount(), 3);
    QVERIFY(tab->view()->layout().row_of_lane(2) >= 0);
  }

  void opensARecordedPyTorchTrace() {
    const LoadResult result = load_trace_file(QStringLiteral(GTV_TEST_DATA_DIR "/pytorch/two_gpus_schedule.json.gz"));
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    TimelineView view;
    view.resize(1200, 800);
    view.set_trace(result.trace);
    view.replot_now();
    for (const LaneKey key : {gpu_lane_key(0, 7), gpu_lane_key(1, 16), gpu_lane_key(1, 23)}) {
      const auto lane = result.trace->find_lane(key);
      QVERIFY(lane.has_value());
      QVERIFY(view.layout().row_of_lane(*lane) >= 0);
    }
    QVERIFY(view.lanes_plottable()->last_span_count() > 0);
  }

  // The recorded structure is drawn: a row of the thread's ranges above its lanes, whose tooltip names the range
  // under the mouse; Kineto's pseudo-processes start collapsed, after the program's processes and GPUs.
  void focusOnGpuLanesHidesTheCounterRows() {
    TimelineView view;
    view.resize(1200, 700);
    const LoadResult result =
        load_trace_file(QStringLiteral(GTV_SOURCE_DIR "/resources/traces/h200x1/sequential.json.gz"));
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QVERIFY2(!result.trace->counters().empty(), "the test needs a trace with counter series");
    view.set_trace(result.trace);
    view.focus_on_gpu_lanes();
    std::size_t counters = 0;
    for (const auto& row : view.state().rows) {
      const RowDesc d = row->desc();
      const bool counter = d.id.rfind("counter ", 0) == 0;
      counters += counter ? 1 : 0;
      // Counter series give way; ranges and GPU lanes stay listed (host lanes are collapsed, not hidden).
      QCOMPARE(view.lane_state().hidden_rows.count(d.id), std::size_t{counter ? 1u : 0u});
      QCOMPARE(d.gives_way_to_gpus, counter);
    }
    QCOMPARE(counters, result.trace->counters().size());
  }

  void recordedRangesAreRowsWithTooltips() {
    TimelineView view;
    view.resize(1200, 700);
    const LoadResult result =
        load_trace_file(QStringLiteral(GTV_SOURCE_DIR "/resources/traces/h200x2/sequential.json.gz"));
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    view.set_trace(result.trace);
    const Range* loop = nullptr;
    for (const Range& r : result.trace->ranges())
      if (r.name == "timed loop") loop = &r;
    QVERIFY(loop);
    view.set_window({loop->start_ns - 1'000'000, loop->end_ns + 1'000'000});
    view.replot_now();
    const auto& rows = view.layout().rows();
    int range_row = -1;
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (rows[i].kind == RowKind::Row && rows[i].label == "recorded ranges (thread 1685)") range_row = int(i);
    QVERIFY(range_row > 0);
    QCOMPARE(rows[static_cast<std::size_t>(range_row) - 1].kind, RowKind::ProcessHeader);
    // "timed loop" is at depth 1 (inside the scenario range): hover the middle of its bar.
    const QRectF area = view.lane_rect();
    const TimeMapping map(view.window(), area.width());
    const double x = area.left() + map.x_of((loop->start_ns + loop->end_ns) / 2);
    const double y = view.state().row_y(area, view.layout().depth_top_px(range_row, 1)) + 5;
    const QString tip = view.tooltip_at(QPointF(x, y));
    QVERIFY2(tip.startsWith(QStringLiteral("timed loop\n")), qPrintable(tip));
    QVERIFY(!view.event_at(QPointF(x, y)).has_value());
  }

  void profilerPseudoProcessesStartCollapsedAndLast() {
    const LoadResult result = load_trace_file(QStringLiteral(GTV_TEST_DATA_DIR "/pytorch/two_gpus_streams.json.gz"));
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    TimelineView view;
    view.set_trace(result.trace);
    const auto& rows = view.layout().rows();
    QVERIFY(rows.size() > 4);
    QVERIFY(rows[0].label.find("python3") != std::string::npos);
    int collapsed = 0;
    for (std::size_t i = rows.size() - 4; i < rows.size(); ++i) {
      QCOMPARE(rows[i].kind, RowKind::ProcessHeader);
      QVERIFY2(rows[i].collapsed, rows[i].label.c_str());
      QVERIFY2(rows[i].label.find("profiler's own records") != std::string::npos, rows[i].label.c_str());
      ++collapsed;
    }
    QCOMPARE(collapsed, 4);
  }
};

QTEST_MAIN(TimelineViewTest)
#include "timeline_view_test.moc"
