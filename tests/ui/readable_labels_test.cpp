// QtTest (offscreen): the labels the timeline draws are readable claims. Measurement brackets carry their
// measurement's name and never overlap or clip, kernels show their base name, and axis ticks read exactly.
#include <qcustomplot.h>

#include <QtTest/QtTest>
#include <cmath>
#include <set>

#include "gtv/io/trace_file.h"
#include "gtv/model/trace_builder.h"
#include "gtv/ui/compare_view.h"
#include "gtv/ui/document_analysis.h"
#include "gtv/ui/lane_plottable.h"
#include "gtv/ui/legend.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/timeline_layers.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_tab.h"

using namespace gtv;
using namespace gtv::ui;

namespace {

constexpr const char* kCutlass =
    "void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_tn_align1>(cutlass_80_simt_sgemm_256x128_8x4_tn_align1::"
    "Params)";

// One GPU lane with a kernel at the start and one at 500 ms, so the view can zoom anywhere in between.
Trace long_trace(int measurements) {
  TraceBuilder b;
  const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  for (const TimeNs start : {TimeNs{0}, TimeNs{500'000'000}}) {
    Event e;
    e.start_ns = start;
    e.duration_ns = 2'000'000;
    e.kind = EventKind::Kernel;
    e.name = b.intern(kCutlass);
    b.add_event(gpu, e);
  }
  for (int i = 0; i < measurements; ++i) {
    Measurement m;
    m.name = "first matmul N=" + std::to_string(i) + " on cuda:0";
    m.method = MeasurementMethod::StopwatchNoSync;
    m.host_start_ns = 120'000'000 + i * 4'000'000;
    m.host_end_ns = m.host_start_ns + 3'000'000;
    m.reported_ns = 3'000'000;
    b.add_measurement(m);
  }
  return std::move(b.build().value());
}

QString recording(const char* name) {
  return QStringLiteral(GTV_SOURCE_DIR "/resources/traces/h200x2/%1.json.gz").arg(QLatin1String(name));
}

// How far a warm-up label may lie from its band: under the lanes (where the band ends) and across from it.
constexpr double kNearBandPx = 8;

// The warm-up labels of a view as drawn: one line under the lanes, over no lane row and no band under it, each next
// to the band of every finding it names, none over another, every finding in view named. Adds how many to *count.
void check_warmup_labels(TimelineView* view, const QString& where, int* count) {
  view->replot_now();
  const TimelineState& st = view->state();
  const QRectF axis = view->plot()->axisRect()->rect();
  const QRectF lanes = view->lane_rect();
  const std::vector<WarmupLabel> labels = warmup_labels(st, QFontMetricsF(st.theme.font(kWarmupLabelPt)),
                                                        st.band_rect(axis, kWarmupLabelRowId).value_or(QRectF()));
  const double strip_top_px =
      st.band_rect(axis, kBusyStripRowId).value_or(QRectF(axis.bottomLeft(), axis.bottomRight())).top();
  std::set<std::size_t> in_view;
  for (const ShadedSegment& s : st.overlays.warmup)
    if (s.end_ns >= st.window.t0_ns && s.start_ns <= st.window.t1_ns) in_view.insert(s.finding);
  std::size_t named = 0;
  for (std::size_t k = 0; k < labels.size(); ++k) {
    const QRectF r = labels[k].rect;
    const QString what = where + QStringLiteral(": label %1 \"%2\" at (%3, %4) %5x%6; lanes end at %7")
                                     .arg(k)
                                     .arg(labels[k].text)
                                     .arg(r.left())
                                     .arg(r.top())
                                     .arg(r.width())
                                     .arg(r.height())
                                     .arg(lanes.bottom());
    QVERIFY2(!labels[k].text.isEmpty(), qPrintable(what));
    QVERIFY2(r.top() >= lanes.bottom() - 0.5, qPrintable(what));          // over no lane row
    QVERIFY2(r.top() - lanes.bottom() <= kNearBandPx, qPrintable(what));  // where the bands end
    QVERIFY2(r.bottom() <= strip_top_px + 0.5, qPrintable(what));         // over no band under it
    QVERIFY2(r.left() >= axis.left() - 0.5 && r.right() <= axis.right() + 0.5, qPrintable(what));
    QVERIFY2(r.top() == labels.front().rect.top(), qPrintable(what));  // one line
    QVERIFY2(k == 0 || labels[k - 1].rect.right() <= r.left(), qPrintable(what));
    for (const auto& [x0, x1] : labels[k].spans_px) {
      const double apart_px = std::max({0.0, r.left() - x1, x0 - r.right()});
      QVERIFY2(apart_px <= kNearBandPx, qPrintable(what + QStringLiteral(", band %1..%2").arg(x0).arg(x1)));
    }
    named += labels[k].spans_px.size();
  }
  QVERIFY2(labels.empty() || named == in_view.size(), qPrintable(where + QStringLiteral(": a finding unnamed")));
  *count += static_cast<int>(labels.size());
}

}  // namespace

