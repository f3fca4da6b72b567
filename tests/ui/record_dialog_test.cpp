// QtTest (offscreen): Runs > Record a program... runs the real gtv-cli record with programs that need no GPU. A
// program that never initialises CUDA, one that cannot start and a bad capture range each end with gtv-cli's one
// line; a program that leaves per-process files in the recorder's folder (as the injected recorder writes them at
// exit) gets its merged trace opened as a tab; Cancel ends the program and leaves no file.
#include "gtv/ui/record_dialog.h"

#include <QAction>
#include <QComboBox>
#include <QDirIterator>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include "gtv/base/install_layout.h"
#include "gtv/io/trace_file.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/run_features.h"
#include "gtv/ui/run_panel.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_tab.h"

using namespace gtv;
using namespace gtv::ui;

namespace {

const QString kSingleTrace = QStringLiteral(GTV_TEST_DATA_DIR "/pytorch/one_gpu_basic.json.gz");

QStringList all_files(const QString& dir) {
  QStringList files;
  QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
  while (it.hasNext()) files << it.next();
  return files;
}

bool have_injection_library() { return QFileInfo::exists(QString::fromStdString(injection_library().string())); }

// Records `command` with the dialog and waits for the end; the failure message, or empty when none came.
QString record_and_fail(RecordDialog& dialog, const QString& command) {
  QSignalSpy failed(&dialog, &RecordDialog::failed);
  QSignalSpy recorded(&dialog, &RecordDialog::recorded);
  dialog.command_edit()->setText(command);
  QTest::mouseClick(dialog.record_button(), Qt::LeftButton);
  dialog.job()->wait();
  QCoreApplication::processEvents();
  if (recorded.count() != 0 || failed.count() != 1) return {};
  return failed[0][0].toString();
}

}  // namespace

class RecordDialogTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    // Another tool's injection would make gtv-cli refuse; these tests are about the dialog.
    qunsetenv("CUDA_INJECTION64_PATH");
    qunsetenv("NVTX_INJECTION64_PATH");
    MainWindow::set_error_hook([](const QString& title, const QString& message) {
      QFAIL(qPrintable(title + QStringLiteral(": ") + message));
    });
  }
  void arguments_follow_the_capture_range();
  void program_without_cuda_says_so_with_its_exit_code();
  void program_that_cannot_start_says_so();
  void bad_capture_range_is_gtv_clis_line();
  void recorded_files_open_as_a_tab();
  void cancel_ends_the_program_and_leaves_no_file();
  void dialog_picture();
};

