// Figure export: title, legend and caption around the plot, never over it, in every format.
#include <qcustomplot.h>

#include <QImage>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include "gtv/ui/export.h"
#include "gtv/ui/figure_rows.h"
#include "gtv/ui/first_view.h"
#include "gtv/ui/timeline_layers.h"
#include "gtv/ui/timeline_state.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"

namespace gtv::ui {

class FigureExportTest : public QObject {
  Q_OBJECT

  LoadResult loaded_;
  std::unique_ptr<TimelineView> view_;

  ExportOptions figure_options(const QString& path) const {
    ExportOptions o;
    o.path = path;
    o.width_px = 1200;
    o.whole_trace = true;
    o.figure = figure_text(*loaded_.trace, *loaded_.analysis,
                           QStringLiteral(GTV_TEST_DATA_DIR "/pytorch/two_gpus_streams.json.gz"));
    return o;
  }

 private slots:
  void initTestCase() {
    loaded_ = load_trace_file(QStringLiteral(GTV_TEST_DATA_DIR "/pytorch/two_gpus_streams.json.gz"));
    QVERIFY2(loaded_.error.isEmpty(), qPrintable(loaded_.error));
    QVERIFY(loaded_.analysis);
    view_ = std::make_unique<TimelineView>();
    view_->resize(1200, 800);
    view_->set_trace(loaded_.trace);
    view_->set_overlays(loaded_.analysis->overlays);
    view_->replot_now();
  }

  void figureTextNamesTheTraceAndItsVerdict() {
    const FigureText text = figure_options(QString()).figure.value();
    QVERIFY(text.title.startsWith(QStringLiteral("two_gpus_streams")));
    QVERIFY(!text.legend.empty());
    if (!loaded_.analysis->report().verdict.empty())
      QVERIFY(text.caption.startsWith(QString::fromStdString(loaded_.analysis->report().verdict.front())));
  }

  // A run merged from rank files is titled by its ranks and what each ran on, not by a GPU count that may
  // count one shared GPU twice.
  void figureTitleOfARunNamesItsRanks() {
    const LoadResult run = load_rank_files({QStringLiteral(GTV_TEST_DATA_DIR "/pytorch/ddp_gloo_rank0.json.gz"),
                                            QStringLiteral(GTV_TEST_DATA_DIR "/pytorch/ddp_gloo_rank1.json.gz")},
                                           RankMergeOptions{});
    QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
    const FigureText text = figure_text(*run.trace, *run.analysis, QString());
    QCOMPARE(text.title, QStringLiteral("2 ranks: ddp_gloo_rank0, ddp_gloo_rank1 \u2014 1x NVIDIA H200 per rank"));
    QVERIFY(text.caption.contains(QStringLiteral("Over the whole trace, rank 1 arrived last at 3 of 3 all-reduces")));
  }