class ReadableLabelsTest : public QObject {
  Q_OBJECT

 private slots:
  void bracketLabelsCarryTheMeasurementName() {
    const Trace trace = long_trace(1);
    const DocumentAnalysis analysis = analyse_document(trace);
    QVERIFY(!analysis.overlays.brackets.empty());
    const Bracket& b = analysis.overlays.brackets.front();
    QCOMPARE(QString::fromStdString(b.label()), QStringLiteral("first matmul N=0 on cuda:0 \u2014 stopwatch 3.00 ms"));
    QVERIFY(b.tooltip.find("first matmul N=0 on cuda:0") != std::string::npos);
  }

  void bracketLabelsNeverIntersectNorClip() {
    // Thirty measurements, as in the warm-up recording, at the full view and zoomed in, in the window's size and
    // in the projector's large font.
    auto trace = std::make_shared<const Trace>(long_trace(30));
    const DocumentAnalysis analysis = analyse_document(*trace);
    for (const double scale : {1.0, 2.0}) {
      for (const TimeWindow window :
           {TimeWindow{0, 510'000'000}, TimeWindow{115'000'000, 245'000'000}, TimeWindow{118'000'000, 140'000'000}}) {
        TimelineView view;
        Theme theme = light_theme(scale);
        view.set_theme(theme);
        view.resize(1600, 900);
        view.set_trace(trace);
        view.set_overlays(analysis.overlays);
        view.set_window(window);
        view.replot_now();
        const QRectF area = view.plot()->axisRect()->rect();
        const QFontMetricsF metrics(view.state().theme.font(8));
        const std::vector<LabelPlacement> placed =
            bracket_placements(view.state(), metrics, area, bracket_rows_given(view.state()));
        int labelled = 0;
        for (std::size_t i = 0; i < placed.size(); ++i) {
          if (!placed[i].labelled()) continue;
          ++labelled;
          QVERIFY(placed[i].x_px >= area.left());
          QVERIFY(placed[i].right_px() <= area.right() + 1e-6);
          const QString text = bracket_label_text(analysis.overlays.brackets[i], metrics, placed[i].width_px);
          QVERIFY2(metrics.horizontalAdvance(text) <= placed[i].width_px - 2 * kBracketLabelPadPx, qPrintable(text));
          QVERIFY(text.endsWith(QStringLiteral("3.00 ms")));  // the number is never cut
          for (std::size_t j = i + 1; j < placed.size(); ++j) {
            if (!placed[j].labelled() || placed[j].row != placed[i].row) continue;
            QVERIFY(placed[i].right_px() <= placed[j].x_px || placed[j].right_px() <= placed[i].x_px);
          }
        }
        // Zoomed in to a few brackets there is room for labels; further out, brackets of a few pixels may leave none.
        if (window.span_ns() < 50'000'000) QVERIFY(labelled > 0);
      }
    }
  }

