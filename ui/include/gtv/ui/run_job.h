#pragma once
// One experiment run off the UI thread (LibTorch builds only): run_scenario in a worker, its progress lines
// forwarded as signals, the trace saved atomically under <data dir>/runs/<scenario>-<timestamp>.json.gz.
// Cancel: RunConfig::cancelled is asked before each iteration and the progress callback throws at the next
// progress line, so the run stops at the next iteration or step; a cancelled run is never written (a file
// already renamed into place when Cancel came is removed), so no half-written or stale file is left.
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

#include "gtv/config.h"
#if GTV_WITH_TORCH
#include "gtv/experiments/runner.h"
#endif

namespace gtv::ui {

struct RunOutcome {
  QString saved_path;  // empty when nothing was saved
  QString error;       // one line; may be set with a saved (partial) trace
  bool cancelled = false;
  int iterations_done = 0;  // Iteration ranges in what ran (also for a cancelled run, whose trace is dropped)
};

// <data_dir>/runs/<scenario>-<yyyyMMdd-HHmmss>[-N].json.gz, the first name not taken yet.
[[nodiscard]] QString run_file_path(const QString& data_dir, const QString& scenario);

#if GTV_WITH_TORCH
class RunJob : public QObject {
  Q_OBJECT
 public:
  explicit RunJob(QObject* parent = nullptr);
  ~RunJob() override;

  // Starts the run; false when one is already running.
  bool start(const exp::RunConfig& config, const QString& data_dir);
  void cancel();
  [[nodiscard]] bool is_running() const { return running_; }
  // Blocks until the worker has returned (destructor, tests).
  void wait();

 signals:
  void progress_line(const QString& line);
  void finished(const gtv::ui::RunOutcome& outcome);

 private:
  std::shared_ptr<std::atomic<bool>> cancelled_;
  QFutureWatcher<RunOutcome> watcher_;
  bool running_ = false;
};
#endif

}  // namespace gtv::ui
