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
  QTRY_VERIFY_WITH_TIMEOUT(panel->status_label()->text() == QStringLiteral("timed loop"), 300000);
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

QTEST_MAIN(RunPanelTest)
#include "run_panel_test.moc"