void RecordDialogTest::arguments_follow_the_capture_range() {
  RecordRequest r;
  r.command = {QStringLiteral("python3"), QStringLiteral("train.py")};
  r.output_path = QStringLiteral("/tmp/out.json.gz");
  const QStringList head{QStringLiteral("record"), QStringLiteral("-o"), r.output_path};
  const QStringList tail{QStringLiteral("--"), QStringLiteral("python3"), QStringLiteral("train.py")};
  QCOMPARE(record_arguments(r), head + tail);
  r.capture = RecordRequest::Capture::ProfilerApi;
  QCOMPARE(record_arguments(r), (head + QStringList{"--capture-range", "cudaProfilerApi"} + tail));
  r.capture = RecordRequest::Capture::Nvtx;
  r.nvtx_name = QStringLiteral("train step");
  QCOMPARE(record_arguments(r), (head + QStringList{"--capture-range", "nvtx:train step"} + tail));
  r.capture = RecordRequest::Capture::Time;
  r.delay_s = 2.5;
  QCOMPARE(record_arguments(r), (head + QStringList{"--delay", "2.5"} + tail));  // no duration: to the end
  r.duration_s = 10;
  QCOMPARE(record_arguments(r), (head + QStringList{"--delay", "2.5", "--duration", "10"} + tail));

  // Command lines split as a shell splits words.
  const auto words = [](const QString& line) {
    return split_command_line(line).value_or(QStringList{QStringLiteral("(refused)")});
  };
  QCOMPARE(words(QStringLiteral("  sh -c 'exit 3'  ")), (QStringList{"sh", "-c", "exit 3"}));
  QCOMPARE(words(QStringLiteral("a\"b c\"d 'e \"f' \"g\\\"h\\$i\\j\" k\\ l ''")),
           (QStringList{"ab cd", "e \"f", "g\"h$i\\j", "k l", ""}));
  QCOMPARE(words(QString()), QStringList{});
  QVERIFY(!split_command_line(QStringLiteral("sh -c 'exit 3")));
  QVERIFY(!split_command_line(QStringLiteral("echo \"open")));
  QVERIFY(!split_command_line(QStringLiteral("echo \\")));

  // The dialog's fields make the same request, its trace under the data directory's runs/.
  QTemporaryDir data;
  RecordDialog dialog(data.path());
  dialog.command_edit()->setText(QStringLiteral("python3 'my train.py' --epochs 1"));
  dialog.capture_box()->setCurrentIndex(2);
  dialog.nvtx_edit()->setText(QStringLiteral("step"));
  QVERIFY(dialog.nvtx_edit()->isEnabled());
  QVERIFY(!dialog.delay_box()->isEnabled());
  const RecordRequest made = dialog.request();
  QCOMPARE(made.command, (QStringList{"python3", "my train.py", "--epochs", "1"}));
  QCOMPARE(made.capture, RecordRequest::Capture::Nvtx);
  QCOMPARE(made.nvtx_name, QStringLiteral("step"));
  QVERIFY(made.output_path.startsWith(data.path() + QStringLiteral("/runs/record-python3-")));
  QVERIFY(made.output_path.endsWith(QStringLiteral(".json.gz")));
}

void RecordDialogTest::program_without_cuda_says_so_with_its_exit_code() {
  QTemporaryDir data;
  RecordDialog dialog(data.path());
  QVERIFY(dialog.record_button()->isEnabled());  // the build tree's gtv-cli is found
  const QString message = record_and_fail(dialog, QStringLiteral("sh -c 'exit 3'"));
  if (!have_injection_library()) {
    // A build without CUPTI: gtv-cli says so, and the program does not run.
    QVERIFY2(message.startsWith(QStringLiteral("gtv-cli: cannot record: no injection library")), qPrintable(message));
    return;
  }
  QVERIFY2(message.startsWith(QStringLiteral("gtv-cli record: no trace was written: no process of sh initialised "
                                             "CUDA")),
           qPrintable(message));
  QVERIFY2(message.contains(QStringLiteral("(sh ended with exit code 3)")), qPrintable(message));
  QCOMPARE(dialog.last_outcome().exit_code, 3);
  QVERIFY(dialog.last_outcome().saved_path.isEmpty());
  QCOMPARE(dialog.status_label()->text(), message);
  QVERIFY(dialog.output_view()->toPlainText().contains(message));
  QCOMPARE(all_files(data.path()), QStringList{});
  QVERIFY(dialog.record_button()->isEnabled());
  QVERIFY(!dialog.cancel_button()->isEnabled());
}

void RecordDialogTest::program_that_cannot_start_says_so() {
  if (!have_injection_library()) QSKIP("no injection library in this build: gtv-cli runs no program");
  QTemporaryDir data;
  RecordDialog dialog(data.path());
  const QString missing = data.path() + QStringLiteral("/no-such-program");
  const QString message = record_and_fail(dialog, missing);
  QVERIFY2(message.startsWith(QStringLiteral("gtv-cli record: cannot start")), qPrintable(message));
  QVERIFY2(message.contains(missing), qPrintable(message));
  QCOMPARE(dialog.last_outcome().exit_code, 127);
}

