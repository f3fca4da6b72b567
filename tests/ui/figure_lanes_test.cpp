// Figures of every bundled recording at the sizes slides and papers use: the lanes are the figure and never give
// way. Every GPU lane with work in the figure's window, every host thread the figure keeps and the critical path are
// drawn whole, with the GPUs-busy strip and the idle rows; where that needs more than the height asked, the legend
// gets compact or the figure grows, and the export says which.
#include <QDirIterator>
#include <QtTest/QtTest>
#include <set>

#include "gtv/ui/export.h"
#include "gtv/ui/figure_rows.h"
#include "gtv/ui/first_view.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"

namespace gtv::ui {

class FigureLanesTest : public QObject {
  Q_OBJECT

  static QStringList bundled_recordings() {
    QStringList files;
    QDirIterator it(QStringLiteral(GTV_SOURCE_DIR "/resources/traces"), {QStringLiteral("*.json.gz")}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) files << it.next();
    files.sort();
    return files;
  }

 private slots:
  void everyLaneIsDrawnAtSlideSizes() {
    const QStringList files = bundled_recordings();
    QVERIFY(files.size() >= 30);
    int grown = 0, compact = 0;
    for (const QString& file : files) {
      const LoadResult loaded = load_trace_file(file);
      QVERIFY2(loaded.error.isEmpty(), qPrintable(loaded.error));
      const Trace& trace = *loaded.trace;
      const OverlayData& overlays = loaded.analysis->overlays;
      // As `gtv --export --size WxH` draws it: the window the trace opens on.
      const TimeWindow window = first_view_window(trace, loaded.analysis->report());
      for (const auto& [w, h] : {std::pair{1600, 900}, std::pair{1280, 720}, std::pair{1131, 757}}) {
        const QString where = QStringLiteral("%1 at %2x%3").arg(file.section(QLatin1Char('/'), -2)).arg(w).arg(h);
        TimelineView view;
        view.resize(w, 900);
        view.set_trace(loaded.trace);
        view.set_overlays(overlays);
        view.replot_now();
        ExportOptions o;
        o.width_px = w;
        o.height_px = h;
        o.range = TimeWindow{window.t0_ns - trace.start_ns(), window.t1_ns - trace.start_ns()};
        o.figure = figure_text(trace, *loaded.analysis, file);
        const FigureRows rows = export_figure_rows(view, o);
        if (!rows.cut.empty())
          QFAIL(qPrintable(where + QStringLiteral(": cut ") + QString::fromStdString(rows.cut.front().label)));
        std::set<std::string> drawn;
        std::set<LaneIndex> drawn_lanes;
        for (const LaneRow& row : rows.drawn) {
          drawn.insert(row.label);
          if (row.lane) drawn_lanes.insert(*row.lane);
        }
        // Every GPU lane with work in the window.
        const auto& lanes = trace.lanes();
        for (std::size_t i = 0; i < lanes.size(); ++i) {
          if (!lanes[i].is_gpu()) continue;
          const auto& events = lanes[i].events;
          const bool has_work = std::any_of(events.begin(), events.end(), [&](const Event& e) {
            return e.start_ns < window.t1_ns && e.end_ns() > window.t0_ns;
          });
          if (has_work)
            QVERIFY2(drawn_lanes.count(static_cast<LaneIndex>(i)) == 1,
                     qPrintable(where + QStringLiteral(": GPU lane %1 not drawn").arg(i)));
        }
        if (!overlays.critical_path.stretches.empty())
          QVERIFY2(std::any_of(rows.drawn.begin(), rows.drawn.end(),
                               [](const LaneRow& r) { return r.label.rfind("critical path", 0) == 0; }),
                   qPrintable(where + QStringLiteral(": no critical path")));
        if (!overlays.busy_gpus.empty()) QVERIFY2(rows.busy_strip_px > 0, qPrintable(where + ": no busy strip"));
        if (!overlays.idle.empty()) QVERIFY2(rows.idle_row_px > 0, qPrintable(where + ": no idle rows"));
        // The figure fits the height asked, or says what it did instead.
        const FigureLayout layout = export_figure_layout(view, o);
        const std::string note = figure_fit_note(layout, h);
        if (layout.height_px > h + 0.5) {
          QCOMPARE(layout.fit, FigureFit::Grown);
          QVERIFY2(note.find("px tall, more than the") != std::string::npos, note.c_str());
          ++grown;
        } else {
          compact += layout.fit == FigureFit::CompactLegend;
        }
      }
    }
    qInfo("figures grown past the height asked: %d, with a compact legend: %d", grown, compact);
  }
};

}  // namespace gtv::ui

QTEST_MAIN(gtv::ui::FigureLanesTest)
#include "figure_lanes_test.moc"
