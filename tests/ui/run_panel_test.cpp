// QtTest (offscreen, LibTorch builds): a CPU run started from the run panel finishes, opens a tab and writes
// its file under the data directory; Cancel stops a run and leaves no file behind.
#include "gtv/ui/run_panel.h"

#include <QComboBox>
#include <QDirIterator>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include "gtv/io/trace_file.h"
#include "gtv/ui/compare_view.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/run_features.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_tab.h"

using namespace gtv;
using namespace gtv::ui;

namespace {

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

}  // namespace

class RunPanelTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    MainWindow::set_error_hook([](const QString& title, const QString& message) {
      QFAIL(qPrintable(title + QStringLiteral(": ") + message));
    });
  }
  void cpu_run_opens_a_tab_and_writes_its_file();
  void cancel_leaves_no_file();
  void bad_device_mapping_is_one_line();
};

void RunPanelTest::cpu_run_opens_a_tab_and_writes_its_file() {
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
  QCOMPARE(compare->run_count(), 2);
  QCOMPARE(compare->view(1)->trace()->event_count(),
           io::read_trace(recording_of(QStringLiteral("sequential")).toStdString())->event_count());
}

void RunPanelTest::cancel_leaves_no_file() {
  QTemporaryDir data;
  QVERIFY(data.isValid());
  MainWindow window;
  RunPanel* panel = install_run_features(&window);
  panel->set_data_dir(data.path());
  constexpr int kIters = 5000;
  set_sizes(panel, "sequential", 2, 32, 4, kIters);
  QSignalSpy saved(panel, &RunPanel::run_saved);
  const int tabs_before = window.tabs()->count();
  QSignalSpy cancelled(panel, &RunPanel::run_cancelled);
  panel->start_run();
  // Cancel once the run is in its timed loop.
  QTRY_VERIFY_WITH_TIMEOUT(panel->status_label()->text() == QStringLiteral("timed loop"), 300000);
  QTest::mouseClick(panel->cancel_button(), Qt::LeftButton);
  QVERIFY(cancelled.wait(300000));
  QCOMPARE(saved.count(), 0);
  QVERIFY(panel->last_outcome().cancelled);
  QVERIFY(panel->last_outcome().iterations_done < kIters);  // it stopped inside the loop, not at its end
  QVERIFY(!panel->is_running());
  QVERIFY(panel->status_label()->text().contains(QStringLiteral("cancelled")));
  QCOMPARE(all_files(data.path()), QStringList{});
  QCOMPARE(window.tabs()->count(), tabs_before);
}

void RunPanelTest::bad_device_mapping_is_one_line() {
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

QTEST_MAIN(RunPanelTest)
#include "run_panel_test.moc"