void RecordDialogTest::bad_capture_range_is_gtv_clis_line() {
  QTemporaryDir data;
  RecordDialog dialog(data.path());
  dialog.capture_box()->setCurrentIndex(2);  // NVTX, with no name
  const QString message = record_and_fail(dialog, QStringLiteral("true"));
  QCOMPARE(message, QStringLiteral("gtv-cli record: capture range 'nvtx:' is neither cudaProfilerApi nor nvtx:NAME"));
  QCOMPARE(dialog.last_outcome().exit_code, 2);
  // A command line whose quote does not close is refused before anything runs.
  // Output without newlines (200 KB here) is shown as it comes, and gtv-cli's line after it is still read.
  QSignalSpy lines(dialog.job(), &RecordJob::output_line);
  dialog.capture_box()->setCurrentIndex(0);
  const QString long_line =
      record_and_fail(dialog, QStringLiteral("sh -c 'head -c 200000 /dev/zero | tr \"\\\\0\" x'"));
  if (have_injection_library()) QVERIFY2(long_line.contains(QStringLiteral("exit code 0")), qPrintable(long_line));
  qsizetype xs = 0;
  for (const QList<QVariant>& line : lines)
    if (const QString text = line[0].toString(); !text.startsWith(QStringLiteral("gtv-cli"))) {
      QCOMPARE(text.count(QLatin1Char('x')), text.size());  // the program's output alone
      xs += text.size();
    }
  QCOMPARE(xs, have_injection_library() ? 200000 : 0);
  QCOMPARE(record_and_fail(dialog, QStringLiteral("sh -c 'exit 3")),
           QStringLiteral("the command line 'sh -c 'exit 3' has a quote that does not close"));
}

void RecordDialogTest::recorded_files_open_as_a_tab() {
  if (!have_injection_library()) QSKIP("no injection library in this build: gtv-cli runs no program");
  QTemporaryDir data;
  QTemporaryDir work;
  MainWindow window;
  install_run_features(&window)->set_data_dir(data.path());
  QAction* record = nullptr;  // Runs > Record a program...
  for (QAction* menu : window.menuBar()->actions())
    if (menu->menu() != nullptr)
      for (QAction* a : menu->menu()->actions())
        if (a->text() == QStringLiteral("&Record a program...")) record = a;
  QVERIFY(record != nullptr);
  record->trigger();
  auto* dialog = window.findChild<RecordDialog*>();
  QVERIFY(dialog != nullptr && dialog->isVisible());
  QCOMPARE(open_record_dialog(&window, data.path()), dialog);  // one at a time
  QSignalSpy recorded(dialog, &RecordDialog::recorded);
  // Two processes' files, left in the recorder's folder as the injected recorder leaves them; the program runs in
  // the working directory given (it copies a file named relative to it) and ends with exit code 5.
  QVERIFY(QFile::copy(kSingleTrace, work.path() + QStringLiteral("/mine.json.gz")));
  dialog->command_edit()->setText(
      QStringLiteral("sh -c 'echo training; cp mine.json.gz \"$GTV_RECORD_DIR/gtv-7.json\"; "
                     "cp mine.json.gz \"$GTV_RECORD_DIR/gtv-8.json\"; exit 5'"));
  dialog->working_dir_edit()->setText(work.path());
  QTest::mouseClick(dialog->record_button(), Qt::LeftButton);
  QVERIFY(!dialog->record_button()->isEnabled());
  QVERIFY(dialog->cancel_button()->isEnabled());
  dialog->job()->wait();
  QCoreApplication::processEvents();
  QCOMPARE(recorded.count(), 1);
  const QString path = recorded[0][0].toString();
  QVERIFY(path.startsWith(data.path() + QStringLiteral("/runs/record-sh-")));
  QCOMPARE(all_files(data.path()), QStringList{path});

  const auto single = io::read_trace(kSingleTrace.toStdString());
  QVERIFY(single);
  const auto merged = io::read_trace(path.toStdString());
  QVERIFY(merged);
  QCOMPARE(merged->event_count(), 2 * single->event_count());  // both processes, every event kept
  const QString summary = dialog->status_label()->text();
  QVERIFY2(summary.startsWith(QStringLiteral("wrote %1 (2 processes, %2 events").arg(path).arg(merged->event_count())),
           qPrintable(summary));
  QVERIFY2(summary.endsWith(QStringLiteral("sh ended with exit code 5)")), qPrintable(summary));
  QVERIFY(dialog->output_view()->toPlainText().contains(QStringLiteral("\ntraining\n")));

  QCOMPARE(window.tabs()->count(), 1);
  auto* tab = qobject_cast<TraceTab*>(window.tabs()->widget(0));
  QVERIFY(tab != nullptr);
  QCOMPARE(tab->document()->path(), path);
  tab->document()->wait();
  QVERIFY(tab->document()->trace() != nullptr);
  QCOMPARE(tab->document()->trace()->event_count(), merged->event_count());
  dialog->close();
}

