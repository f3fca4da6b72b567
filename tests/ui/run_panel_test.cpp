// QtTest (offscreen): the run panel lists the catalogue in every build and runs experiments through the runner
// gtv-run as a child process. A stand-in runner (fake_runner.sh, speaking gtv-run's protocol) checks progress,
// the opened tab, failures and Cancel in every build; with LibTorch the real gtv-run makes a CPU run and is
// cancelled in its timed loop.
#include "gtv/ui/run_panel.h"

#include <QComboBox>
#include <QDirIterator>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest/QtTest>

#include "gtv/config.h"
#include "gtv/experiments/catalog.h"
#include "gtv/io/trace_file.h"
#include "gtv/ui/compare_view.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/run_features.h"
#include "gtv/ui/run_job.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_tab.h"

using namespace gtv;
using namespace gtv::ui;

namespace {

const QString kFakeTrace = QStringLiteral(GTV_TEST_DATA_DIR "/pytorch/two_gpus_schedule.json.gz");

void set_sizes(RunPanel* panel, const char* scenario, int models, int hidden, int batch, int iters) {
  const int index = panel->scenario_box()->findText(QLatin1String(scenario));
  QVERIFY(index >= 0);
  panel->scenario_box()->setCurrentIndex(index);
  panel->models_box()->setValue(models);
  panel->hidden_box()->setValue(hidden);
  panel->batch_box()->setValue(batch);
  panel->iters_box()->setValue(iters);
}

// Every file under dir, recursively (temporary files of an interrupted write included).
QStringList all_files(const QString& dir) {
  QStringList files;
  QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
  while (it.hasNext()) files << it.next();
  return files;
}

// The stand-in runner for the panels made after this call, doing `mode` (see fake_runner.sh).
void use_fake_runner(const char* mode) {
  qputenv("GTV_RUN", GTV_FAKE_RUNNER);
  qputenv("GTV_FAKE_RUN", mode);
  qputenv("GTV_FAKE_TRACE", kFakeTrace.toUtf8());
}

QByteArray file_bytes(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class RunPanelTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    // These are the CPU runs, on every machine: a GPU machine's runner would otherwise run them on its GPUs
    // (run_panel_gpu_test covers those), where the sizes chosen here mean something else.
    qputenv("CUDA_VISIBLE_DEVICES", "");
    MainWindow::set_error_hook([](const QString& title, const QString& message) {
      QFAIL(qPrintable(title + QStringLiteral(": ") + message));
    });
  }
  void cleanup() {
    qunsetenv("GTV_FAKE_ARGS");
    qunsetenv("GTV_RUN");
    qunsetenv("GTV_FAKE_RUN");
    qunsetenv("GTV_FAKE_TRACE");
  }
  void catalogue_without_a_runner();
  void runner_progress_opens_the_written_trace();
  void runner_failures_are_one_line();
  void cancel_ends_the_runner_and_leaves_no_file();
  void bad_device_mapping_is_one_line();
  void cpu_run_opens_a_tab_and_writes_its_file();
  void cancel_in_the_timed_loop_leaves_no_file();
  void ddp_run_takes_ranks_and_opens_the_merged_run();
  void loop_progress_is_read_from_its_line();
  void progress_moves_by_iterations();
  void straggler_text_is_validated();
  void straggler_field_holds_run_and_reaches_the_runner();
};

// The scenarios and their explanations come from the catalogue; without a runner the panel says why it cannot
// run, and Run says it again.
void RunPanelTest::catalogue_without_a_runner() {
  qputenv("GTV_RUN", "/nonexistent/gtv-run");
  RunPanel panel;
  QCOMPARE(panel.scenario_box()->count(), static_cast<int>(exp::list_scenarios().size()));
  QCOMPARE(panel.scenario_box()->currentText(), QStringLiteral("sequential"));
  QVERIFY(panel.findChild<QTextBrowser*>()->toPlainText().contains(QStringLiteral("sequential")));
  QVERIFY(!panel.can_run());
  QVERIFY(!panel.run_button()->isEnabled());
  QVERIFY(panel.gpu_note()->text().contains(QStringLiteral("without the experiment runner gtv-run")));
  QVERIFY(panel.gpu_note()->text().contains(QStringLiteral("/nonexistent/gtv-run")));
  QSignalSpy failed(&panel, &RunPanel::run_failed);
  panel.start_run();
  QCOMPARE(failed.count(), 1);
  QVERIFY(!panel.is_running());
}

