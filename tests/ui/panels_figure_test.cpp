// The What if and compare figures of the bundled recordings at the sizes slides and papers use: every pair of
// recordings the What if knows (whatif/recorded_pairs.h) as its What if figure (recorded, predicted, the recording
// of the variant, the band above them) and as the compare figure of the two recordings. In every panel every GPU
// lane with work in the panel's window and the critical path are drawn whole, with the GPUs-busy strip; the band is
// drawn above the panels; where that needs more than the height asked, the legend gets compact or the figure grows,
// and the export says which. The images are written in every format with no affordance of the window.
#include "gtv/ui/panels_figure.h"

#include <QImage>
#include <QTemporaryDir>
#include <QtTest/QtTest>
#include <set>

#include "gtv/ui/compare_view.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/whatif_band.h"
#include "gtv/ui/whatif_view.h"
#include "gtv/whatif/recorded_pairs.h"

namespace gtv::ui {
namespace {

QString recording(const char* name) {
  return QStringLiteral(GTV_SOURCE_DIR "/resources/traces/%1.json.gz").arg(QLatin1String(name));
}

std::vector<whatif::RecordedPair> recorded_pairs() {
  std::vector<whatif::RecordedPair> pairs(whatif::scored_pairs().begin(), whatif::scored_pairs().end());
  pairs.insert(pairs.end(), whatif::further_pairs().begin(), whatif::further_pairs().end());
  return pairs;
}

constexpr std::pair<int, int> kSizes[] = {{1600, 900}, {1280, 720}, {1131, 757}};

std::vector<TimelineView*> views_of(const CompareView& panels) {
  std::vector<TimelineView*> views;
  views.reserve(static_cast<std::size_t>(panels.run_count()));
  for (int i = 0; i < panels.run_count(); ++i) views.push_back(panels.view(i));
  return views;
}

// Every panel's GPU lanes with work in its window and its critical path are drawn whole; none of its rows is cut.
void check_drawn(const QString& where, const std::vector<TimelineView*>& views, const PanelsFigureDrawn& drawn) {
  QCOMPARE(drawn.panels.size(), views.size());
  for (std::size_t p = 0; p < views.size(); ++p) {
    const QString panel = where + QStringLiteral(", panel %1").arg(p);
    const FigureRows& rows = drawn.panels[p];
    if (!rows.cut.empty())
      QFAIL(qPrintable(panel + QStringLiteral(": cut ") + QString::fromStdString(rows.cut.front().label)));
    std::set<LaneIndex> drawn_lanes;
    for (const LaneRow& row : rows.drawn)
      if (row.lane) drawn_lanes.insert(*row.lane);
    const Trace& trace = *views[p]->trace();
    const TimeWindow window = views[p]->window();
    int gpu_lanes = 0;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
      const Lane& lane = trace.lanes()[i];
      if (!lane.is_gpu()) continue;
      const bool has_work = std::any_of(lane.events.begin(), lane.events.end(), [&](const Event& e) {
        return e.start_ns < window.t1_ns && e.end_ns() > window.t0_ns;
      });
      if (!has_work) continue;
      ++gpu_lanes;
      QVERIFY2(drawn_lanes.count(static_cast<LaneIndex>(i)) == 1,
               qPrintable(panel + QStringLiteral(": GPU lane %1 not drawn").arg(i)));
    }
    QVERIFY2(gpu_lanes > 0, qPrintable(panel + QStringLiteral(": no GPU work in the window")));
    const OverlayData& overlays = views[p]->state().overlays;
    if (!overlays.critical_path.stretches.empty())
      QVERIFY2(std::any_of(rows.drawn.begin(), rows.drawn.end(),
                           [](const LaneRow& r) { return r.label.rfind("critical path", 0) == 0; }),
               qPrintable(panel + QStringLiteral(": no critical path")));
    if (!overlays.busy_gpus.empty()) QVERIFY2(rows.busy_strip_px > 0, qPrintable(panel + ": no busy strip"));
  }
}

// The figure fits the height asked, or says it grew.
void check_fit(const QString& where, const FigureLayout& layout, int height_px) {
  if (layout.height_px > height_px + 0.5) {
    QCOMPARE(layout.fit, FigureFit::Grown);
    const std::string note = figure_fit_note(layout, height_px);
    QVERIFY2(note.find("px tall, more than the") != std::string::npos, qPrintable(where + ": " + note.c_str()));
  }
  // Title, panels, legend and caption one under another.
  QVERIFY2(!layout.plot.overlaps(layout.legend) && !layout.plot.overlaps(layout.caption) &&
               !layout.title.overlaps(layout.plot),
           qPrintable(where + ": parts overlap"));
}

}  // namespace