void RecordDialogTest::cancel_ends_the_program_and_leaves_no_file() {
  if (!have_injection_library()) QSKIP("no injection library in this build: gtv-cli runs no program");
  QTemporaryDir data;
  QTemporaryDir work;
  RecordDialog dialog(data.path());
  QSignalSpy recorded(&dialog, &RecordDialog::recorded);
  QSignalSpy failed(&dialog, &RecordDialog::failed);
  // It leaves a process file at once, then runs until it is stopped: Cancel must leave no trace behind.
  const QString started = work.path() + QStringLiteral("/started");
  dialog.command_edit()->setText(QStringLiteral("sh -c 'cp \"$0\" \"$GTV_RECORD_DIR/gtv-7.json\"; touch \"$1\"; "
                                                "exec sleep 600' %1 %2")
                                     .arg(kSingleTrace, started));
  QTest::mouseClick(dialog.record_button(), Qt::LeftButton);
  QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(started), 60000);
  QTest::mouseClick(dialog.cancel_button(), Qt::LeftButton);
  QVERIFY(dialog.is_running());
  dialog.job()->wait();
  QCoreApplication::processEvents();
  QVERIFY(dialog.last_outcome().cancelled);
  QCOMPARE(recorded.count(), 0);
  QCOMPARE(failed.count(), 0);
  QCOMPARE(dialog.status_label()->text(), QStringLiteral("cancelled: nothing saved"));
  QCOMPARE(all_files(data.path()), QStringList{});
}

void RecordDialogTest::dialog_picture() {
  // The dialog as a user fills it in; GTV_RECORD_DIALOG_SHOT names a PNG to keep (docs/screenshots).
  QTemporaryDir data;
  RecordDialog dialog(data.path());
  dialog.command_edit()->setText(QStringLiteral("torchrun --nproc-per-node 2 train.py --epochs 1"));
  dialog.working_dir_edit()->setText(QStringLiteral("/home/me/project"));
  dialog.capture_box()->setCurrentIndex(2);
  dialog.nvtx_edit()->setText(QStringLiteral("train step"));
  dialog.show();
  QVERIFY(QTest::qWaitForWindowExposed(&dialog));
  const QImage picture = dialog.grab().toImage();
  QVERIFY(!picture.isNull());
  // Every field is at least as wide as its text needs: nothing typed is cut off at this size.
  const QFontMetrics metrics(dialog.command_edit()->font());
  QVERIFY(dialog.command_edit()->width() > metrics.horizontalAdvance(dialog.command_edit()->text()));
  if (const QByteArray shot = qgetenv("GTV_RECORD_DIALOG_SHOT"); !shot.isEmpty())
    QVERIFY(picture.save(QString::fromLocal8Bit(shot)));
}

QTEST_MAIN(RecordDialogTest)
#include "record_dialog_test.moc"