void RunPanelTest::runner_progress_opens_the_written_trace() {
  use_fake_runner("ok");
  QTemporaryDir data;
  QVERIFY(data.isValid());
  MainWindow window;
  RunPanel* panel = install_run_features(&window);
  panel->set_data_dir(data.path());
  QVERIFY(panel->can_run());
  set_sizes(panel, "sequential", 2, 32, 4, 2);
  const int tabs_before = window.tabs()->count();
  QSignalSpy saved(panel, &RunPanel::run_saved);
  QSignalSpy progress(panel, &RunPanel::progress_line);
  QTest::mouseClick(panel->run_button(), Qt::LeftButton);
  QVERIFY(panel->is_running());
  QVERIFY(saved.wait(60000));
  QCOMPARE(progress.count(), 3);
  QCOMPARE(progress[2][0].toString(), QStringLiteral("timed loop"));
  const QString path = saved[0][0].toString();
  QVERIFY(path.startsWith(data.path() + QStringLiteral("/runs/sequential-")));
  QCOMPARE(file_bytes(path), file_bytes(kFakeTrace));
  QCOMPARE(panel->last_outcome().error, QString());
  QCOMPARE(panel->progress_bar()->value(), panel->progress_bar()->maximum());
  QVERIFY(panel->run_button()->isEnabled());
  QCOMPARE(window.tabs()->count(), tabs_before + 1);
  auto* tab = qobject_cast<TraceTab*>(window.tabs()->widget(tabs_before));
  QVERIFY(tab != nullptr);
  QCOMPARE(tab->document()->path(), path);
}

void RunPanelTest::runner_failures_are_one_line() {
  QTemporaryDir data;
  use_fake_runner("fail");
  RunPanel panel;
  panel.set_data_dir(data.path());
  QSignalSpy failed(&panel, &RunPanel::run_failed);
  panel.start_run();
  QVERIFY(failed.wait(60000));
  QCOMPARE(failed[0][0].toString(), QStringLiteral("out of memory (fake)"));
  QCOMPARE(panel.status_label()->text(), QStringLiteral("run failed: out of memory (fake)"));

  qputenv("GTV_FAKE_RUN", "crash");  // read by the runner each run
  panel.start_run();
  QVERIFY(failed.wait(60000));
  QCOMPARE(failed[1][0].toString(),
           QStringLiteral("the experiment runner exited with status 3; its last message: fake runner: gave up"));
  QCOMPARE(all_files(data.path()), QStringList{});
}

void RunPanelTest::cancel_ends_the_runner_and_leaves_no_file() {
  use_fake_runner("hang");
  QTemporaryDir data;
  RunPanel panel;
  panel.set_data_dir(data.path());
  QSignalSpy cancelled(&panel, &RunPanel::run_cancelled);
  panel.start_run();
  QTRY_VERIFY_WITH_TIMEOUT(panel.status_label()->text() == QStringLiteral("timed loop"), 60000);
  QTest::mouseClick(panel.cancel_button(), Qt::LeftButton);
  QVERIFY(cancelled.wait(60000));
  QVERIFY(panel.last_outcome().cancelled);
  QVERIFY(panel.last_outcome().interrupted);  // ended by the cancel, not by itself
  QVERIFY(!panel.is_running());
  QVERIFY(panel.status_label()->text().contains(QStringLiteral("cancelled")));
  QCOMPARE(all_files(data.path()), QStringList{});
}

void RunPanelTest::bad_device_mapping_is_one_line() {
  use_fake_runner("ok");
  QTemporaryDir data;
  RunPanel panel;
  panel.set_data_dir(data.path());
  panel.devices_edit()->setText(QStringLiteral("0,x"));
  QSignalSpy failed(&panel, &RunPanel::run_failed);
  panel.start_run();
  QCOMPARE(failed.count(), 1);
  QCOMPARE(failed[0][0].toString(), QStringLiteral("device mapping: 'x' is not a GPU index (use e.g. 0,1,0)"));
  QVERIFY(!panel.is_running());
}