class PanelsFigureTest : public QObject {
  Q_OBJECT

 private slots:
  void whatIfFiguresDrawEveryLaneAndTheBand() {
    int figures = 0;
    for (const whatif::RecordedPair& pair : recorded_pairs()) {
      if (std::string_view(pair.changes) == "balanced-ranks") continue;  // predicted with no timeline
      const LoadResult loaded = load_trace_file(recording(pair.from));
      QVERIFY2(loaded.error.isEmpty(), qPrintable(loaded.error));
      const Expected<std::vector<whatif::Change>> changes = whatif::parse_changes(pair.changes);
      QVERIFY(changes.ok());
      WhatIfRun run = compute_whatif(loaded.trace, loaded.analysis, recording(pair.from), *changes);
      QVERIFY2(run.ok(), qPrintable(run.error));
      QVERIFY2(run.variant != nullptr, pair.to);
      WhatIfView view;
      view.resize(1600, 1000);
      view.set_run(std::move(run));
      view.show();
      QCoreApplication::processEvents();
      QCOMPARE(view.panel_count(), 3);
      view.panels()->show_timed_work();
      const std::vector<TimelineView*> views = views_of(*view.panels());
      const PanelsFigure figure = view.figure(false);
      QVERIFY(figure.title.startsWith(QStringLiteral("What if: ")));
      QVERIFY2(figure.caption.contains(band_meaning(view.run().prediction)), qPrintable(figure.caption));
      QVERIFY(figure.headers.at(1).startsWith(QStringLiteral("PREDICTED (not a recording)")));
      QCOMPARE(figure.strip_lines, 4);
      for (const auto& [w, h] : kSizes) {
        const QString where = QStringLiteral("what if %1 %2 at %3x%4").arg(pair.from, pair.changes).arg(w).arg(h);
        ExportOptions o;
        o.width_px = w;
        o.height_px = h;
        const PanelsFigureDrawn drawn = panels_figure_drawn(views, figure, o);
        check_drawn(where, views, drawn);
        check_fit(where, drawn.layout, h);
        QVERIFY2(drawn.strip.h > 0 && drawn.strip.y >= drawn.layout.plot.y, qPrintable(where + ": no band"));
        ++figures;
      }
    }
    QVERIFY(figures >= 16 * 3);
  }

  void compareFiguresDrawEveryLane() {
    int figures = 0;
    std::set<std::pair<std::string, std::string>> done;
    for (const whatif::RecordedPair& pair : recorded_pairs()) {
      if (std::string_view(pair.changes) == "balanced-ranks") continue;  // CPU ranks: no GPU lane to draw
      if (!done.insert({pair.from, pair.to}).second) continue;
      CompareView view;
      view.resize(1600, 1000);
      QCOMPARE(view.add_files({recording(pair.from), recording(pair.to)}), QString());
      view.show();
      QCoreApplication::processEvents();
      view.show_timed_work();
      const std::vector<TimelineView*> views = views_of(view);
      const PanelsFigure figure = view.figure(false);
      QVERIFY2(figure.title.contains(QStringLiteral(" vs ")), qPrintable(figure.title));
      QCOMPARE(figure.headers.size(), std::size_t{2});
      for (const QString& header : figure.headers) QVERIFY2(!header.contains("hover"), qPrintable(header));
      for (const auto& [w, h] : kSizes) {
        const QString where = QStringLiteral("compare %1 %2 at %3x%4").arg(pair.from, pair.to).arg(w).arg(h);
        ExportOptions o;
        o.width_px = w;
        o.height_px = h;
        const PanelsFigureDrawn drawn = panels_figure_drawn(views, figure, o);
        check_drawn(where, views, drawn);
        check_fit(where, drawn.layout, h);
        QCOMPARE(drawn.strip.h, 0.0);
        ++figures;
      }
    }
    QVERIFY(figures >= 12 * 3);
  }

