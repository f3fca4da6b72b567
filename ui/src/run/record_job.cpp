#include "gtv/ui/record_job.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTimer>

#include "gtv/base/install_layout.h"

namespace gtv::ui {
namespace {

// How long a cancelled recording has to end after SIGINT before its process group gets SIGKILL.
constexpr int kKillAfterMs = 5000;
// The longest line of output held before it is shown in pieces.
constexpr qsizetype kMaxLineBytes = qsizetype{64} * 1024;
constexpr qsizetype kKeptTailBytes = 4096;

QString seconds_text(double s) { return QString::number(s, 'g', 10); }

bool is_cli_line(const QString& line) {
  return line.startsWith(QLatin1String("gtv-cli record: ")) || line.startsWith(QLatin1String("gtv-cli: "));
}

}  // namespace

std::optional<QStringList> split_command_line(const QString& line) {
  QStringList words;
  QString word;
  bool in_word = false;
  for (qsizetype i = 0; i < line.size(); ++i) {
    const QChar c = line[i];
    if (c == QLatin1Char('\'')) {
      const qsizetype end = line.indexOf(QLatin1Char('\''), i + 1);
      if (end < 0) return std::nullopt;
      word += line.mid(i + 1, end - i - 1);
      in_word = true;
      i = end;
    } else if (c == QLatin1Char('"')) {
      qsizetype j = i + 1;
      for (; j < line.size() && line[j] != QLatin1Char('"'); ++j) {
        if (line[j] == QLatin1Char('\\') && j + 1 < line.size() && QStringLiteral("\\\"$`").contains(line[j + 1])) ++j;
        word += line[j];
      }
      if (j >= line.size()) return std::nullopt;
      in_word = true;
      i = j;
    } else if (c == QLatin1Char('\\')) {
      if (i + 1 >= line.size()) return std::nullopt;
      word += line[++i];
      in_word = true;
    } else if (c.isSpace()) {
      if (in_word) words << word;
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words << word;
  return words;
}

QStringList record_arguments(const RecordRequest& request) {
  QStringList args{QStringLiteral("record"), QStringLiteral("-o"), request.output_path};
  switch (request.capture) {
    case RecordRequest::Capture::WholeRun:
      break;
    case RecordRequest::Capture::ProfilerApi:
      args << QStringLiteral("--capture-range") << QStringLiteral("cudaProfilerApi");
      break;
    case RecordRequest::Capture::Nvtx:
      args << QStringLiteral("--capture-range") << QStringLiteral("nvtx:") + request.nvtx_name;
      break;
    case RecordRequest::Capture::Time:
      args << QStringLiteral("--delay") << seconds_text(request.delay_s);
      if (request.duration_s > 0) args << QStringLiteral("--duration") << seconds_text(request.duration_s);
      break;
  }
  args << QStringLiteral("--") << request.command;
  return args;
}

QString cli_path() { return QString::fromStdString(gtv::cli_executable().string()); }

RecordJob::RecordJob(QObject* parent) : QObject(parent), process_(new QProcess(this)), kill_timer_(new QTimer(this)) {
  kill_timer_->setSingleShot(true);
  kill_timer_->setInterval(kKillAfterMs);
  connect(kill_timer_, &QTimer::timeout, this, [this] { signal_group(SIGKILL); });
  // Its own process group, so Cancel reaches the program and its children too; and it ends when gtv does.
  process_->setChildProcessModifier([] {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  });
  // The program writes to the same streams as gtv-cli: one stream keeps their lines in order.
  process_->setProcessChannelMode(QProcess::MergedChannels);
  connect(process_, &QProcess::readyReadStandardOutput, this, &RecordJob::read_output);
  connect(process_, &QProcess::finished, this,
          [this](int exit_code, QProcess::ExitStatus status) { on_exit(exit_code, status == QProcess::CrashExit); });
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart && running_)
      finish_later(tr("cannot start %1: %2").arg(cli_path(), process_->errorString()));
  });
}

RecordJob::~RecordJob() {
  if (!running_) return;
  process_->disconnect(this);
  signal_group(SIGINT);
  if (!process_->waitForFinished(kKillAfterMs)) {
    signal_group(SIGKILL);
    process_->waitForFinished(-1);
  }
  QFile::remove(path_);  // the recording was abandoned: no result
}

