#pragma once
// One `gtv-cli record` as a child process (gtv::cli_executable(); gtv itself never loads CUPTI): it runs the
// user's command line in the working directory given, with the recorder injected, and merges what the processes
// that used CUDA wrote into one trace. Every line gtv-cli and the program write comes back as output_line(); when
// it exits, finished() says the trace written or gtv-cli's one-line reason why none was (no process used CUDA, the
// program could not start, bad options). Cancel sends SIGINT to the process group, as Ctrl+C in a terminal does
// (gtv-cli ignores it and cleans up once the program has ended; SIGKILL follows when it does not end), and removes a
// trace written meanwhile, so a cancelled recording leaves no file.
#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>
#include <optional>

class QProcess;
class QTimer;

namespace gtv::ui {

// What to record and how; the capture range is one of the four gtv-cli offers.
struct RecordRequest {
  enum class Capture { WholeRun, ProfilerApi, Nvtx, Time };
  QStringList command;  // the program and its arguments
  QString working_dir;  // empty: gtv's own
  Capture capture = Capture::WholeRun;
  QString nvtx_name;  // Capture::Nvtx: the NVTX range name
  double delay_s = 0;
  double duration_s = 0;  // Capture::Time: 0 means until the program ends
  QString output_path;    // the trace to write (absolute)
};

// A command line split into arguments as a POSIX shell splits words: blanks separate, '...' keeps everything,
// "..." keeps everything but \\, \", \$ and \` escapes, a backslash outside quotes keeps the next character. No
// expansion, pipes or redirections. nullopt when a quote does not close or the line ends in a lone backslash.
[[nodiscard]] std::optional<QStringList> split_command_line(const QString& line);
// The arguments of gtv-cli for a request: record -o OUT [capture options] -- CMD ARGS...
[[nodiscard]] QStringList record_arguments(const RecordRequest& request);
// The gtv-cli the window runs (gtv::cli_executable()).
[[nodiscard]] QString cli_path();

struct RecordOutcome {
  QString saved_path;  // empty when no trace was written
  QString error;       // one line, when no trace was written
  QString summary;     // gtv-cli's "wrote ..." line, when one was
  int exit_code = 0;   // gtv-cli's: the program's, 127 when it could not start, 1 or 2 before it ran
  bool cancelled = false;
};

class RecordJob : public QObject {
  Q_OBJECT
 public:
  explicit RecordJob(QObject* parent = nullptr);
  ~RecordJob() override;  // ends a running recording and waits for it

  // Starts gtv-cli; false when a recording is running already. A gtv-cli that cannot start ends at once with
  // finished() and the reason as error.
  bool start(const RecordRequest& request);
  void cancel();
  [[nodiscard]] bool is_running() const { return running_; }
  // Blocks until gtv-cli has exited and finished() was emitted (tests).
  void wait();

 signals:
  void output_line(const QString& line);
  void finished(const gtv::ui::RecordOutcome& outcome);

 private:
  void read_output();
  void emit_line(const QString& line);  // one line of output, noting gtv-cli's own
  void on_exit(int exit_code, bool crashed);
  void finish_later(const QString& error);
  void signal_group(int signal);

  QProcess* process_ = nullptr;
  QTimer* kill_timer_ = nullptr;
  QString path_;
  QByteArray buffer_;
  QString cli_message_;  // the last line gtv-cli wrote about itself ("gtv-cli record: ...", "gtv-cli: ...")
  QString wrote_line_;   // gtv-cli's "wrote OUT (...)" line
  bool cancelled_ = false;
  bool running_ = false;
};

}  // namespace gtv::ui