  // The files: as tall as the layout says, in every format, the SVG in the generic font family; the views as they
  // were afterwards.
  void theFigureIsWrittenAndTheViewsComeBack() {
    const LoadResult loaded = load_trace_file(recording("h200x1/sequential"));
    const std::vector<whatif::Change> changes = {*whatif::parse_change("streams")};
    WhatIfView view;
    view.resize(1400, 1000);
    view.set_run(compute_whatif(loaded.trace, loaded.analysis, recording("h200x1/sequential"), changes));
    view.show();
    // The panels grow to their lanes in a few layout passes: until their height holds.
    for (int last = -1, i = 0; i < 100 && view.panels()->minimumHeight() != last; ++i) {
      last = view.panels()->minimumHeight();
      QTest::qWait(100);
    }
    const std::vector<TimelineView*> views = views_of(*view.panels());
    std::vector<double> scroll_px;
    std::vector<double> label_px;
    for (TimelineView* v : views) {
      scroll_px.push_back(v->scroll_px());
      label_px.push_back(v->label_width_px());
    }
    QTemporaryDir dir;
    ExportOptions o;
    o.width_px = 1280;
    o.height_px = 720;
    const PanelsFigureDrawn drawn = panels_figure_drawn(views, view.figure(false), o);
    for (const char* suffix : {"png", "jpg", "svg", "pdf"}) {
      o.path = dir.filePath(QStringLiteral("whatif.%1").arg(QLatin1String(suffix)));
      std::string note;
      const Status s = view.export_figure(o, false, &note);
      QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
      QVERIFY(QFileInfo(o.path).size() > 0);
      if (std::string_view(suffix) == "png") {
        const QImage image(o.path);
        QCOMPARE(image.width(), 1280);
        QCOMPARE(image.height(), static_cast<int>(std::ceil(drawn.layout.height_px)));
        QCOMPARE(note.empty(), drawn.layout.fit == FigureFit::Fits && image.height() <= 720);
      }
      if (std::string_view(suffix) == "svg") {
        // Written as the trace figure is: text in the generic family, never this machine's font by name.
        QFile file(o.path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString svg = QString::fromUtf8(file.readAll());
        const qsizetype families = svg.count(QStringLiteral("font-family="));
        QVERIFY(families > 0);
        QCOMPARE(svg.count(QStringLiteral("font-family=\"sans-serif\"")), families);
        QVERIFY(svg.contains(view.figure(false).title.toHtmlEscaped()));
      }
    }
    for (std::size_t i = 0; i < views.size(); ++i) {
      QCOMPARE(views[i]->scroll_px(), scroll_px[i]);
      QCOMPARE(views[i]->label_width_px(), label_px[i]);
      QVERIFY(!views[i]->state().figure);
    }
    o.path = dir.filePath(QStringLiteral("whatif.bmp"));
    QVERIFY(!view.export_figure(o, false).ok());
  }

  void legendsMergeByGroupAndLabel() {
    const std::vector<LegendGroup> a = {{"Events by kind", {{1, "kernel"}, {2, "memcpy"}}}};
    const std::vector<LegendGroup> b = {{"Events by kind", {{1, "kernel"}, {3, "sync"}}}, {"Warm-up", {{4, "first"}}}};
    const std::vector<LegendGroup> merged = merged_legend({a, b});
    QCOMPARE(merged.size(), std::size_t{2});
    QCOMPARE(merged[0].entries.size(), std::size_t{3});
    QCOMPARE(merged[0].entries[2].label, std::string("sync"));
    QCOMPARE(merged[1].title, std::string("Warm-up"));
  }
};

}  // namespace gtv::ui

QTEST_MAIN(gtv::ui::PanelsFigureTest)
#include "panels_figure_test.moc"
