#pragma once
// One experiment run as a child process: the runner gtv-run (gtv::runner_executable(), the one program that loads
// LibTorch and CUPTI) started with the arguments of `gtv-cli run` and --report-fd 1; its protocol lines
// (app/run/run_report.h) come back as progress signals, and the trace it writes atomically under
// <data dir>/runs/<scenario>-<timestamp>.json.gz is announced when it exits. Cancel ends the runner's process
// group with SIGTERM (which removes a trace file it was writing; SIGKILL follows when it does not end) and a file
// already in place when Cancel came is removed, so a cancelled run leaves no file.
#include <QByteArray>
#include <QObject>
#include <QString>

#include "gtv/experiments/run_config.h"

class QProcess;
class QTimer;

namespace gtv::ui {

struct RunOutcome {
  QString saved_path;  // empty when nothing was saved
  QString error;       // one line; may be set with a saved (partial) trace
  bool cancelled = false;
  bool interrupted = false;  // cancelled while the runner was still running: the cancel ended it
};

// <data_dir>/runs/<scenario>-<yyyyMMdd-HHmmss>[-N].json.gz, the first name not taken yet.
[[nodiscard]] QString run_file_path(const QString& data_dir, const QString& scenario);

// The runner gtv-run would start (gtv::runner_executable()), and whether it is an executable file there.
[[nodiscard]] QString runner_path();
[[nodiscard]] bool runner_available();
// One line for a missing runner, naming the path looked at.
[[nodiscard]] QString missing_runner_message();

class RunJob : public QObject {
  Q_OBJECT
 public:
  explicit RunJob(QObject* parent = nullptr);
  ~RunJob() override;  // ends a running runner and waits for it

  // Starts the runner; false when one is already running. A runner that cannot start (missing, not
  // executable) ends at once with finished() and the reason as error.
  bool start(const exp::RunConfig& config, const QString& data_dir);
  void cancel();
  [[nodiscard]] bool is_running() const { return running_; }
  // Blocks until the runner has exited and finished() was emitted (tests).
  void wait();

 signals:
  void progress_line(const QString& line);
  void finished(const gtv::ui::RunOutcome& outcome);

 private:
  void finish_later(const QString& error);  // ends a run that could not start, with error as its outcome
  void read_report();
  void on_exit(int exit_code, bool crashed);
  void signal_group(int signal);
  void remove_output() const;  // the run's file and its ranks' files

  QProcess* process_ = nullptr;
  QTimer* kill_timer_ = nullptr;
  QString path_;
  QByteArray report_buffer_;
  QString failure_;      // the runner's `failed` line
  QString saved_path_;   // the runner's `wrote` line
  QString last_stderr_;  // the runner's last line on stderr, for an exit without a `failed` line
  bool cancelled_ = false;
  bool running_ = false;
};

}  // namespace gtv::ui
