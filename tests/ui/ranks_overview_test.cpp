// QtTest (offscreen): the ranks overview of a reduced run. A generated run of 12 ranks (rank 5 late before every
// all-reduce, clocks off by up to +/-50 ms) is written as rank trace files with their .gtvsum summaries; the window
// opens the folder, marks the straggler's row, sorts it first by lateness, and a click on its cell opens its own
// trace at that collective's time. The exported figure draws the same grid. A second run marks profiler steps and has
// two planted stragglers taking turns (rank 5 at two steps in three, rank 9 at the third): its step view marks each
// step's late rank as the step's bounding rank, its colours follow the planted waits, and a click opens the rank's
// own trace at its step.
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
constexpr int kSecondStraggler = 9;
constexpr TimeNs kWaitTolerance = 20'000;  // clocks aligned on the collectives, whose ends jitter by 0-3 us

// A cell's colour's distance from the background: how much ink it has.
int ink(const QColor& c, const QColor& background) {
  return std::abs(c.red() - background.red()) + std::abs(c.green() - background.green()) +
         std::abs(c.blue() - background.blue());
}

// The rank's annotations named like `prefix`, by start.
std::vector<std::pair<TimeNs, TimeNs>> ranges_named(const Trace& trace, std::string_view prefix) {
  std::vector<std::pair<TimeNs, TimeNs>> out;
  for (const Lane& lane : trace.lanes())
    for (const Event& e : lane.events)
      if (trace.name(e).starts_with(prefix)) out.emplace_back(e.start_ns, e.end_ns());
  std::sort(out.begin(), out.end());
  return out;
}

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
  QString steps_folder_;
  ranks::testing::GeneratedRun steps_run_;

  // Writes the run's rank files into folder, each with its summary beside it (as gtv-cli summarize makes them).
  static std::vector<ranks::RankSummary> write_run(const ranks::testing::GeneratedRun& run, const QString& folder) {
    std::vector<ranks::RankSummary> all;
    for (std::size_t r = 0; r < run.files.size(); ++r) {
      const std::string trace_path = (folder + QStringLiteral("/rank%1.json").arg(r)).toStdString();
      if (!io::write_trace(run.files[r], trace_path).ok()) return {};
      Expected<Trace> read = io::read_trace(trace_path);
      if (!read) return {};
      const std::vector<ranks::RankSummary> summary = ranks::summarize(*read, trace_path);
      if (!ranks::write_summary_file(summary, trace_path + ".gtvsum").ok()) return {};
      all.insert(all.end(), summary.begin(), summary.end());
    }
    return all;
  }

  RanksOverview* open_folder(MainWindow& window, const QString& folder = {}) {
    window.open_files({folder.isEmpty() ? folder_ : folder});  // as a drop of the folder, or File > Open
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
    // As a user makes them: the trace file, then gtv-cli summarize of the file as read back.
    const std::vector<ranks::RankSummary> all = write_run(run, folder_);
    QCOMPARE(all.size(), std::size_t{kRanks});
    // What gtv-cli reduce --gather writes: the run's summaries in one file elsewhere, sources absolute.
    QVERIFY(QDir().mkpath(dir_.filePath(QStringLiteral("gathered"))));
    QVERIFY(ranks::write_summary_file(all, dir_.filePath(QStringLiteral("gathered/run.gtvsum")).toStdString()).ok());

    steps_folder_ = dir_.filePath(QStringLiteral("steps"));
    QVERIFY(QDir().mkpath(steps_folder_));
    spec.seed = 3;
    spec.second_straggler = kSecondStraggler;
    spec.profiler_steps = true;
    steps_run_ = ranks::testing::generate_run(spec);
    QCOMPARE(write_run(steps_run_, steps_folder_).size(), std::size_t{kRanks});
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
    for (std::size_t c = 0; c < canvas->grid().column_count; ++c)
      if (canvas->grid().bound[c] >= 0 && canvas->grid().caused_ns[straggler_row * canvas->grid().column_count + c])
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
    std::size_t column = canvas->grid().column_count;
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
    RanksFigureOptions figure;
    figure.colour = RanksColour::Waited;
    figure.by_lateness = true;
    figure.width_px = 1200;
    QVERIFY(export_ranks_figure(overview->run(), out, figure).ok());
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

  void stepViewMarksEachStepsBoundingRank() {
    MainWindow window;
    RanksOverview* overview = open_folder(window, steps_folder_);
    QVERIFY(overview != nullptr);
    QVERIFY(overview->run() != nullptr);
    QCOMPARE(overview->run()->report.step_paths.basis, ranks::StepBasis::ProfilerSteps);
    RanksCanvas* canvas = overview->canvas();
    QVERIFY(canvas->has_steps());
    overview->set_view(RanksColour::Waited, false, RanksColumns::Steps);
    QCoreApplication::processEvents();
    const RanksGrid& grid = canvas->grid();
    QCOMPARE(grid.columns, RanksColumns::Steps);
    QCOMPARE(grid.column_count, steps_run_.late_rank.size());
    // The run's straggler: rank 5, late at two steps in three.
    QCOMPARE(grid.straggler, static_cast<std::int64_t>(row_of_rank(*canvas, kStraggler)));
    std::size_t second = 0;
    for (std::size_t step = 0; step < grid.column_count; ++step) {
      const int late = steps_run_.late_rank[step];
      second += late == kSecondStraggler ? 1 : 0;
      // Each step is bound by the rank planted late in it.
      QCOMPARE(grid.bound[step], static_cast<std::int64_t>(row_of_rank(*canvas, late)));
      QCOMPARE(overview->run()->report.step_paths.steps[step].name, "ProfilerStep#" + std::to_string(step));
      for (int rank = 0; rank < kRanks; ++rank) {
        const std::size_t cell = row_of_rank(*canvas, rank) * grid.column_count + step;
        const TimeNs wait = steps_run_.wait_ns[step][static_cast<std::size_t>(rank)];
        const TimeNs caused = steps_run_.caused_ns[step][static_cast<std::size_t>(rank)];
        QVERIFY2(std::abs(grid.waited_ns[cell] - wait) <= std::max(kWaitTolerance, wait / 20),
                 qPrintable(QStringLiteral("step %1 rank %2: waited %3, planted %4")
                                .arg(step)
                                .arg(rank)
                                .arg(grid.waited_ns[cell])
                                .arg(wait)));
        QVERIFY2(std::abs(grid.caused_ns[cell] - caused) <= std::max(kWaitTolerance, caused / 20),
                 qPrintable(QStringLiteral("step %1 rank %2: caused %3, planted %4")
                                .arg(step)
                                .arg(rank)
                                .arg(grid.caused_ns[cell])
                                .arg(caused)));
      }
    }
    QVERIFY(second >= 9);  // the second straggler's steps are there and marked as its own

    // Drawn: the bounding rank's cell in orange; every other cell's ink grows with the rank's wait in the step.
    const QImage image = canvas->grab().toImage();
    const QColor background = image.pixelColor(1, 1);
    for (std::size_t step = 0; step < grid.column_count; ++step) {
      std::vector<std::pair<TimeNs, int>> by_wait;
      for (int rank = 0; rank < kRanks; ++rank) {
        const std::size_t row = row_of_rank(*canvas, rank);
        const QColor c = image.pixelColor(canvas->cell_centre(row, step));
        if (rank == steps_run_.late_rank[step]) {
          QCOMPARE(c, RanksCanvas::bound_colour());
          continue;
        }
        QVERIFY(c != RanksCanvas::bound_colour());
        const TimeNs value = grid.waited_ns[row * grid.column_count + step];
        if (value == 0) QCOMPARE(c, background);
        by_wait.emplace_back(value, ink(c, background));
      }
      std::sort(by_wait.begin(), by_wait.end());
      for (std::size_t i = 1; i < by_wait.size(); ++i) QVERIFY(by_wait[i].second >= by_wait[i - 1].second);
      QVERIFY(by_wait.back().second > by_wait.front().second);  // the waits differ by 1 ms and more: so do colours
    }
    // The others' wait: the late rank has the most ink in its step; the root of a broadcast the others waited for
    // has some; nobody else has any.
    overview->set_view(RanksColour::Caused, false, RanksColumns::Steps);
    const QImage caused = canvas->grab().toImage();
    for (std::size_t step = 0; step < grid.column_count; ++step) {
      const int late = steps_run_.late_rank[step];
      const int late_ink = ink(caused.pixelColor(canvas->cell_centre(row_of_rank(*canvas, late), step)), background);
      for (int rank = 0; rank < kRanks; ++rank) {
        const QColor c = caused.pixelColor(canvas->cell_centre(row_of_rank(*canvas, rank), step));
        QVERIFY(c != RanksCanvas::bound_colour());
        QCOMPARE(c == background, steps_run_.caused_ns[step][static_cast<std::size_t>(rank)] == 0);
        if (rank != late) QVERIFY(ink(c, background) < late_ink);
      }
    }
    // By lateness: the straggler first, then the second straggler.
    overview->set_view(RanksColour::Caused, true, RanksColumns::Steps);
    QCOMPARE(canvas->order()[0], row_of_rank(*canvas, kStraggler));
    QCOMPARE(canvas->order()[1], row_of_rank(*canvas, kSecondStraggler));
    // Exact times on hover, and what the colour means.
    const QString tip = canvas->cell_tooltip(row_of_rank(*canvas, kSecondStraggler), 2);
    QVERIFY2(tip.contains(QStringLiteral("rank %1, ProfilerStep#2").arg(kSecondStraggler)), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("it bounded the step")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("its own ProfilerStep#2")), qPrintable(tip));
    QVERIFY2(canvas->colour_meaning().contains(QStringLiteral("in this step")), qPrintable(canvas->colour_meaning()));
    QCOMPARE(canvas->axis_title(), QStringLiteral("ProfilerStep#"));
    // Back to collectives: one column per matched collective again.
    overview->set_view(RanksColour::Waited, false, RanksColumns::Collectives);
    QCOMPARE(canvas->grid().column_count, overview->run()->report.stragglers.collectives.size());
  }

  void stepsWithoutProfilerStepsEndAtTheAllReduces() {
    // The first run marks no profiler steps: each all-reduce ends a step, all 30 bound by rank 5.
    MainWindow window;
    RanksOverview* overview = open_folder(window);
    QVERIFY(overview != nullptr);
    QCOMPARE(overview->run()->report.step_paths.basis, ranks::StepBasis::Collectives);
    overview->set_view(RanksColour::Waited, false, RanksColumns::Steps);
    RanksCanvas* canvas = overview->canvas();
    QCOMPARE(canvas->grid().column_count, std::size_t{30});
    for (const std::int64_t bound : canvas->grid().bound)
      QCOMPARE(bound, static_cast<std::int64_t>(row_of_rank(*canvas, kStraggler)));
    QCOMPARE(canvas->axis_title(), QStringLiteral("step"));
    QVERIFY(canvas->columns_meaning().contains(QStringLiteral("the ranks mark no profiler steps")));
    const QString tip = canvas->cell_tooltip(row_of_rank(*canvas, 0), 3);
    QVERIFY2(tip.contains(QStringLiteral("rank 0, step 4 (step 4 of 30)")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("the step's bounding rank is rank %1").arg(kStraggler)), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("the step's span across ranks")), qPrintable(tip));
  }

  void clickOnStepOpensTheRankAtItsStep() {
    MainWindow window;
    RanksOverview* overview = open_folder(window, steps_folder_);
    QVERIFY(overview != nullptr);
    overview->set_view(RanksColour::Waited, false, RanksColumns::Steps);
    QCoreApplication::processEvents();
    RanksCanvas* canvas = overview->canvas();
    constexpr std::size_t kStep = 14;  // a step of the second straggler
    QCOMPARE(steps_run_.late_rank[kStep], kSecondStraggler);
    const int tabs_before = window.tabs()->count();
    QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->cell_centre(row_of_rank(*canvas, kSecondStraggler), kStep));
    QCOMPARE(window.tabs()->count(), tabs_before + 1);
    auto* tab = qobject_cast<TraceTab*>(window.tabs()->currentWidget());
    QVERIFY(tab != nullptr);
    QCOMPARE(QFileInfo(tab->document()->path()).fileName(), QStringLiteral("rank%1.json").arg(kSecondStraggler));
    tab->document()->wait();
    QCoreApplication::processEvents();
    QVERIFY(tab->document()->trace() != nullptr);
    // The window shows the rank's own ProfilerStep#14 whole, on its own clock, and neither step beside it.
    const auto steps = ranges_named(*tab->document()->trace(), "ProfilerStep#");
    const std::vector<TimeNs> all_reduces = all_reduce_starts(*tab->document()->trace());
    QCOMPARE(steps.size(), steps_run_.late_rank.size());
    const TimeWindow shown = tab->view()->window();
    QVERIFY2(shown.t0_ns <= steps[kStep].first && steps[kStep].second <= shown.t1_ns,
             qPrintable(QStringLiteral("%1..%2 misses %3..%4")
                            .arg(shown.t0_ns)
                            .arg(shown.t1_ns)
                            .arg(steps[kStep].first)
                            .arg(steps[kStep].second)));
    QVERIFY(shown.t0_ns > all_reduces[kStep - 1]);
    QVERIFY(shown.t1_ns < all_reduces[kStep + 1]);
  }

  void stepFigureDrawsTheSteps() {
    MainWindow window;
    RanksOverview* overview = open_folder(window, steps_folder_);
    QVERIFY(overview != nullptr);
    const QString out = dir_.filePath(QStringLiteral("steps.png"));
    RanksFigureOptions figure;
    figure.colour = RanksColour::Waited;
    figure.by_lateness = true;
    figure.columns = RanksColumns::Steps;
    figure.width_px = 1200;
    figure.height_px = 700;
    QVERIFY(export_ranks_figure(overview->run(), out, figure).ok());
    QImage image(out);
    QCOMPARE(image.width(), 1200);
    QCOMPARE(image.height(), 700);
    bool red = false, orange = false;
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x) {
        const QColor c = image.pixelColor(x, y);
        red = red || c == RanksCanvas::straggler_colour();
        orange = orange || c == RanksCanvas::bound_colour();
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