void RunPanelTest::cpu_run_opens_a_tab_and_writes_its_file() {
  if (GTV_WITH_TORCH == 0) QSKIP("built without LibTorch: there is no gtv-run");
  QVERIFY2(runner_available(), qPrintable(runner_path()));
  QTemporaryDir data;
  QVERIFY(data.isValid());
  MainWindow window;
  RunPanel* panel = install_run_features(&window);
  panel->set_data_dir(data.path());
  set_sizes(panel, "sequential", 2, 32, 4, 2);
  const int tabs_before = window.tabs()->count();
  QSignalSpy saved(panel, &RunPanel::run_saved);
  QSignalSpy failed(panel, &RunPanel::run_failed);
  QTest::mouseClick(panel->run_button(), Qt::LeftButton);
  QVERIFY(panel->is_running());
  QVERIFY(!panel->run_button()->isEnabled());
  QVERIFY(saved.wait(300000));
  QCOMPARE(failed.count(), 0);
  const QString path = saved[0][0].toString();
  QVERIFY(path.startsWith(data.path() + QStringLiteral("/runs/sequential-")));
  QVERIFY(path.endsWith(QStringLiteral(".json.gz")));
  QCOMPARE(all_files(data.path()), QStringList{path});  // no temporary file left beside it
  QCOMPARE(panel->progress_bar()->value(), panel->progress_bar()->maximum());
  QVERIFY(panel->run_button()->isEnabled());

  QCOMPARE(window.tabs()->count(), tabs_before + 1);
  auto* tab = qobject_cast<TraceTab*>(window.tabs()->widget(tabs_before));
  QVERIFY(tab != nullptr);
  QCOMPARE(tab->document()->path(), path);
  tab->document()->wait();
  QVERIFY(tab->document()->trace() != nullptr);
  const auto on_disk = io::read_trace(path.toStdString());
  QVERIFY(on_disk);
  QCOMPARE(on_disk->metadata().scenario, std::string("sequential"));
  QCOMPARE(on_disk->metadata().config.at("models"), std::string("2"));
  QCOMPARE(on_disk->metadata().config.at("hidden"), std::string("32"));
  QCOMPARE(tab->document()->trace()->event_count(), on_disk->event_count());
  QVERIFY(on_disk->event_count() > 0);

  // The run beside its H200 recording, stacked in a new tab.
  QVERIFY(panel->compare_button()->isEnabled());
  QTest::mouseClick(panel->compare_button(), Qt::LeftButton);
  QCOMPARE(window.tabs()->count(), tabs_before + 2);
  auto* compare = qobject_cast<CompareView*>(window.tabs()->currentWidget());
  QVERIFY(compare != nullptr);
  QSignalSpy loaded(compare, &CompareView::files_loaded);  // the runs are read in a worker
  QVERIFY(compare->run_count() == 2 || loaded.wait(120000));
  QCOMPARE(compare->run_count(), 2);
  QCOMPARE(compare->view(1)->trace()->event_count(),
           io::read_trace(recording_of(QStringLiteral("sequential")).toStdString())->event_count());
}

