// QtTest (offscreen): Runs > What if. The dialog offers only the changes that apply (each one predicts) and lists
// the others with their reason; a change that does not apply says why in the dialog and opens nothing; the view
// stacks the recorded run, the predicted one and, where a recording of the variant is bundled, that recording, on
// one locked axis, with the numbers core/whatif predicts.
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest/QtTest>

#include "gtv/causal/critical_path.h"
#include "gtv/io/trace_file.h"
#include "gtv/ui/band_rows.h"
#include "gtv/ui/compare_view.h"
#include "gtv/ui/lane_layout.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/run_features.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/whatif_band.h"
#include "gtv/ui/whatif_dialog.h"
#include "gtv/ui/whatif_view.h"
#include "gtv/whatif/predict.h"

using namespace gtv;
using namespace gtv::ui;

namespace {

QString recording(const char* name) {
  return QStringLiteral(GTV_SOURCE_DIR "/resources/traces/%1.json.gz").arg(QLatin1String(name));
}

LoadResult load(const char* name) {
  LoadResult r = load_trace_file(recording(name));
  if (!r.error.isEmpty()) qFatal("%s", qPrintable(r.error));
  return r;
}

whatif::Prediction core_prediction(const Trace& trace, const char* change) {
  const std::vector<whatif::Change> changes = {*whatif::parse_change(change)};
  Expected<whatif::Prediction> p = whatif::predict(trace, changes);
  if (!p) qFatal("%s", p.error().message.c_str());
  return *p;
}

// The variant's window, measured as the scored table measures it.
TimeNs window_ns(const Trace& trace) {
  const causal::HappensBefore g = causal::HappensBefore::build(trace);
  const causal::Window w = causal::window_of(g);
  return w.end_ns - w.start_ns;
}

TimeNs timed_start_ns(const Trace& trace) {
  TimeNs start = trace.measurements().at(0).host_start_ns;
  for (const Measurement& m : trace.measurements()) start = std::min(start, m.host_start_ns);
  return start;
}

}  // namespace

class WhatIfTest : public QObject {
  Q_OBJECT
 private slots:
  // Every change offered predicts on this trace; every change listed as refused does not, with core's reason.
  void dialogOffersOnlyTheChangesThatApply() {
    const LoadResult r = load("h200x1/sequential");
    WhatIfDialog dialog(r.trace, r.analysis, recording("h200x1/sequential"));
    dialog.wait_for_checks();
    const QStringList offered = dialog.offered();
    const QStringList refused = dialog.refused();
    QCOMPARE(static_cast<std::size_t>(offered.size() + refused.size()), whatif::parameterless_changes().size());
    QVERIFY(offered.contains(QStringLiteral("streams")));
    QVERIFY(!offered.contains(QStringLiteral("pinned")));
    QVERIFY(refused.contains(QStringLiteral("pinned: no pageable copies in this trace's window: nothing to change")));
    for (const QString& name : offered) {
      const std::vector<whatif::Change> one = {*whatif::parse_change(name.toStdString())};
      QVERIFY2(whatif::predict(*r.trace, one).ok(), qPrintable(name));
    }
    for (const QString& line : refused) {
      const QString name = line.section(QLatin1Char(':'), 0, 0);
      const std::vector<whatif::Change> one = {*whatif::parse_change(name.toStdString())};
      QVERIFY2(!whatif::predict(*r.trace, one).ok(), qPrintable(name));
    }
  }

  // The document's analysed trace holds the one graph: its report built it, and the dialog's six checks, the
  // prediction and the recorded window read it. Only the predicted run (a trace of its own) and the bundled
  // recording of the variant (another) are analysed anew, one graph each.
  void dialogBuildsNoGraphOfItsOwn() {
    const std::size_t before = causal::graph_builds();
    const LoadResult r = load("h200x1/sequential");
    QCOMPARE(causal::graph_builds() - before, std::size_t{1});
    WhatIfDialog dialog(r.trace, r.analysis, recording("h200x1/sequential"));
    dialog.wait_for_checks();
    QCOMPARE(static_cast<std::size_t>(dialog.offered().size() + dialog.refused().size()),
             whatif::parameterless_changes().size());
    QCOMPARE(causal::graph_builds() - before, std::size_t{1});
    dialog.set_checked(QStringLiteral("streams"), true);
    dialog.predict();
    dialog.wait_for_prediction();
    QCOMPARE(dialog.result(), static_cast<int>(QDialog::Accepted));
    const WhatIfRun run = dialog.take_run();
    QVERIFY(run.variant != nullptr);
    QCOMPARE(run.recorded_analysis->analysed, r.analysis->analysed);
    QCOMPARE(causal::graph_builds() - before, std::size_t{3});
  }

