// QtTest (offscreen), on a GPU machine (ctest label `gpu`): the run panel, opened from the window as a user opens
// it, names the GPUs gtv-run sees, runs the `sequential` scenario on them with the real gtv-run, and the run
// opens as a tab whose trace has kernels on every one of those GPUs and whose verdict line is shown. Skips where
// gtv was built without LibTorch (no gtv-run) or where gtv-run sees no CUDA GPU.
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest/QtTest>
#include <algorithm>
#include <string>

#include "gtv/config.h"
#include "gtv/io/trace_file.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/run_features.h"
#include "gtv/ui/run_job.h"
#include "gtv/ui/run_panel.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_tab.h"

using namespace gtv;
using namespace gtv::ui;

namespace {

// How long the runner may take for a small run; a run past it fails the test rather than hanging it.
constexpr int kRunWaitMs = 600000;

// Kernels of trace on GPU device.
int kernels_on_device(const Trace& trace, int device) {
  int count = 0;
  for (const Lane& lane : trace.lanes())
    if (lane.is_gpu() && lane.device() == device)
      count += static_cast<int>(std::count_if(lane.events.begin(), lane.events.end(),
                                              [](const Event& e) { return e.kind == EventKind::Kernel; }));
  return count;
}

// "0,1,0" for models placed round-robin over gpus (the runner's placement when no device mapping is given).
std::string round_robin_devices(int models, int gpus) {
  std::string text;
  for (int m = 0; m < models; ++m) text += (m == 0 ? "" : ",") + std::to_string(m % gpus);
  return text;
}

}  // namespace

class RunPanelGpuTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    MainWindow::set_error_hook([](const QString& title, const QString& message) {
      QFAIL(qPrintable(title + QStringLiteral(": ") + message));
    });
  }
  void gpu_run_opens_a_tab_with_kernels_on_every_gpu();
};

void RunPanelGpuTest::gpu_run_opens_a_tab_with_kernels_on_every_gpu() {
  if (GTV_WITH_TORCH == 0) QSKIP("built without LibTorch: there is no gtv-run");
  QVERIFY2(runner_available(), qPrintable(runner_path()));

  // The GPUs gtv-run's LibTorch sees, asked the way the panel asks.
  QProcess count_probe;
  count_probe.start(runner_path(), {QStringLiteral("--gpu-count")});
  QVERIFY(count_probe.waitForFinished(kRunWaitMs));
  QCOMPARE(count_probe.exitCode(), 0);
  bool is_number = false;
  const int gpus = QString::fromUtf8(count_probe.readAllStandardOutput()).trimmed().toInt(&is_number);
  QVERIFY2(is_number, qPrintable(QString::fromUtf8(count_probe.readAllStandardError())));
  if (gpus == 0) QSKIP("gtv-run sees no CUDA GPU here");

  QTemporaryDir data;
  QVERIFY(data.isValid());
  MainWindow window;
  RunPanel* panel = install_run_features(&window);
  panel->set_data_dir(data.path());
  QSignalSpy probed(panel, &RunPanel::gpus_probed);
  auto* dock = window.findChild<QDockWidget*>(QStringLiteral("runPanelDock"));
  QVERIFY(dock != nullptr);
  window.show();
  dock->show();  // as the Runs menu does: showing the panel asks gtv-run for the GPU count
  QVERIFY(probed.count() > 0 || probed.wait(kRunWaitMs));
  QCOMPARE(panel->gpu_note()->text(),
           QStringLiteral("%1 CUDA GPU(s) here (as gtv-run's LibTorch sees them).").arg(gpus));

  // At least one model per GPU, placed round-robin (no device mapping), so every GPU gets work.
  const int models = std::max(3, gpus);
  const int index = panel->scenario_box()->findText(QStringLiteral("sequential"));
  QVERIFY(index >= 0);
  panel->scenario_box()->setCurrentIndex(index);
  panel->models_box()->setValue(models);
  panel->hidden_box()->setValue(1024);
  panel->batch_box()->setValue(100);
  panel->iters_box()->setValue(10);
  const int tabs_before = window.tabs()->count();
  QSignalSpy saved(panel, &RunPanel::run_saved);
  QSignalSpy failed(panel, &RunPanel::run_failed);
  QTest::mouseClick(panel->run_button(), Qt::LeftButton);
  QVERIFY(panel->is_running());
  QVERIFY2(saved.wait(kRunWaitMs), qPrintable(panel->status_label()->text()));
  QCOMPARE(failed.count(), 0);
  QCOMPARE(panel->last_outcome().error, QString());
  const QString path = saved[0][0].toString();

  // The run opened as a new tab, reading the file the runner wrote.
  QCOMPARE(window.tabs()->count(), tabs_before + 1);
  auto* tab = qobject_cast<TraceTab*>(window.tabs()->widget(tabs_before));
  QVERIFY(tab != nullptr);
  QCOMPARE(tab->document()->path(), path);
  tab->document()->wait();
  QCOMPARE(tab->document()->error(), QString());
  const auto trace = tab->document()->trace();
  QVERIFY(trace != nullptr);
  QCOMPARE(trace->metadata().scenario, std::string("sequential"));
  QCOMPARE(trace->metadata().config.at("devices"), round_robin_devices(models, gpus));  // a GPU run, not the CPU mode
  QCOMPARE(trace->event_count(), io::read_trace(path.toStdString())->event_count());
  for (int device = 0; device < gpus; ++device)
    QVERIFY2(kernels_on_device(*trace, device) > 0, qPrintable(QStringLiteral("no kernel on GPU %1").arg(device)));

  // The verdict: the report's headline, shown above the timeline.
  const auto analysis = tab->document()->analysis();
  QVERIFY(analysis != nullptr);
  QVERIFY(!analysis->report().verdict.empty());
  QVERIFY(!tab->verdict()->text().isEmpty());
  QVERIFY(tab->verdict()->text().startsWith(QString::fromStdString(analysis->report().verdict.front())));
  window.tabs()->setCurrentWidget(tab);
  QTRY_VERIFY(tab->verdict()->isVisible());
}

QTEST_MAIN(RunPanelGpuTest)
#include "run_panel_gpu_test.moc"