  // A shortened bracket label keeps whole words of the name ("first matmul N=3\u2026"), never "fir\u2026a:0", and
  // at least the name's first word: never the figure alone.
  void bracketNamesGiveWayWordByWord() {
    auto trace = std::make_shared<const Trace>(long_trace(30));
    const DocumentAnalysis analysis = analyse_document(*trace);
    const QFontMetricsF metrics(light_theme().font(8));
    const Bracket& b = analysis.overlays.brackets.front();
    const QString name = QString::fromStdString(b.name);
    const QString figure = QString::fromStdString(b.figure);
    int shortened = 0;
    const QString shortest = name.left(name.indexOf(QLatin1Char(' '))) + QStringLiteral("\u2026 \u2014 ") + figure;
    for (double width = metrics.horizontalAdvance(shortest) + 2 * kBracketLabelPadPx; width < 400; width += 3) {
      const QString text = bracket_label_text(b, metrics, width);
      QVERIFY2(metrics.horizontalAdvance(text) <= width - 2 * kBracketLabelPadPx, qPrintable(text));
      QVERIFY2(text.endsWith(figure), qPrintable(text));
      const qsizetype cut = text.indexOf(QChar(0x2026));
      if (cut < 0) continue;
      ++shortened;
      // What is left of the name ends where a word of it ends.
      QVERIFY2(name.startsWith(text.left(cut)) && name.at(cut) == QLatin1Char(' '), qPrintable(text));
    }
    QVERIFY(shortened > 0);
  }

  // Every bracket label carries its measurement's name (at least its first word) and lies under its bracket or
  // beside it with a leader line from the label's facing edge to the bracket's nearer foot; the warm-up recording's
  // brackets in the window and as a figure, and thirty measurements side by side, zoomed out and in.
  void bracketLabelsKeepTheirNameAndALeaderWhenBeside() {
    auto synthetic = std::make_shared<const Trace>(long_trace(30));
    auto bundled = io::read_trace(recording("warmup").toStdString());
    QVERIFY(bundled.ok());
    auto warmup = std::make_shared<const Trace>(std::move(bundled.value()));
    int leaders = 0, labels = 0;
    for (const auto& trace : {synthetic, warmup}) {
      const DocumentAnalysis analysis = analyse_document(*trace);
      const TimeWindow all{trace->start_ns(), trace->end_ns()};
      for (const int width : {1600, 1280, 900}) {
        for (int part = -1; part < 4; ++part) {
          TimelineView view;
          view.resize(width, 700);
          view.set_trace(trace);
          view.set_overlays(analysis.overlays);
          const TimeNs quarter = all.span_ns() / 4;
          view.set_window(part < 0 ? all : TimeWindow{all.t0_ns + part * quarter, all.t0_ns + (part + 2) * quarter});
          view.replot_now();
          const QRectF area = view.plot()->axisRect()->rect();
          const QFontMetricsF metrics(view.state().theme.font(8));
          for (const BracketShape& shape :
               bracket_shapes(view.state(), metrics, area, bracket_rows_given(view.state()))) {
            if (shape.label.isEmpty()) continue;
            ++labels;
            const Bracket& b = analysis.overlays.brackets[shape.bracket];
            const QString name = QString::fromStdString(b.name);
            const QString what = QStringLiteral("\"%1\" at %2..%3, bracket %4..%5")
                                     .arg(shape.text)
                                     .arg(shape.label.left())
                                     .arg(shape.label.right())
                                     .arg(shape.x0_px)
                                     .arg(shape.x1_px);
            QVERIFY2(name.isEmpty() || shape.text.startsWith(name.left(name.indexOf(QLatin1Char(' ')))),
                     qPrintable(what));
            QVERIFY2(metrics.horizontalAdvance(shape.text) <= shape.label.width() - 2 * kBracketLabelPadPx + 0.5,
                     qPrintable(what));
            // Under its line, in its row.
            QVERIFY2(shape.label.top() > shape.line_px && shape.label.top() < shape.foot_px, qPrintable(what));
            const bool beside = shape.label.right() <= shape.x0_px || shape.label.left() >= shape.x1_px;
            QCOMPARE(shape.leader.has_value(), beside);
            if (!beside) continue;
            ++leaders;
            // From the label's facing edge, at its middle, to the nearer foot, horizontally.
            const QLineF l = *shape.leader;
            const bool left_of = shape.label.right() <= shape.x0_px;
            QCOMPARE(l.p1().x(), left_of ? shape.label.right() : shape.label.left());
            QCOMPARE(l.p2().x(), left_of ? shape.x0_px : shape.x1_px);
            QCOMPARE(l.p1().y(), shape.label.center().y());
            QVERIFY2(l.p2().y() >= shape.line_px && l.p2().y() <= shape.foot_px, qPrintable(what));
            QVERIFY2(l.length() <= 12.5, qPrintable(what));  // next to it, never across the plot
          }
        }
      }
    }
    QVERIFY(labels > 0);
    QVERIFY(leaders > 0);  // the warm-up recording's narrow brackets put labels beside them
  }