  // balanced-ranks predicts a merged run's length from the collectives' arrivals, with no timeline to draw: listed
  // with its number and why it cannot be drawn.
  void balancedRanksIsListedWithItsNumberAndNoTimeline() {
    const LoadResult r = load("cpu/ddp-gloo2-straggler");
    WhatIfDialog dialog(r.trace, r.analysis, recording("cpu/ddp-gloo2-straggler"));
    dialog.wait_for_checks();
    QVERIFY(!dialog.offered().contains(QStringLiteral("balanced-ranks")));
    const std::vector<whatif::Change> one = {*whatif::parse_change("balanced-ranks")};
    const Expected<whatif::Prediction> p = whatif::predict(*r.trace, one);
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
    QVERIFY2(dialog.refused().contains(QStringLiteral("balanced-ranks: predicted %1 from the collectives' arrivals "
                                                      "(gtv-cli whatif says more), with no timeline to draw")
                                           .arg(whatif_ms(p->predicted_ns))),
             qPrintable(dialog.refused().join('\n')));
  }

  // placement= naming a GPU the one-GPU machine did not have: the reason in the dialog, no view.
  void aChangeThatDoesNotApplyShowsItsReason() {
    const LoadResult r = load("h200x1/sequential");
    WhatIfDialog dialog(r.trace, r.analysis, recording("h200x1/sequential"));
    dialog.wait_for_checks();
    dialog.placement_field()->setText(QStringLiteral("0,1,0"));
    dialog.predict();
    dialog.wait_for_prediction();
    QCOMPARE(dialog.result(), static_cast<int>(QDialog::Rejected));
    QCOMPARE(dialog.error(), QStringLiteral("placement=0,1,0: placement= names GPU 1; the machine had 1 GPU"));
    // Nothing chosen is said too, before anything runs.
    dialog.placement_field()->clear();
    dialog.predict();
    QVERIFY(dialog.error().startsWith(QStringLiteral("choose a change")));
  }

