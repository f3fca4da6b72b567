#pragma once
// Runs > Record a program...: a command line, its working directory and a capture range (the whole run, between
// cudaProfilerStart and cudaProfilerStop, inside NVTX ranges of one name, or a delay and a duration), recorded by a
// RecordJob (`gtv-cli record` as a child process, off the UI thread) into <data dir>/runs/record-<program>-<time>
// .json.gz. The dialog shows what gtv-cli and the program print while it runs and can cancel it; recorded() names
// the trace when one was written (the window opens it as a tab), failed() gives gtv-cli's one-line reason when none
// was (the window shows it in an error box).
#include <QDialog>

#include "gtv/ui/record_job.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace gtv::ui {

class RecordDialog : public QDialog {
  Q_OBJECT
 public:
  explicit RecordDialog(const QString& data_dir, QWidget* parent = nullptr);

  // The request the fields describe, with a fresh output path under the data directory; an empty command when the
  // command line is empty or its quotes do not close.
  [[nodiscard]] RecordRequest request() const;
  [[nodiscard]] bool is_running() const { return job_->is_running(); }
  [[nodiscard]] RecordJob* job() const { return job_; }
  [[nodiscard]] const RecordOutcome& last_outcome() const { return last_outcome_; }

  // Widgets, for tests.
  [[nodiscard]] QLineEdit* command_edit() const { return command_; }
  [[nodiscard]] QLineEdit* working_dir_edit() const { return working_dir_; }
  [[nodiscard]] QComboBox* capture_box() const { return capture_; }
  [[nodiscard]] QLineEdit* nvtx_edit() const { return nvtx_; }
  [[nodiscard]] QDoubleSpinBox* delay_box() const { return delay_; }
  [[nodiscard]] QDoubleSpinBox* duration_box() const { return duration_; }
  [[nodiscard]] QPushButton* record_button() const { return record_; }
  [[nodiscard]] QPushButton* cancel_button() const { return cancel_; }
  [[nodiscard]] QPlainTextEdit* output_view() const { return output_; }
  [[nodiscard]] QLabel* status_label() const { return status_; }

  void start_recording();
  void cancel_recording();

 signals:
  void recorded(const QString& path);
  void failed(const QString& message);

 protected:
  void reject() override;  // Close while recording cancels the recording first

 private:
  void show_capture_options();
  void on_finished(const RecordOutcome& outcome);
  void set_running(bool running);

  QString data_dir_;
  QLineEdit* command_ = nullptr;
  QLineEdit* working_dir_ = nullptr;
  QComboBox* capture_ = nullptr;
  QLineEdit* nvtx_ = nullptr;
  QDoubleSpinBox* delay_ = nullptr;
  QDoubleSpinBox* duration_ = nullptr;
  QPushButton* record_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* close_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPlainTextEdit* output_ = nullptr;
  QLabel* status_ = nullptr;
  RecordJob* job_ = nullptr;
  RecordOutcome last_outcome_;
};

}  // namespace gtv::ui