  // The measured span's label never covers a bracket or a bracket's label, wherever the span is.
  void measureLabelAvoidsTheBrackets() {
    auto trace = std::make_shared<const Trace>(long_trace(30));
    const DocumentAnalysis analysis = analyse_document(*trace);
    TimelineView view;
    view.resize(1600, 900);
    view.set_trace(trace);
    view.set_overlays(analysis.overlays);
    view.set_window({100'000'000, 400'000'000});
    int in_band = 0;
    for (TimeNs start = 100'000'000; start < 390'000'000; start += 7'000'000) {
      view.set_measure(TimeWindow{start, start + 9'000'000});
      view.replot_now();
      const QRectF area = view.plot()->axisRect()->rect();
      const QRectF label = measure_label_rect(view.state(), area);
      QVERIFY(!label.isEmpty());
      QVERIFY(label.left() >= area.left() && label.right() <= area.right());
      const std::vector<QRectF> brackets = bracket_boxes(view.state(), area);
      QVERIFY(!brackets.empty());
      for (const QRectF& box : brackets) QVERIFY(!box.intersects(label));
      in_band += label.bottom() <= view.lane_rect().top() ? 1 : 0;
    }
    // Right of the brackets (after 270 ms) their rows are free: the label sits there, off the lanes.
    QVERIFY(in_band > 10);
  }

  // Dark and light: bracket and warm-up labels reach WCAG AA contrast on the plot's background.
  void labelTextReadsOnBothThemes() {
    for (const Theme& theme : {light_theme(), dark_theme()}) {
      const Rgb background = theme.background.rgb() & 0xffffff;
      for (int method = 0; method < kBracketColorCount; ++method)
        QVERIFY2(contrast_ratio(bracket_text_color(method, background), background) >= 4.5,
                 qPrintable(QStringLiteral("method %1 dark %2").arg(method).arg(theme.dark)));
      QVERIFY(contrast_ratio(warmup_text_color(background), background) >= 4.5);
    }
  }

  // A block wide enough for the legend's name (demangled, shortened to fit) shows it; a narrower one its base name.
  void kernelLabelIsItsDisplayName() {
    TimelineView view;
    view.resize(800, 400);
    auto trace = std::make_shared<const Trace>(long_trace(0));
    view.set_trace(trace);
    view.replot_now();
    const Event& kernel = trace->lane(0).events.front();
    QCOMPARE(view.lanes_plottable()->label_of(kernel),
             QStringLiteral("cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_tn_align1>"));
    // The tooltip keeps the full name.
    QVERIFY(view.tooltip_at(*view.event_center({0, 0})).contains(QString::fromLatin1(kCutlass)));
  }

