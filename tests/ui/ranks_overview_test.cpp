// QtTest (offscreen): the ranks overview of a reduced run. A generated run of 12 ranks (rank 5 late before every
// all-reduce, clocks off by up to +/-50 ms) is written as rank trace files with their .gtvsum summaries; the window
// opens the folder, marks the straggler's row, sorts it first by lateness, and a click on its cell opens its own
// trace at that collective's time. The exported figure draws the same grid.
#include "gtv/ui/ranks_overview.h"

#include <QImage>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest/QtTest>
#include <algorithm>

#include "../unit/ranks/generated_run.h"
#include "bench/generated_summaries.h"
#include "gtv/io/trace_file.h"
#include "gtv/model/collectives.h"
#include "gtv/ranks/summary_file.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_tab.h"

using namespace gtv;
using namespace gtv::ui;

namespace {

constexpr int kRanks = 12;
constexpr int kStraggler = 5;

// The rank's all-reduce kernels in the rank's own file, by start.
std::vector<TimeNs> all_reduce_starts(const Trace& trace) {
  std::vector<TimeNs> out;
  for (const Lane& lane : trace.lanes())
    for (const Event& e : lane.events)
      if (trace.name(e).find("AllReduce") != std::string_view::npos) out.push_back(e.start_ns);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

class RanksOverviewTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString folder_;

  RanksOverview* open_folder(MainWindow& window) {
    window.open_files({folder_});  // as a drop of the folder, or File > Open of its summaries
    auto* overview = qobject_cast<RanksOverview*>(window.tabs()->currentWidget());
    if (overview == nullptr) return nullptr;
    overview->wait();
    // The generated clocks are off by up to 50 ms: aligned on the collectives, as the clock choice does.
    RankMergeOptions options;
    options.clock = ClockMethod::Collectives;
    overview->reduce_with(options);
    overview->wait();
    overview->resize(1200, 700);
    overview->show();
    QCoreApplication::processEvents();
    return overview;
  }

  static std::size_t row_of_rank(const RanksCanvas& canvas, std::int64_t rank) {
    const auto& ranks = canvas.grid().ranks;
    return static_cast<std::size_t>(std::find(ranks.begin(), ranks.end(), rank) - ranks.begin());
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    folder_ = dir_.filePath(QStringLiteral("run"));
    QVERIFY(QDir().mkpath(folder_));
    ranks::testing::RunSpec spec;
    spec.ranks = kRanks;
    spec.steps = 30;
    spec.straggler = kStraggler;
    const ranks::testing::GeneratedRun run = ranks::testing::generate_run(spec);
    std::vector<ranks::RankSummary> all;
    for (int r = 0; r < kRanks; ++r) {
      // As a user makes them: the trace file, then gtv-cli summarize of the file as read back.
      const std::string trace_path = (folder_ + QStringLiteral("/rank%1.json").arg(r)).toStdString();
      QVERIFY(io::write_trace(run.files[static_cast<std::size_t>(r)], trace_path).ok());
      Expected<Trace> read = io::read_trace(trace_path);
      QVERIFY(static_cast<bool>(read));
      const std::vector<ranks::RankSummary> summary = ranks::summarize(*read, trace_path);
      QVERIFY(ranks::write_summary_file(summary, trace_path + ".gtvsum").ok());
      all.insert(all.end(), summary.begin(), summary.end());
    }
    // What gtv-cli reduce --gather writes: the run's summaries in one file elsewhere, sources absolute.
    QVERIFY(QDir().mkpath(dir_.filePath(QStringLiteral("gathered"))));
    QVERIFY(ranks::write_summary_file(all, dir_.filePath(QStringLiteral("gathered/run.gtvsum")).toStdString()).ok());
  }

  void marksTheStragglerRow() {
    MainWindow window;
    RanksOverview* overview = open_folder(window);
    QVERIFY(overview != nullptr);
    QVERIFY(overview->run() != nullptr);
    RanksCanvas* canvas = overview->canvas();
    QCOMPARE(canvas->grid().rank_count, std::size_t{kRanks});
    QCOMPARE(canvas->grid().straggler, static_cast<std::int64_t>(row_of_rank(*canvas, kStraggler)));
    // Drawn: the marker strip is red on the straggler's row only.
    const QImage image = canvas->grab().toImage();
    const QRect strip = canvas->marker_strip();
    const std::size_t straggler_row = row_of_rank(*canvas, kStraggler);
    const QColor red = RanksCanvas::straggler_colour();
    for (int rank = 0; rank < kRanks; ++rank) {
      const QPoint centre = canvas->cell_centre(row_of_rank(*canvas, rank), 0);
      const QColor marker = image.pixelColor(strip.center().x(), centre.y());
      QCOMPARE(marker == red, row_of_rank(*canvas, rank) == straggler_row);
    }
    // Bounding rank: the straggler bounded every all-reduce; in the Caused colours only its row has colour there.
    for (std::size_t c = 0; c < canvas->grid().collective_count; ++c)
      if (canvas->grid().bound[c] >= 0 && canvas->grid().caused_ns[straggler_row * canvas->grid().collective_count + c])
        QCOMPARE(canvas->grid().bound[c], static_cast<std::int64_t>(straggler_row));
    // By lateness: the straggler comes first.
    canvas->set_by_lateness(true);
    QCOMPARE(canvas->order().front(), straggler_row);
    // Exact times on hover.
    const QString tip = canvas->cell_tooltip(straggler_row, 1);
    QVERIFY2(tip.contains(QStringLiteral("rank %1").arg(kStraggler)), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("the others waited for it")), qPrintable(tip));
  }

