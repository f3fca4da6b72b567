#pragma once
// The run panel: pick a scenario (its explanation beside it), set models, hidden size, batch, iterations, the
// device mapping and, for the ddp scenarios, ranks and an injected straggler, press Run. The run happens in a
// RunJob (the runner gtv-run as a child process) with a progress bar that moves by phase and, inside a loop, by
// iteration, and Cancel; the saved file is announced with run_saved() (the main window opens it as a tab). The
// bundled H200 recordings are listed next to it; open_recording() asks for one. The scenarios and their explanations
// come from the catalogue, in every build; without a runner the panel says so and only the recordings open.
#include <QWidget>
#include <optional>

#include "gtv/ui/run_job.h"

class QComboBox;
class QProcess;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTextBrowser;

namespace gtv::ui {

class RunJob;

// Where the bundled recordings are: $GTV_RECORDINGS_DIR, else traces/h200x2 in gtv::data_dir() (the installed
// share/gtv, or the source tree's resources/); empty when none exists.
[[nodiscard]] QString bundled_recordings_dir();
// The bundled recording of a scenario, or empty when there is none.
[[nodiscard]] QString recording_of(const QString& scenario);
// The default data directory of runs: QStandardPaths::AppDataLocation.
[[nodiscard]] QString default_data_dir();

// How far a loop of the run got, from a progress line the runner writes inside it: "timed loop: 57 of 200
// iterations" (or without the phase). nullopt for other lines.
struct IterationProgress {
  int done = 0;
  int total = 0;
};
[[nodiscard]] std::optional<IterationProgress> iteration_progress(const QString& line);
// What is wrong with the Straggler field's text for a run of `ranks` ranks (0: not known before the run), or
// empty when it is fine (empty text: no straggler).
[[nodiscard]] QString straggler_error(const QString& text, int ranks);

class RunPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunPanel(QWidget* parent = nullptr);
  ~RunPanel() override;

  void set_data_dir(const QString& dir) { data_dir_ = dir; }
  [[nodiscard]] const QString& data_dir() const { return data_dir_; }
  [[nodiscard]] bool can_run() const { return can_run_; }  // a runner was found when the panel was made
  [[nodiscard]] bool is_running() const;
  // What the last run that ended reported (saved path, error, cancelled).
  [[nodiscard]] const RunOutcome& last_outcome() const { return last_outcome_; }

  // Widgets, for tests and the main window.
  [[nodiscard]] QComboBox* scenario_box() const { return scenario_; }
  [[nodiscard]] QSpinBox* models_box() const { return models_; }
  [[nodiscard]] QSpinBox* hidden_box() const { return hidden_; }
  [[nodiscard]] QSpinBox* batch_box() const { return batch_; }
  [[nodiscard]] QSpinBox* iters_box() const { return iters_; }
  [[nodiscard]] QSpinBox* ranks_box() const { return ranks_; }  // the ddp scenarios: ranks; others: models
  [[nodiscard]] QLineEdit* devices_edit() const { return devices_; }
  [[nodiscard]] QLineEdit* straggler_edit() const { return straggler_; }  // the ddp scenarios: RANK=MS
  [[nodiscard]] QPushButton* run_button() const { return run_; }
  [[nodiscard]] QPushButton* cancel_button() const { return cancel_; }
  [[nodiscard]] QPushButton* compare_button() const { return compare_; }
  [[nodiscard]] QProgressBar* progress_bar() const { return progress_; }
  [[nodiscard]] QLabel* status_label() const { return status_; }
  [[nodiscard]] QListWidget* recordings() const { return recordings_; }
  [[nodiscard]] QLabel* gpu_note() const { return gpu_note_; }

  void start_run();
  void cancel_run();

 signals:
  void run_saved(const QString& path);
  void run_failed(const QString& message);
  void run_cancelled();
  void progress_line(const QString& line);  // each progress line of the running job
  void open_recording(const QString& path);
  // The last saved run and the H200 recording of the same scenario, to be stacked.
  void compare_requested(const QStringList& paths);
  // The runner answered (or failed to answer) how many CUDA GPUs it can use; gpu_note() says it.
  void gpus_probed();

 protected:
  // The first time the panel is shown it asks the runner for the GPU count (gtv-run --gpu-count).
  void showEvent(QShowEvent* event) override;

 private:
  QWidget* build_form();
  QWidget* build_recordings();
  void show_explanation();
  void show_scenario_options();  // Models or Ranks (and Straggler), as the scenario runs
  void check_straggler();        // says what is wrong with the Straggler field and holds Run until it is fixed
  [[nodiscard]] int ranks_to_run() const;  // how many ranks a ddp run starts; 0 when not known yet
  [[nodiscard]] bool scenario_runs_as_ranks() const;
  void on_progress(const QString& line);
  void on_finished(const RunOutcome& outcome);
  void set_running(bool running);
  void probe_gpus();

  QString data_dir_;
  QComboBox* scenario_ = nullptr;
  QTextBrowser* explanation_ = nullptr;
  QSpinBox* models_ = nullptr;
  QSpinBox* hidden_ = nullptr;
  QSpinBox* batch_ = nullptr;
  QSpinBox* iters_ = nullptr;
  QSpinBox* ranks_ = nullptr;
  QLineEdit* devices_ = nullptr;
  QLineEdit* straggler_ = nullptr;
  QPushButton* run_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* compare_ = nullptr;
  QString last_scenario_;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* gpu_note_ = nullptr;
  QListWidget* recordings_ = nullptr;
  RunJob* job_ = nullptr;
  QProcess* gpu_probe_ = nullptr;
  bool can_run_ = false;
  RunOutcome last_outcome_;
  int expected_steps_ = 1;
  int steps_seen_ = 0;
  int gpu_count_ = -1;  // as the runner answered; -1 before it has
};

}  // namespace gtv::ui