  void axisTicksReadExactly() {
    TimelineView view;
    view.resize(1600, 600);
    view.set_trace(std::make_shared<const Trace>(long_trace(0)));
    struct Case {
      TimeWindow window;
      bool base;
    };
    for (const Case c : {Case{{445'000'000, 465'000'000}, false}, Case{{449'500'000, 450'000'000}, true},
                         Case{{449'500'000, 449'502'000}, true}, Case{{0, 510'000'000}, false}}) {
      view.set_window(c.window);
      view.replot_now();
      const QVector<double> ticks = view.plot()->xAxis->tickVector();
      const QVector<QString> labels = view.plot()->xAxis->tickVectorLabels();
      QVERIFY(ticks.size() >= 3);
      bool base_seen = false;
      double base_ms = 0;
      for (qsizetype i = 0; i < ticks.size(); ++i) {
        const bool visible =
            ticks[i] >= static_cast<double>(c.window.t0_ns) && ticks[i] <= static_cast<double>(c.window.t1_ns);
        if (!visible) continue;
        QString label = labels[i];
        double label_base_ms = 0;
        if (label.contains(QStringLiteral(" + "))) {
          const QStringList parts = label.split(QStringLiteral(" + "));
          QVERIFY(parts[0].endsWith(QStringLiteral(" ms")));
          base_ms = parts[0].chopped(3).toDouble();
          label_base_ms = base_ms;
          label = parts[1];
        } else if (label.startsWith('+')) {
          base_seen = true;  // an offset label: the base was written before it
          label_base_ms = base_ms;
          label = label.mid(1);
        }
        const QStringList number_unit = label.split(' ');
        QCOMPARE(number_unit.size(), 2);
        const QString& unit = number_unit[1];
        const double unit_ns = unit == "s" ? 1e9 : unit == "ms" ? 1e6 : unit == "us" ? 1e3 : 1;
        const double read_ns = label_base_ms * 1e6 + number_unit[0].toDouble() * unit_ns;
        const bool plain = !labels[i].startsWith('+') && !labels[i].contains(QStringLiteral(" + "));
        if (plain) base_ms = read_ns / 1e6;  // a plain label can be the base
        // What the label says is where the tick is, to the nanosecond.
        QVERIFY2(std::fabs(read_ns - ticks[i]) < 0.5, qPrintable(labels[i]));
        QVERIFY2(number_unit[0].size() <= 7, qPrintable(labels[i]));  // no "449750 us"
      }
      QCOMPARE(base_seen, c.base);
    }
  }

  // The warm-up recording in the window at a laptop's, a projector's and a monitor's size, whole and zoomed in.
  void warmupLabelsSitOnOneLineNextToTheirBands() {
    for (const auto& [w, h] : {std::pair{1920, 1080}, std::pair{1366, 768}, std::pair{1280, 720}}) {
      MainWindow window;
      window.resize(w, h);
      window.show();
      QVERIFY(QTest::qWaitForWindowExposed(&window));
      TraceTab* tab = window.open_file(recording("warmup"));
      QTRY_VERIFY_WITH_TIMEOUT(tab->view()->trace() != nullptr && !tab->view()->state().overlays.warmup.empty(), 60000);
      QCoreApplication::processEvents();
      const QString where = QStringLiteral("window %1x%2").arg(w).arg(h);
      int whole = 0;
      check_warmup_labels(tab->view(), where, &whole);
      if (QTest::currentTestFailed()) return;
      QVERIFY2(whole > 0, qPrintable(where + QStringLiteral(": no warm-up label")));
      const TimeWindow all = tab->view()->window();
      for (int part = 0; part < 4; ++part) {
        const TimeNs quarter = all.span_ns() / 4;
        tab->view()->set_window({all.t0_ns + part * quarter, all.t0_ns + (part + 1) * quarter});
        int zoomed = 0;
        check_warmup_labels(tab->view(), where + QStringLiteral(", quarter %1").arg(part), &zoomed);
        if (QTest::currentTestFailed()) return;
      }
    }
  }

  // Stacked runs: in each compare panel, whatever its height, the labels keep to their line.
  void warmupLabelsInComparePanels() {
    int drawn = 0;
    for (const auto& [w, h] : {std::pair{1920, 1080}, std::pair{1366, 768}, std::pair{1280, 720}}) {
      CompareView view;
      view.resize(w, h);
      QCOMPARE(view.add_files({recording("warmup"), recording("sequential")}), QString());
      view.show();
      QVERIFY(QTest::qWaitForWindowExposed(&view));
      QCoreApplication::processEvents();
      for (int run = 0; run < view.run_count(); ++run) {
        check_warmup_labels(view.view(run), QStringLiteral("compare %1x%2, panel %3").arg(w).arg(h).arg(run), &drawn);
        if (QTest::currentTestFailed()) return;
      }
    }
    QVERIFY(drawn > 0);
  }
};

QTEST_MAIN(ReadableLabelsTest)
#include "readable_labels_test.moc"
