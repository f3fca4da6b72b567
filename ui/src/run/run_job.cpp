#include "gtv/ui/run_job.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTimer>

#include "gtv/base/install_layout.h"
#include "gtv/io/trace_file.h"

namespace gtv::ui {
namespace {

// How long a cancelled runner has to end after SIGTERM before it gets SIGKILL.
constexpr int kKillAfterMs = 5000;

}  // namespace

QString run_file_path(const QString& data_dir, const QString& scenario) {
  const QString dir = QDir(data_dir).filePath(QStringLiteral("runs"));
  const QString stem =
      scenario + QLatin1Char('-') + QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
  QString path = QDir(dir).filePath(stem + QStringLiteral(".json.gz"));
  for (int n = 2; QFile::exists(path); ++n) path = QDir(dir).filePath(stem + QStringLiteral("-%1.json.gz").arg(n));
  return path;
}

QString runner_path() { return QString::fromStdString(gtv::runner_executable().string()); }

bool runner_available() {
  const QFileInfo info(runner_path());
  return info.isFile() && info.isExecutable();
}

QString missing_runner_message() {
  return QObject::tr(
             "This gtv was built or installed without the experiment runner gtv-run (LibTorch), so it cannot "
             "run experiments: there is no executable %1. Open a recording below.")
      .arg(runner_path());
}

RunJob::RunJob(QObject* parent) : QObject(parent), process_(new QProcess(this)), kill_timer_(new QTimer(this)) {
  kill_timer_->setSingleShot(true);
  kill_timer_->setInterval(kKillAfterMs);
  connect(kill_timer_, &QTimer::timeout, this, [this] { signal_group(SIGKILL); });
  // Its own process group, so Cancel reaches the workers of `processes` too; and it ends when gtv does.
  process_->setChildProcessModifier([] {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  });
  connect(process_, &QProcess::readyReadStandardOutput, this, &RunJob::read_report);
  connect(process_, &QProcess::readyReadStandardError, this, [this] {
    const QStringList lines = QString::fromUtf8(process_->readAllStandardError()).split(QLatin1Char('\n'));
    for (const QString& line : lines)
      if (!line.trimmed().isEmpty()) last_stderr_ = line.trimmed();
  });
  connect(process_, &QProcess::finished, this,
          [this](int exit_code, QProcess::ExitStatus status) { on_exit(exit_code, status == QProcess::CrashExit); });
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart && running_)
      finish_later(tr("cannot start the experiment runner %1: %2").arg(runner_path(), process_->errorString()));
  });
}

void RunJob::finish_later(const QString& error) {
  // Queued: QProcess may report a failed start inside start(), before the caller has seen it return.
  QTimer::singleShot(0, this, [this, error] {
    running_ = false;
    RunOutcome outcome;
    outcome.cancelled = cancelled_;
    if (!cancelled_) outcome.error = error;
    emit finished(outcome);
  });
}

RunJob::~RunJob() {
  if (!running_) return;
  process_->disconnect(this);
  signal_group(SIGTERM);
  if (!process_->waitForFinished(kKillAfterMs)) {
    signal_group(SIGKILL);
    process_->waitForFinished(-1);
  }
  remove_output();  // the run was abandoned: no result
}

void RunJob::remove_output() const {
  QFile::remove(path_);
  // A run of ranks writes each rank's file first, rank 0 up.
  for (int rank = 0;; ++rank) {
    const QString file = QString::fromStdString(io::rank_file_path(path_.toStdString(), rank));
    if (!QFile::exists(file)) break;
    QFile::remove(file);
  }
}

bool RunJob::start(const exp::RunConfig& config, const QString& data_dir) {
  if (running_) return false;
  running_ = true;
  cancelled_ = false;
  report_buffer_.clear();
  failure_.clear();
  saved_path_.clear();
  last_stderr_.clear();
  path_ = run_file_path(data_dir, QString::fromStdString(config.scenario));
  const QString dir = QFileInfo(path_).absolutePath();
  if (!QDir().mkpath(dir)) {
    finish_later(tr("cannot create %1").arg(dir));
    return true;
  }
  QStringList arguments;
  for (const std::string& arg : exp::run_arguments(config, path_.toStdString()))
    arguments << QString::fromStdString(arg);
  arguments << QStringLiteral("--report-fd") << QStringLiteral("1");
  process_->start(runner_path(), arguments);
  return true;
}

void RunJob::read_report() {
  report_buffer_ += process_->readAllStandardOutput();
  for (qsizetype end = report_buffer_.indexOf('\n'); end >= 0; end = report_buffer_.indexOf('\n')) {
    const QString line = QString::fromUtf8(report_buffer_.left(end));
    report_buffer_.remove(0, end + 1);
    const qsizetype space = line.indexOf(QLatin1Char(' '));
    const QString keyword = space < 0 ? line : line.left(space);
    const QString rest = space < 0 ? QString() : line.mid(space + 1);
    if (keyword == QLatin1String("progress")) {
      if (!cancelled_) emit progress_line(rest);
    } else if (keyword == QLatin1String("wrote")) {
      saved_path_ = rest.mid(rest.indexOf(QLatin1Char(' ')) + 1);  // "EVENTS PATH"
    } else if (keyword == QLatin1String("failed")) {
      failure_ = rest;
    }  // other keywords: from a newer runner, not known here
  }
}

void RunJob::on_exit(int exit_code, bool crashed) {
  kill_timer_->stop();
  read_report();
  running_ = false;
  RunOutcome outcome;
  if (cancelled_) {
    outcome.cancelled = true;
    outcome.interrupted = crashed;
    remove_output();  // written before Cancel reached the runner: the user asked for no result
    emit finished(outcome);
    return;
  }
  outcome.saved_path = saved_path_;
  outcome.error = failure_;
  if (outcome.error.isEmpty() && (crashed || exit_code != 0)) {
    const QString how = crashed ? tr("the experiment runner was ended by a signal")
                                : tr("the experiment runner exited with status %1").arg(exit_code);
    outcome.error = last_stderr_.isEmpty() ? how : tr("%1; its last message: %2").arg(how, last_stderr_);
  }
  emit finished(outcome);
}

void RunJob::cancel() {
  if (!running_ || cancelled_) return;
  cancelled_ = true;
  signal_group(SIGTERM);
  kill_timer_->start();
}

void RunJob::signal_group(int signal) {
  const qint64 pid = process_->processId();
  if (pid <= 0) return;
  if (::kill(static_cast<pid_t>(-pid), signal) != 0) ::kill(static_cast<pid_t>(pid), signal);
}

void RunJob::wait() {
  while (running_) {
    if (process_->state() != QProcess::NotRunning)
      process_->waitForFinished(100);
    else
      QCoreApplication::processEvents(QEventLoop::AllEvents, 100);
  }
}

}  // namespace gtv::ui
