// Figure export: title, legend and caption around the plot, never over it, in every format.
#include <qcustomplot.h>

#include <QImage>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include "gtv/ui/export.h"
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
    if (!loaded_.analysis->report.verdict.empty())
      QVERIFY(text.caption.startsWith(QString::fromStdString(loaded_.analysis->report.verdict.front())));
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
    const QRectF strip = view_->state().busy_strip_rect(view_->plot()->axisRect()->rect());
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
    QVERIFY(band_px >= 3 * QFontMetricsF(state.theme.font(8)).height());
    state.window = {300, 1000};
    QCOMPARE(warmup_label_band_px(state), 0.0);
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