  void clickOpensTheRankAtTheCollective() {
    MainWindow window;
    RanksOverview* overview = open_folder(window);
    QVERIFY(overview != nullptr);
    RanksCanvas* canvas = overview->canvas();
    const std::size_t row = row_of_rank(*canvas, kStraggler);
    // The 20th all-reduce (collective columns count broadcasts too).
    std::size_t column = canvas->grid().collective_count;
    std::size_t seen = 0;
    const auto& collectives = overview->run()->report.stragglers.collectives;
    for (std::size_t c = 0; c < collectives.size() && column == collectives.size(); ++c)
      if (collectives[c].kind == "AllReduce" && seen++ == 19) column = c;
    QVERIFY(column < collectives.size());
    const int tabs_before = window.tabs()->count();
    QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->cell_centre(row, column));
    QCOMPARE(window.tabs()->count(), tabs_before + 1);
    auto* tab = qobject_cast<TraceTab*>(window.tabs()->currentWidget());
    QVERIFY(tab != nullptr);
    QCOMPARE(QFileInfo(tab->document()->path()).fileName(), QStringLiteral("rank%1.json").arg(kStraggler));
    tab->document()->wait();
    QCoreApplication::processEvents();
    QVERIFY(tab->document()->trace() != nullptr);
    // The window shows the rank's 20th all-reduce kernel, on the rank's own clock, and not the next one.
    const std::vector<TimeNs> starts = all_reduce_starts(*tab->document()->trace());
    QVERIFY(starts.size() > 20);
    const TimeWindow shown = tab->view()->window();
    QVERIFY2(shown.t0_ns <= starts[19] && starts[19] <= shown.t1_ns,
             qPrintable(QStringLiteral("%1..%2 misses %3").arg(shown.t0_ns).arg(shown.t1_ns).arg(starts[19])));
    QVERIFY(shown.t1_ns < starts[20]);
    QVERIFY(shown.t0_ns > starts[18]);
  }

  void figureDrawsTheOverview() {
    MainWindow window;
    RanksOverview* overview = open_folder(window);
    QVERIFY(overview != nullptr);
    const QString out = dir_.filePath(QStringLiteral("ranks.png"));
    QVERIFY(export_ranks_figure(overview->run(), out, RanksColour::Waited, true, 1200, false).ok());
    QImage image(out);
    QCOMPARE(image.width(), 1200);
    // The straggler's marker and the bounding rank's orange are in the picture.
    bool red = false, orange = false;
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x) {
        const QColor c = image.pixelColor(x, y);
        red = red || c == RanksCanvas::straggler_colour();
        orange = orange || c == QColor(0xff, 0x90, 0x00);
      }
    QVERIFY(red);
    QVERIFY(orange);
  }

  void gatheredFileOpensAlike() {
    MainWindow window;
    window.open_files({dir_.filePath(QStringLiteral("gathered/run.gtvsum"))});
    auto* overview = qobject_cast<RanksOverview*>(window.tabs()->currentWidget());
    QVERIFY(overview != nullptr);
    overview->wait();
    QVERIFY(overview->run() != nullptr);
    QCOMPARE(overview->run()->report.stragglers.ranks.size(), std::size_t{kRanks});
    const std::string expected = (folder_ + QStringLiteral("/rank%1.json").arg(kStraggler)).toStdString();
    QCOMPARE(overview->run()->rank_files[kStraggler], expected);
  }

  void noStragglerMarkedWhenNoneLeads() {
    // Nobody planted late: every collective's last arrival is whoever the noise makes it.
    gtv::ui::testing::SummarySpec spec;
    spec.ranks = 16;
    spec.collectives = 40;
    spec.delay_ns = 0;
    spec.slow_host_rank = 100;
    RankMergeOptions collectives;
    collectives.clock = ClockMethod::Collectives;
    const Expected<ranks::RankReport> report = ranks::reduce(gtv::ui::testing::generated_summaries(spec), collectives);
    QVERIFY(static_cast<bool>(report));
    QVERIFY2(report->stragglers.headline.find("no single straggler") != std::string::npos,
             report->stragglers.headline.c_str());
    QCOMPARE(make_ranks_grid(report->stragglers).straggler, std::int64_t{-1});
    // Planted: named, and the grid marks that rank.
    spec.delay_ns = 2'000'000;
    spec.straggler = 9;
    const Expected<ranks::RankReport> planted = ranks::reduce(gtv::ui::testing::generated_summaries(spec), collectives);
    QVERIFY(static_cast<bool>(planted));
    const RanksGrid grid = make_ranks_grid(planted->stragglers);
    QVERIFY(grid.straggler >= 0);
    QCOMPARE(grid.ranks[static_cast<std::size_t>(grid.straggler)], std::int64_t{9});
  }

  void folderWithoutSummariesIsRefused() {
    MainWindow window;
    QString message;
    MainWindow::set_error_hook([&](const QString&, const QString& m) { message = m; });
    const QString empty = dir_.filePath(QStringLiteral("empty"));
    QVERIFY(QDir().mkpath(empty));
    window.open_files({empty});
    auto* overview = qobject_cast<RanksOverview*>(window.tabs()->currentWidget());
    QVERIFY(overview != nullptr);
    overview->wait();
    QCoreApplication::processEvents();
    MainWindow::set_error_hook({});
    QVERIFY2(message.contains(QStringLiteral("no rank summaries")), qPrintable(message));
    QCOMPARE(window.tabs()->indexOf(overview), -1);
    QVERIFY(!window.recent_files().contains(QFileInfo(empty).absoluteFilePath()));
  }
};

QTEST_MAIN(RanksOverviewTest)
#include "ranks_overview_test.moc"