void RecordJob::finish_later(const QString& error) {
  // Queued: QProcess may report a failed start inside start(), before the caller has seen it return.
  QTimer::singleShot(0, this, [this, error] {
    running_ = false;
    RecordOutcome outcome;
    outcome.cancelled = cancelled_;
    outcome.exit_code = -1;
    if (!cancelled_) outcome.error = error;
    emit finished(outcome);
  });
}

bool RecordJob::start(const RecordRequest& request) {
  if (running_) return false;
  running_ = true;
  cancelled_ = false;
  buffer_.clear();
  cli_message_.clear();
  wrote_line_.clear();
  path_ = request.output_path;
  if (request.command.isEmpty()) {
    finish_later(tr("no program to record: give a command line"));
    return true;
  }
  if (!request.working_dir.isEmpty() && !QFileInfo(request.working_dir).isDir()) {
    finish_later(tr("working directory %1: no such folder").arg(request.working_dir));
    return true;
  }
  process_->setWorkingDirectory(request.working_dir);
  process_->start(cli_path(), record_arguments(request));
  return true;
}

void RecordJob::read_output() {
  buffer_ += process_->readAllStandardOutput();
  for (qsizetype end = buffer_.indexOf('\n'); end >= 0; end = buffer_.indexOf('\n')) {
    QString line = QString::fromUtf8(buffer_.left(end)).trimmed();
    buffer_.remove(0, end + 1);
    // gtv-cli's own line after program output that did not end its last line: shown, and read, on its own.
    const QString wrote = QLatin1String("wrote ") + path_ + QLatin1String(" (");
    for (const QString& marker : {QStringLiteral("gtv-cli record: "), QStringLiteral("gtv-cli: "), wrote}) {
      if (const qsizetype at = line.lastIndexOf(marker); at > 0) {
        emit_line(line.left(at).trimmed());
        line = line.mid(at);
        break;
      }
    }
    emit_line(line);
  }
  // A program that writes without newlines: what it wrote is shown in pieces, never held without bound; the last
  // bytes wait for their line's end, so a line of gtv-cli's that follows is read whole.
  if (buffer_.size() > kMaxLineBytes) {
    const qsizetype piece = buffer_.size() - kKeptTailBytes;
    emit_line(QString::fromUtf8(buffer_.left(piece)));
    buffer_.remove(0, piece);
  }
}

void RecordJob::emit_line(const QString& line) {
  if (line.isEmpty()) return;
  if (is_cli_line(line)) cli_message_ = line;
  if (line.startsWith(QLatin1String("wrote ") + path_ + QLatin1String(" ("))) wrote_line_ = line;
  emit output_line(line);
}

void RecordJob::on_exit(int exit_code, bool crashed) {
  kill_timer_->stop();
  read_output();
  if (!buffer_.isEmpty()) {  // a last line without its newline
    buffer_ += '\n';
    read_output();
  }
  running_ = false;
  RecordOutcome outcome;
  outcome.exit_code = crashed ? -1 : exit_code;
  if (cancelled_) {
    outcome.cancelled = true;
    QFile::remove(path_);  // written before Cancel reached the program: the user asked for no result
    emit finished(outcome);
    return;
  }
  if (!crashed && !wrote_line_.isEmpty() && QFileInfo(path_).isFile()) {
    outcome.saved_path = path_;
    outcome.summary = wrote_line_;
    emit finished(outcome);
    return;
  }
  if (crashed)
    outcome.error = tr("gtv-cli was ended by a signal");
  else if (!cli_message_.isEmpty())
    outcome.error = cli_message_;
  else
    outcome.error = tr("gtv-cli record exited with status %1 and wrote no trace").arg(exit_code);
  emit finished(outcome);
}

void RecordJob::cancel() {
  if (!running_ || cancelled_) return;
  cancelled_ = true;
  signal_group(SIGINT);
  kill_timer_->start();
}

void RecordJob::signal_group(int signal) {
  const qint64 pid = process_->processId();
  if (pid <= 0) return;
  if (::kill(static_cast<pid_t>(-pid), signal) != 0) ::kill(static_cast<pid_t>(pid), signal);
}

void RecordJob::wait() {
  while (running_) {
    if (process_->state() != QProcess::NotRunning)
      process_->waitForFinished(100);
    else
      QCoreApplication::processEvents(QEventLoop::AllEvents, 100);
  }
}

}  // namespace gtv::ui