void RunPanelTest::ddp_run_takes_ranks_and_opens_the_merged_run() {
  if (GTV_WITH_TORCH == 0) QSKIP("built without LibTorch: there is no gtv-run");
  QVERIFY2(runner_available(), qPrintable(runner_path()));
  QTemporaryDir data;
  QVERIFY(data.isValid());
  MainWindow window;
  RunPanel* panel = install_run_features(&window);
  panel->set_data_dir(data.path());
  // Models for the seed's scenarios, Ranks for the ddp ones.
  QVERIFY(panel->models_box()->isEnabled());
  QVERIFY(!panel->ranks_box()->isEnabled());
  set_sizes(panel, "ddp", 3, 32, 4, 1);
  QVERIFY(!panel->models_box()->isEnabled());
  QVERIFY(panel->ranks_box()->isEnabled());
  panel->ranks_box()->setValue(2);
  QSignalSpy saved(panel, &RunPanel::run_saved);
  QSignalSpy failed(panel, &RunPanel::run_failed);
  QTest::mouseClick(panel->run_button(), Qt::LeftButton);
  // Whichever comes first: a build without Gloo fails at once, and waiting on `saved` alone would sit out the
  // whole timeout.
  QTRY_VERIFY_WITH_TIMEOUT(!saved.isEmpty() || !failed.isEmpty(), 300000);
  if (!failed.isEmpty() && failed[0][0].toString().contains(QStringLiteral("gloo"), Qt::CaseInsensitive))
    QSKIP("this LibTorch build has no Gloo process group for ranks on the CPU");
  QCOMPARE(failed.count(), 0);
  const QString path = saved[0][0].toString();
  const auto on_disk = io::read_trace(path.toStdString());
  QVERIFY(on_disk);
  QCOMPARE(on_disk->metadata().ranks.size(), std::size_t{2});
  // Each rank's own file beside the run.
  for (int rank = 0; rank < 2; ++rank)
    QVERIFY(QFile::exists(QString::fromStdString(io::rank_file_path(path.toStdString(), rank))));
  auto* tab = qobject_cast<TraceTab*>(window.tabs()->currentWidget());
  QVERIFY(tab != nullptr);
  QCOMPARE(tab->document()->path(), path);
}

void RunPanelTest::cancel_in_the_timed_loop_leaves_no_file() {
  if (GTV_WITH_TORCH == 0) QSKIP("built without LibTorch: there is no gtv-run");
  QTemporaryDir data;
  QVERIFY(data.isValid());
  MainWindow window;
  RunPanel* panel = install_run_features(&window);
  panel->set_data_dir(data.path());
  set_sizes(panel, "sequential", 2, 512, 4, 10000);  // far longer than the cancel takes to arrive
  QSignalSpy saved(panel, &RunPanel::run_saved);
  const int tabs_before = window.tabs()->count();
  QSignalSpy cancelled(panel, &RunPanel::run_cancelled);
  panel->start_run();
  QTRY_VERIFY_WITH_TIMEOUT(panel->status_label()->text().startsWith(QStringLiteral("timed loop")), 300000);
  QTest::mouseClick(panel->cancel_button(), Qt::LeftButton);
  QVERIFY(cancelled.wait(300000));
  QCOMPARE(saved.count(), 0);
  QVERIFY(panel->last_outcome().cancelled);
  QVERIFY(panel->last_outcome().interrupted);  // it stopped inside the loop, not at its end
  QVERIFY(!panel->is_running());
  QVERIFY(panel->status_label()->text().contains(QStringLiteral("cancelled")));
  QCOMPARE(all_files(data.path()), QStringList{});
  QCOMPARE(window.tabs()->count(), tabs_before);
}

// The runner reports a loop as "PHASE: DONE of TOTAL iterations"; nothing else is read as one.
void RunPanelTest::loop_progress_is_read_from_its_line() {
  const auto timed = iteration_progress(QStringLiteral("timed loop: 57 of 200 iterations"));
  QVERIFY(timed.has_value());
  QCOMPARE(timed->done, 57);
  QCOMPARE(timed->total, 200);
  const auto bare = iteration_progress(QStringLiteral("3 of 10 iterations"));
  QVERIFY(bare.has_value());
  QCOMPARE(bare->done, 3);
  QVERIFY(!iteration_progress(QStringLiteral("timed loop")).has_value());
  QVERIFY(!iteration_progress(QStringLiteral("building model 0 on cpu")).has_value());
  QVERIFY(!iteration_progress(QStringLiteral("timed loop: 5 of 0 iterations")).has_value());
  QVERIFY(!iteration_progress(QStringLiteral("timed loop: 9 of 4 iterations")).has_value());
  QVERIFY(!iteration_progress(QStringLiteral("model 10 of 200 iterations")).has_value());
}