  void svgCarriesTitleLegendAndVerdict() {
    QTemporaryDir dir;
    const ExportOptions o = figure_options(dir.filePath(QStringLiteral("figure.svg")));
    QVERIFY(export_timeline(*view_, o).ok());
    QFile file(o.path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString svg = QString::fromUtf8(file.readAll());
    auto contains = [&](const QString& text) { return svg.contains(text.toHtmlEscaped()) || svg.contains(text); };
    QVERIFY2(contains(o.figure->title), qPrintable(o.figure->title));
    for (const LegendGroup& g : o.figure->legend) {
      QVERIFY2(contains(QString::fromStdString(g.title)), g.title.c_str());
      for (const LegendEntry& e : g.entries) QVERIFY2(contains(QString::fromStdString(e.label)), e.label.c_str());
    }
    // The caption is wrapped: its first words are on its first line.
    const QString first_words = o.figure->caption.section(QLatin1Char(' '), 0, 3);
    QVERIFY2(!first_words.isEmpty() && contains(first_words), qPrintable(first_words));
    // Text in the generic family, never this machine's font by name.
    const qsizetype families = svg.count(QStringLiteral("font-family="));
    QVERIFY(families > 0);
    QCOMPARE(svg.count(QStringLiteral("font-family=\"sans-serif\"")), families);
  }

  void pngLegendSitsBelowThePlotAtTheLaidOutPlace() {
    QTemporaryDir dir;
    ExportOptions o = figure_options(dir.filePath(QStringLiteral("figure.png")));
    o.height_px = 5000;  // a maximum: the image is no taller than it needs
    const FigureLayout layout = export_figure_layout(*view_, o);
    QVERIFY(export_timeline(*view_, o).ok());
    const QImage image(o.path);
    QCOMPARE(image.width(), 1200);
    QCOMPARE(image.height(), static_cast<int>(std::ceil(layout.height_px)));
    QVERIFY(image.height() < 5000);
    QVERIFY(!layout.legend.overlaps(layout.plot));
    QVERIFY(!layout.caption.overlaps(layout.plot));
    QVERIFY(!layout.title.overlaps(layout.plot));
    QVERIFY(layout.legend.y >= layout.plot.bottom());
    // Each swatch's centre has its entry's colour: the legend is drawn where the layout put it.
    std::size_t item = 0;
    for (const LegendGroup& g : o.figure->legend) {
      ++item;  // the group's title
      for (const LegendEntry& e : g.entries) {
        const Box& box = layout.legend_items.at(item++);
        const QPoint centre(static_cast<int>(box.x + 6), static_cast<int>(box.y + box.h / 2));
        QCOMPARE(image.pixel(centre) & 0xffffff, static_cast<QRgb>(e.color));
      }
    }
  }

  void busyStripTooltipSaysHowManyGpusAndWhen() {
    view_->fit();
    view_->replot_now();
    const QRectF strip =
        view_->state().band_rect(view_->plot()->axisRect()->rect(), kBusyStripRowId).value_or(QRectF());
    QVERIFY(strip.height() > 0);
    bool found = false;
    for (double x = strip.left() + 1; x < strip.right() && !found; x += 3) {
      const QString tip = view_->tooltip_at(QPointF(x, strip.center().y()));
      if (tip.isEmpty()) continue;
      QVERIFY2(tip.contains(QStringLiteral("GPUs busy")) && tip.contains(QStringLiteral("\nfrom ")), qPrintable(tip));
      found = true;
    }
    QVERIFY(found);
  }

  // Warm-up labels sit under the last lane; an image sized to its lanes makes room for them only when a warm-up
  // band is in view (else they would be drawn over the GPU lanes, or the figure would end in empty rows).
  void warmupLabelsGetRoomOnlyWhenInView() {
    TimelineState state;
    state.window = {0, 1000};
    QCOMPARE(warmup_label_band_px(state), 0.0);
    state.overlays.warmup.push_back(ShadedSegment{100, 200, "warm-up: module loading (GPU 0)", "", 0});
    const double band_px = warmup_label_band_px(state);
    QVERIFY(band_px >= QFontMetricsF(state.theme.font(8)).height());  // one line of names
    state.window = {300, 1000};
    QCOMPARE(warmup_label_band_px(state), 0.0);
  }

  // A figure of a bundled recording on the window it opens on shows rows only: no collapsed lane or group, no row
  // with nothing in the window (the empty "recorded ranges" rows and idle worker threads of `threads`), no thread
  // of the profiler's own records, no bookkeeping process; and the window's own layout had some of those.
  void figureRowsOfBundledRecordingsHoldSomething() {
    for (const char* name : {"h200x2/threads.json.gz", "h200x2/sequential.json.gz", "h200x1/processes.json.gz"}) {
      const LoadResult loaded = load_trace_file(QStringLiteral(GTV_SOURCE_DIR "/resources/traces/") + name);
      QVERIFY2(loaded.error.isEmpty(), qPrintable(loaded.error));
      const Trace& trace = *loaded.trace;
      TimelineView view;
      view.set_trace(loaded.trace);
      view.set_overlays(loaded.analysis->overlays);
      const TimeWindow window = first_view_window(trace, loaded.analysis->report());
      const LaneViewState state = figure_lane_state(trace, view.timeline_rows(), window);
      const LaneLayout figure(row_descs(view.timeline_rows()), state, LayoutOptions{});
      const LaneLayout window_layout(row_descs(view.timeline_rows()), view.lane_state(), LayoutOptions{});
      QVERIFY2(figure.rows().size() < window_layout.rows().size(), name);
      const auto& rows = figure.rows();
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const LaneRow& row = rows[i];
        const bool header = row.kind == RowKind::ProcessHeader || row.kind == RowKind::DeviceHeader;
        QVERIFY2(!row.collapsed, row.label.c_str());
        if (header) {
          // Every header heads a row.
          QVERIFY2(i + 1 < rows.size() && rows[i + 1].group == row.group, row.label.c_str());
          QVERIFY2(row.label.find("profiler's own records") == std::string::npos, row.label.c_str());
        } else if (row.lane) {
          const Lane& lane = trace.lane(*row.lane);
          QVERIFY2(!holds_only_profiler_records(trace, lane), row.label.c_str());
          const bool in_window = std::any_of(lane.events.begin(), lane.events.end(), [&](const Event& e) {
            return e.end_ns() > window.t0_ns && e.start_ns < window.t1_ns;
          });
          QVERIFY2(in_window, row.label.c_str());
          // As deep as the events in the window nest, not as the whole trace.
          int depths = 0;
          for (const Event& e : lane.events)
            if (e.end_ns() > window.t0_ns && e.start_ns < window.t1_ns) depths = std::max(depths, e.depth + 1);
          QCOMPARE(row.depth_rows, depths);
        } else {
          QVERIFY2(view.timeline_rows().at(row.row)->has_content_in(window.t0_ns, window.t1_ns), row.label.c_str());
        }
      }
    }
  }