  // sequential -> streams: the bundled pairs hold the streams recording, so three panels; the predicted one is the
  // recorded run's clock, the variant aligned at its timed region; one window moves all three.
  void viewStacksRecordedPredictedAndTheVariantOnOneAxis() {
    const LoadResult r = load("h200x1/sequential");
    WhatIfDialog dialog(r.trace, r.analysis, recording("h200x1/sequential"));
    dialog.wait_for_checks();
    dialog.set_checked(QStringLiteral("streams"), true);
    dialog.predict();
    dialog.wait_for_prediction();
    QCOMPARE(dialog.error(), QString());
    QCOMPARE(dialog.result(), static_cast<int>(QDialog::Accepted));
    WhatIfView view;
    view.resize(1400, 1200);
    view.set_run(dialog.take_run());
    view.show();
    QCoreApplication::processEvents();
    QCOMPARE(view.panel_count(), 3);
    CompareView* panels = view.panels();
    QVERIFY(QString::fromStdString(panels->view(1)->trace()->metadata().scenario).startsWith("predicted: streams"));
    // The predicted panel's ranges are labelled as predicted, the recording's as recorded.
    auto range_labels = [&](int panel) {
      QStringList labels;
      for (const auto& row : panels->view(panel)->timeline_rows()) {
        const QString label = QString::fromStdString(row->desc().label);
        if (label.contains(QStringLiteral("ranges (thread"))) labels << label;
      }
      return labels;
    };
    QVERIFY(!range_labels(1).isEmpty());
    for (const QString& label : range_labels(1)) QVERIFY2(label.startsWith("predicted ranges"), qPrintable(label));
    for (const QString& label : range_labels(0)) QVERIFY2(label.startsWith("recorded ranges"), qPrintable(label));
    // Each run is aligned at the start of its timed region (the warm-up before it may have moved too).
    for (int i = 1; i < 3; ++i)
      QCOMPARE(panels->offset_ns(i), timed_start_ns(*panels->view(i)->trace()) - timed_start_ns(*r.trace));
    const TimeWindow w0{panels->view(0)->window().t0_ns + 1'000'000, panels->view(0)->window().t0_ns + 9'000'000};
    panels->set_window(w0);
    for (int i = 0; i < 3; ++i) {
      QCOMPARE(panels->view(i)->window().t0_ns, w0.t0_ns + panels->offset_ns(i));
      QCOMPARE(panels->view(i)->window().t1_ns, w0.t1_ns + panels->offset_ns(i));
    }
    // The numbers are core's.
    const whatif::Prediction p = core_prediction(*r.trace, "streams");
    QCOMPARE(view.run().prediction.predicted_ns, p.predicted_ns);
    const QString summary = view.summary()->text();
    QVERIFY2(summary.contains(whatif_ms(p.predicted_ns)), qPrintable(summary));
    QVERIFY(summary.contains(QStringLiteral("band %1 to %2").arg(whatif_ms(p.low_ns), whatif_ms(p.high_ns))));
    QVERIFY(summary.contains(speedup_text(p)));
    QVERIFY2(summary.contains(band_meaning(p).toHtmlEscaped()), qPrintable(summary));
    // The assumptions: one line each, every one of core's, folded until asked for.
    QStringList assumptions;
    for (const std::string& a : p.assumptions) assumptions << QString::fromStdString(a);
    QCOMPARE(view.assumption_lines(), assumptions);
    QVERIFY(view.assumptions_button()->isVisible());
    QVERIFY(!view.assumptions_button()->isChecked());
    const auto shown_lines = [&] {
      int shown = 0;
      for (const QWidget* w : view.findChildren<QWidget*>())
        shown += w->isVisible() && assumptions.contains(w->toolTip());
      return shown;
    };
    QCOMPARE(shown_lines(), 0);
    view.assumptions_button()->click();
    QCoreApplication::processEvents();
    QCOMPARE(shown_lines(), assumptions.size());
    view.assumptions_button()->click();
    // The band on the axis: core's band, predicted end and recorded end, and the variant's end.
    QCOMPARE(view.band()->marks().low_ns, p.low_ns);
    QCOMPARE(view.band()->marks().high_ns, p.high_ns);
    QCOMPARE(view.band()->marks().predicted_ns, p.predicted_ns);
    QCOMPARE(view.band()->marks().recorded_ns, p.recorded_ns);
    QVERIFY(view.band()->marks().variant_ns.has_value());
    QVERIFY(view.band()->isVisible());
    QVERIFY(panels->figures_text(1).contains(QStringLiteral("PREDICTED")));
    QVERIFY(panels->figures_text(1).contains(whatif_ms(p.predicted_ns)));
    QVERIFY(!panels->figures_text(0).contains(QStringLiteral("PREDICTED")));
    Expected<Trace> variant = io::read_trace(recording("h200x1/streams").toStdString());
    QVERIFY(variant.ok());
    const QString error = prediction_error_text(p.predicted_ns, window_ns(*variant));
    QVERIFY2(panels->figures_text(2).contains(error), qPrintable(panels->figures_text(2)));
    QVERIFY(error.startsWith(QStringLiteral("predicted %1, recorded ").arg(whatif_ms(p.predicted_ns))));
  }

  // At the default window's height the three panels show every GPU lane with work and the rows under them whole
  // (the tab scrolls them together), the variant its working streams and not its idle default stream, and the
  // predicted panel its truth bracket; scrolling one panel scrolls the others to the same place on their GPUs.
  void threePanelsShowTheirLanesAndScrollTogether() {
    const LoadResult r = load("h200x1/sequential");
    const std::vector<whatif::Change> changes = {*whatif::parse_change("streams")};
    WhatIfView view;
    view.resize(1500, 820);
    view.set_run(compute_whatif(r.trace, r.analysis, recording("h200x1/sequential"), changes));
    view.show();
    // The panels grow to their lanes in a few layout passes: until their height holds.
    for (int last = -1, i = 0; i < 100 && view.panels()->minimumHeight() != last; ++i) {
      last = view.panels()->minimumHeight();
      QTest::qWait(100);
    }
    CompareView* panels = view.panels();
    QCOMPARE(view.panel_count(), 3);
    QCOMPARE(panels->fit_note(), QString());
    const auto gpu_top = [](const TimelineView& v) {
      for (const LaneRow& row : v.layout().rows())
        if (row.kind == RowKind::DeviceHeader) return row.top_px;
      return -1.0;
    };
    for (int i = 0; i < 3; ++i) {
      const TimelineView& v = *panels->view(i);
      QVERIFY2(v.gpu_rows_bottom_px() <= v.scroll_px() + v.lane_rect().height() + 0.5, qPrintable(QString::number(i)));
      QVERIFY(gpu_top(v) >= v.scroll_px() - 0.5);
      int gpu_lanes = 0;
      for (const LaneRow& row : v.layout().rows()) {
        if (!row.lane || !v.trace()->lane(*row.lane).is_gpu()) continue;
        ++gpu_lanes;
        const auto& events = v.trace()->lane(*row.lane).events;
        QVERIFY2(
            std::any_of(events.begin(), events.end(),
                        [&](const Event& e) { return e.start_ns < v.window().t1_ns && e.end_ns() > v.window().t0_ns; }),
            row.label.c_str());
      }
      QCOMPARE(gpu_lanes, i == 0 ? 1 : 3);
      const std::optional<std::size_t> brackets = v.state().band_index(kBracketRowId);
      QVERIFY2(brackets && v.state().bands.rows[*brackets].depth_rows >= 1, qPrintable(QString::number(i)));
      QVERIFY(QString::fromStdString(v.state().overlays.brackets.front().figure).startsWith("truth"));
    }
    // Scrolled together, relative to each panel's first GPU.
    TimelineView& predicted = *panels->view(1);
    predicted.set_scroll_px(0);
    for (int i : {0, 2}) {
      const TimelineView& v = *panels->view(i);
      QCOMPARE(v.scroll_px(), std::clamp(gpu_top(v) - gpu_top(predicted), 0.0, v.max_scroll_px()));
    }
  }

