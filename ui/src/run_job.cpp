#include "gtv/ui/run_job.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <stdexcept>

#if GTV_WITH_TORCH
#include "gtv/io/trace_file.h"
#endif

namespace gtv::ui {

QString run_file_path(const QString& data_dir, const QString& scenario) {
  const QString dir = QDir(data_dir).filePath(QStringLiteral("runs"));
  const QString stem =
      scenario + QLatin1Char('-') + QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
  QString path = QDir(dir).filePath(stem + QStringLiteral(".json.gz"));
  for (int n = 2; QFile::exists(path); ++n) path = QDir(dir).filePath(stem + QStringLiteral("-%1.json.gz").arg(n));
  return path;
}

#if GTV_WITH_TORCH
namespace {

struct Cancelled : std::runtime_error {
  Cancelled() : std::runtime_error("cancelled") {}
};

RunOutcome run_and_save(const exp::RunConfig& config, const QString& data_dir,
                        const std::shared_ptr<std::atomic<bool>>& cancelled,
                        const std::function<void(std::string_view)>& forward) {
  auto progress = [&](std::string_view line) {
    if (cancelled->load()) throw Cancelled();
    forward(line);
  };
  exp::RunConfig cancellable = config;
  cancellable.cancelled = [cancelled] { return cancelled->load(); };
  RunOutcome outcome;
  exp::RunResult result;
  try {
    result = exp::run_scenario(cancellable, progress);
  } catch (const Cancelled&) {
    outcome.cancelled = true;  // thrown outside record(), before the scenario started
    return outcome;
  }
  if (result.trace)
    outcome.iterations_done =
        static_cast<int>(std::count_if(result.trace->ranges().begin(), result.trace->ranges().end(),
                                       [](const Range& r) { return r.kind == RangeKind::Iteration; }));
  if (cancelled->load()) {
    outcome.cancelled = true;
    return outcome;
  }
  if (!result.status) outcome.error = QString::fromStdString(result.status.error().message);
  if (!result.trace) return outcome;
  const QString path = run_file_path(data_dir, QString::fromStdString(config.scenario));
  if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
    outcome.error = QStringLiteral("cannot create %1").arg(QFileInfo(path).absolutePath());
    return outcome;
  }
  if (Status s = io::write_trace(*result.trace, path.toStdString()); !s) {
    outcome.error = QString::fromStdString(s.error().message);
    return outcome;
  }
  if (cancelled->load()) {  // Cancel arrived while writing: the user asked for no result
    QFile::remove(path);
    outcome.cancelled = true;
    return outcome;
  }
  outcome.saved_path = path;
  return outcome;
}

}  // namespace

RunJob::RunJob(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<RunOutcome>::finished, this, [this] {
    running_ = false;
    emit finished(watcher_.result());
  });
}

RunJob::~RunJob() {
  cancel();
  wait();
}

bool RunJob::start(const exp::RunConfig& config, const QString& data_dir) {
  if (running_) return false;
  running_ = true;
  cancelled_ = std::make_shared<std::atomic<bool>>(false);
  QPointer<RunJob> self(this);
  auto forward = [self](std::string_view line) {
    const QString text = QString::fromUtf8(line.data(), static_cast<qsizetype>(line.size()));
    QMetaObject::invokeMethod(
        self.data(),
        [self, text] {
          if (self) emit self->progress_line(text);
        },
        Qt::QueuedConnection);
  };
  watcher_.setFuture(QtConcurrent::run([config, data_dir, cancelled = cancelled_, forward] {
    return run_and_save(config, data_dir, cancelled, forward);
  }));
  return true;
}

void RunJob::cancel() {
  if (cancelled_) cancelled_->store(true);
}

void RunJob::wait() { watcher_.waitForFinished(); }
#endif

}  // namespace gtv::ui