// Inside the timed loop the bar moves by iterations and the status says how many are done, instead of standing
// at the phase for the whole loop.
void RunPanelTest::progress_moves_by_iterations() {
  use_fake_runner("loop");
  QTemporaryDir data;
  QVERIFY(data.isValid());
  RunPanel panel;
  panel.set_data_dir(data.path());
  set_sizes(&panel, "sequential", 1, 32, 4, 4);
  QSignalSpy progress(&panel, &RunPanel::progress_line);
  panel.start_run();
  QVERIFY(panel.is_running());
  QTRY_COMPARE_WITH_TIMEOUT(progress.count(), 5, 60000);
  QCOMPARE(panel.status_label()->text(), QStringLiteral("timed loop: 2 of 4 iterations"));
  // 1 model + 3 steps expected; the timed loop is the third step begun, half of its iterations done.
  QCOMPARE(panel.progress_bar()->maximum(), 4 * 1000);
  QCOMPARE(panel.progress_bar()->value(), 2 * 1000 + 500);
  QSignalSpy cancelled(&panel, &RunPanel::run_cancelled);
  panel.cancel_run();
  QVERIFY(cancelled.wait(60000));
}

void RunPanelTest::straggler_text_is_validated() {
  QCOMPARE(straggler_error(QString(), 4), QString());
  QCOMPARE(straggler_error(QStringLiteral(" 2=5 "), 4), QString());
  QCOMPARE(straggler_error(QStringLiteral("1=0.2"), 0), QString());  // ranks not known yet: the runner checks
  QCOMPARE(straggler_error(QStringLiteral("4=5"), 4),
           QStringLiteral("straggler: rank 4 is not in a run of 4 ranks (0 to 3)"));
  for (const char* bad : {"2", "2=", "=5", "2=0", "-1=5", "x=5", "2=5ms", "2=0.0001"})
    QVERIFY2(straggler_error(QLatin1String(bad), 4).startsWith(QStringLiteral("straggler: '")), bad);
}

// For the ddp scenarios the Straggler field is open, a bad value holds Run and says why, and a good one reaches
// the runner as --straggler RANK=MS.
void RunPanelTest::straggler_field_holds_run_and_reaches_the_runner() {
  use_fake_runner("hang");
  QTemporaryDir data;
  QVERIFY(data.isValid());
  const QString args_file = data.filePath(QStringLiteral("args.txt"));
  qputenv("GTV_FAKE_ARGS", args_file.toUtf8());
  RunPanel panel;
  panel.set_data_dir(data.path());
  QVERIFY(!panel.straggler_edit()->isEnabled());  // sequential has no ranks
  set_sizes(&panel, "ddp", 1, 32, 4, 2);
  QVERIFY(panel.straggler_edit()->isEnabled());
  panel.ranks_box()->setValue(4);
  panel.straggler_edit()->setText(QStringLiteral("4=5"));
  QVERIFY(!panel.run_button()->isEnabled());
  QCOMPARE(panel.status_label()->text(), QStringLiteral("straggler: rank 4 is not in a run of 4 ranks (0 to 3)"));
  QSignalSpy failed(&panel, &RunPanel::run_failed);
  panel.start_run();
  QCOMPARE(failed.count(), 1);
  QVERIFY(!panel.is_running());
  panel.ranks_box()->setValue(5);  // now rank 4 is in the run
  QVERIFY(panel.run_button()->isEnabled());
  QCOMPARE(panel.status_label()->text(), QString());
  panel.straggler_edit()->setText(QStringLiteral("2=0.5"));
  panel.start_run();
  QVERIFY(panel.is_running());
  QTRY_VERIFY_WITH_TIMEOUT(!file_bytes(args_file).isEmpty(), 60000);
  QVERIFY2(file_bytes(args_file).contains("--straggler 2=0.5"), file_bytes(args_file).constData());
  QVERIFY2(file_bytes(args_file).contains("--ranks 5"), file_bytes(args_file).constData());
  QSignalSpy cancelled(&panel, &RunPanel::run_cancelled);
  panel.cancel_run();
  QVERIFY(cancelled.wait(60000));
}

QTEST_MAIN(RunPanelTest)
#include "run_panel_test.moc"