  // CUPTI's buffer thread, unnamed in the file, is named by what it is.
  void cuptiThreadIsNamed() {
    const LoadResult loaded =
        load_trace_file(QStringLiteral(GTV_SOURCE_DIR "/resources/traces/h200x2/sequential.json.gz"));
    QVERIFY2(loaded.error.isEmpty(), qPrintable(loaded.error));
    const std::vector<LaneDesc> descs = lane_descs(*loaded.trace);
    QVERIFY(
        std::any_of(descs.begin(), descs.end(), [](const LaneDesc& d) { return d.name == "CUPTI thread 3373395968"; }));
    QVERIFY(std::none_of(descs.begin(), descs.end(), [](const LaneDesc& d) { return d.name == "thread 3373395968"; }));
  }

  // The figure's label column has names only, and the view is as it was afterwards.
  void figureHasNoTrianglesAndGivesTheViewBack() {
    QTemporaryDir dir;
    const ExportOptions o = figure_options(dir.filePath(QStringLiteral("figure.svg")));
    const double label_px = view_->label_width_px();
    const double font_scale = view_->theme().font_scale;
    const std::size_t rows = view_->layout().rows().size();
    QVERIFY(export_timeline(*view_, o).ok());
    QFile file(o.path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString svg = QString::fromUtf8(file.readAll());
    QVERIFY(!svg.contains(QChar(0x25BE)) && !svg.contains(QChar(0x25B8)));
    QVERIFY(svg.contains(QStringLiteral("stream")));  // the lane names are there
    QCOMPARE(view_->label_width_px(), label_px);
    QCOMPARE(view_->theme().font_scale, font_scale);
    QCOMPARE(view_->layout().rows().size(), rows);
    QVERIFY(!view_->state().figure);
  }

  // Text grows with the figure's width: the title line of a 1600 px figure is about twice that of an 800 px one.
  void textSizeFollowsTheWidth() {
    ExportOptions o = figure_options(QStringLiteral("unused.png"));
    o.width_px = 800;
    const double narrow_px = export_figure_layout(*view_, o).title.h;
    o.width_px = 1600;
    const double wide_px = export_figure_layout(*view_, o).title.h;
    QVERIFY2(wide_px > 1.7 * narrow_px, qPrintable(QStringLiteral("%1 vs %2").arg(wide_px).arg(narrow_px)));
    QCOMPARE(figure_font_scale(800), 800 / 768.0);
    QCOMPARE(figure_font_scale(400), 1.0);
    QCOMPARE(figure_font_scale(20000), 4.0);
  }

  void labelWidthPresets() {
    QCOMPARE(figure_label_width_px("narrow", 1000, 500).value(), 120.0);
    QCOMPARE(figure_label_width_px("wide", 1000, 10).value(), 300.0);
    QCOMPARE(figure_label_width_px("auto", 1000, 212.4).value(), 213.0);
    QCOMPARE(figure_label_width_px("auto", 1000, 900).value(), 300.0);
    QCOMPARE(figure_label_width_px("250", 1000, 900).value(), 250.0);
    QVERIFY(!figure_label_width_px("900", 1000, 0));
    QVERIFY(!figure_label_width_px("12em", 1000, 0));
    // The export takes the preset: a wide column pushes the plot right.
    QTemporaryDir dir;
    ExportOptions o = figure_options(dir.filePath(QStringLiteral("f.png")));
    o.label_width = "bogus";
    QVERIFY(!export_timeline(*view_, o).ok());
    QVERIFY(!QFileInfo::exists(o.path));
  }

  void everyFormatWritesAFigure() {
    QTemporaryDir dir;
    for (const char* name : {"f.png", "f.jpg", "f.pdf", "f.svg"}) {
      const ExportOptions o = figure_options(dir.filePath(QLatin1String(name)));
      QVERIFY2(export_timeline(*view_, o).ok(), name);
      QVERIFY2(QFileInfo(o.path).size() > 1000, name);
    }
  }
};

}  // namespace gtv::ui

QTEST_MAIN(gtv::ui::FigureExportTest)
#include "figure_export_test.moc"