  // No recording of the variant: two panels.
  void withoutARecordedVariantTwoPanels() {
    const LoadResult r = load("h200x1/copy-pageable");
    const std::vector<whatif::Change> changes = {*whatif::parse_change("streams")};
    WhatIfRun run = compute_whatif(r.trace, r.analysis, recording("h200x1/copy-pageable"), changes);
    QVERIFY2(run.ok(), qPrintable(run.error));
    QVERIFY(run.variant == nullptr);
    WhatIfView view;
    view.set_run(std::move(run));
    QCOMPARE(view.panel_count(), 2);
    QCOMPARE(view.run().prediction.predicted_ns, core_prediction(*r.trace, "streams").predicted_ns);
  }

  // Runs > What if... is in the menu; a computed run opens as a tab named after its changes.
  void runsMenuOffersWhatIfAndTheViewOpensAsATab() {
    MainWindow window;
    install_run_features(&window);
    bool found = false;
    for (QAction* menu : window.menuBar()->actions())
      if (menu->menu() != nullptr)
        for (QAction* a : menu->menu()->actions()) found = found || a->text().contains(QStringLiteral("What if"));
    QVERIFY(found);
    const LoadResult r = load("h200x1/sequential");
    const std::vector<whatif::Change> changes = {*whatif::parse_change("streams")};
    WhatIfView* view =
        open_whatif_view(&window, compute_whatif(r.trace, r.analysis, recording("h200x1/sequential"), changes));
    QVERIFY(view != nullptr);
    QCOMPARE(window.tabs()->currentWidget(), view);
    QCOMPARE(window.tabs()->tabText(window.tabs()->currentIndex()), QStringLiteral("what if: streams"));
    // File > Export writes the tab's picture, never "nothing to export".
    QStringList errors;
    MainWindow::set_error_hook([&](const QString&, const QString& message) { errors << message; });
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("whatif.png"));
    window.export_current_tab(png, false);
    MainWindow::set_error_hook({});
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
    QVERIFY(QImage(png).width() > 0);
  }

  // A recording the pairs do not know of (a run made now, say) is set beside the prediction by hand.
  void aRecordingOfTheVariantCanBeSetBeside() {
    const LoadResult r = load("h200x1/sequential");
    const std::vector<whatif::Change> changes = {*whatif::parse_change("streams")};
    WhatIfView view;
    view.set_run(compute_whatif(r.trace, r.analysis, QStringLiteral("/my/runs/sequential.json.gz"), changes));
    QCOMPARE(view.panel_count(), 2);
    QVERIFY(view.variant_button()->isVisibleTo(&view));
    const LoadResult variant = load("h200x1/streams");
    view.add_variant(variant.trace, variant.analysis, QStringLiteral("my streams run"));
    QCOMPARE(view.panel_count(), 3);
    QVERIFY(!view.variant_button()->isVisibleTo(&view));
    const QString error = prediction_error_text(view.run().prediction.predicted_ns, window_ns(*variant.trace));
    QVERIFY2(view.panels()->figures_text(2).contains(error), qPrintable(view.panels()->figures_text(2)));
    QVERIFY(view.summary()->text().contains(error));
  }

  void errorTextSignsTheError() {
    QCOMPARE(prediction_error_text(113'900'000, 115'200'000),
             QStringLiteral("predicted 113.9 ms, recorded 115.2 ms: error -1.1%"));
    QCOMPARE(prediction_error_text(113'900'000, 113'200'000),
             QStringLiteral("predicted 113.9 ms, recorded 113.2 ms: error +0.6%"));
  }
};

QTEST_MAIN(WhatIfTest)
#include "whatif_test.moc"
