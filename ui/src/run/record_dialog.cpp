#include "gtv/ui/record_dialog.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QVBoxLayout>

#include "gtv/ui/run_job.h"

namespace gtv::ui {
namespace {

// Lines of output kept in view; older ones scroll away, so a chatty program cannot grow the dialog without bound.
constexpr int kMaxOutputLines = 5000;

QDoubleSpinBox* seconds_box(QWidget* parent) {
  auto* box = new QDoubleSpinBox(parent);
  box->setRange(0, 1e6);
  box->setDecimals(1);
  box->setSuffix(QObject::tr(" s"));
  return box;
}

// An argument as a shell reads it back: in single quotes when it holds anything but plain characters.
QString shell_quoted(const QString& arg) {
  static const QRegularExpression kPlain(QStringLiteral("^[A-Za-z0-9_./:=+,@%-]+$"));
  if (kPlain.match(arg).hasMatch()) return arg;
  return QLatin1Char('\'') + QString(arg).replace(QLatin1String("'"), QLatin1String("'\\''")) + QLatin1Char('\'');
}

}  // namespace

RecordDialog::RecordDialog(const QString& data_dir, QWidget* parent)
    : QDialog(parent), data_dir_(data_dir), job_(new RecordJob(this)) {
  setWindowTitle(tr("Record a program"));
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  command_ = new QLineEdit(this);
  command_->setPlaceholderText(tr("e.g. python3 train.py --epochs 1"));
  command_->setToolTip(
      tr("The program and its arguments, quoted as in a shell (no pipes or redirections: write "
         "sh -c '...' for those)"));
  working_dir_ = new QLineEdit(this);
  working_dir_->setPlaceholderText(QDir::currentPath());
  auto* browse = new QPushButton(tr("Browse..."), this);
  auto* dir_row = new QHBoxLayout;
  dir_row->addWidget(working_dir_, 1);
  dir_row->addWidget(browse);
  capture_ = new QComboBox(this);
  capture_->addItem(tr("The whole run"));
  capture_->addItem(tr("Between cudaProfilerStart and cudaProfilerStop"));
  capture_->addItem(tr("Inside NVTX ranges named..."));
  capture_->addItem(tr("A time window: delay and duration"));
  nvtx_ = new QLineEdit(this);
  nvtx_->setPlaceholderText(tr("e.g. train step"));
  delay_ = seconds_box(this);
  delay_->setToolTip(tr("Keep only what starts this long after the program started"));
  duration_ = seconds_box(this);
  duration_->setSpecialValueText(tr("until the program ends"));
  duration_->setToolTip(tr("Keep only what starts within this long of the delay's end"));
  form->addRow(tr("Command line"), command_);
  form->addRow(tr("Working directory"), dir_row);
  form->addRow(tr("Capture"), capture_);
  form->addRow(tr("NVTX range"), nvtx_);
  form->addRow(tr("Delay"), delay_);
  form->addRow(tr("Duration"), duration_);
  layout->addLayout(form);

  record_ = new QPushButton(tr("Record"), this);
  record_->setDefault(true);
  cancel_ = new QPushButton(tr("Cancel recording"), this);
  cancel_->setEnabled(false);
  close_ = new QPushButton(tr("Close"), this);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(record_);
  buttons->addWidget(cancel_);
  buttons->addStretch(1);
  buttons->addWidget(close_);
  layout->addLayout(buttons);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setTextVisible(false);
  progress_->hide();  // shown, busy, while a recording runs
  layout->addWidget(progress_);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(status_);
  output_ = new QPlainTextEdit(this);
  output_->setReadOnly(true);
  output_->setMaximumBlockCount(kMaxOutputLines);
  output_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  output_->setPlaceholderText(tr("What gtv-cli and the program print appears here."));
  layout->addWidget(output_, 1);

  const QFileInfo cli(cli_path());
  if (cli.isFile() && cli.isExecutable()) {
    status_->setText(tr("Recorded by %1 record, with gtv's CUPTI recorder in every process that uses CUDA; the "
                        "trace opens as a tab when the program ends.")
                         .arg(cli_path()));
  } else {
    status_->setText(
        tr("This gtv cannot record programs: there is no executable %1 (set GTV_CLI to a gtv-cli).").arg(cli_path()));
    record_->setEnabled(false);
  }

  connect(browse, &QPushButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Working directory"), working_dir_->text());
    if (!dir.isEmpty()) working_dir_->setText(dir);
  });
  connect(capture_, &QComboBox::currentIndexChanged, this, &RecordDialog::show_capture_options);
  connect(record_, &QPushButton::clicked, this, &RecordDialog::start_recording);
  connect(cancel_, &QPushButton::clicked, this, &RecordDialog::cancel_recording);
  connect(close_, &QPushButton::clicked, this, &RecordDialog::reject);
  connect(job_, &RecordJob::output_line, output_, &QPlainTextEdit::appendPlainText);
  connect(job_, &RecordJob::finished, this, &RecordDialog::on_finished);
  show_capture_options();
  resize(720, 520);
}

RecordRequest RecordDialog::request() const {
  RecordRequest r;
  r.command = split_command_line(command_->text()).value_or(QStringList());
  r.working_dir = working_dir_->text().trimmed();
  r.capture = static_cast<RecordRequest::Capture>(capture_->currentIndex());
  r.nvtx_name = nvtx_->text();
  r.delay_s = delay_->value();
  r.duration_s = duration_->value();
  const QString program = r.command.isEmpty() ? QStringLiteral("program") : QFileInfo(r.command.front()).fileName();
  r.output_path = run_file_path(QDir(data_dir_).absolutePath(), QStringLiteral("record-") + program);
  return r;
}

void RecordDialog::show_capture_options() {
  const auto capture = static_cast<RecordRequest::Capture>(capture_->currentIndex());
  nvtx_->setEnabled(capture == RecordRequest::Capture::Nvtx);
  delay_->setEnabled(capture == RecordRequest::Capture::Time);
  duration_->setEnabled(capture == RecordRequest::Capture::Time);
}

void RecordDialog::start_recording() {
  if (job_->is_running() || !record_->isEnabled()) return;
  const RecordRequest r = request();
  if (r.command.isEmpty()) {
    const QString message = command_->text().trimmed().isEmpty()
                                ? tr("no program to record: give a command line")
                                : tr("the command line '%1' has a quote that does not close").arg(command_->text());
    status_->setText(message);
    emit failed(message);
    return;
  }
  const QString dir = QFileInfo(r.output_path).absolutePath();
  if (!QDir().mkpath(dir)) {
    const QString message = tr("cannot create %1 for the trace").arg(dir);
    status_->setText(message);
    emit failed(message);
    return;
  }
  output_->clear();
  QStringList shown{cli_path()};
  for (const QString& arg : record_arguments(r)) shown << shell_quoted(arg);
  output_->appendPlainText(QStringLiteral("$ ") + shown.join(QLatin1Char(' ')));
  status_->setText(tr("recording %1... (the trace opens when it ends)").arg(r.command.front()));
  set_running(job_->start(r));
}

void RecordDialog::cancel_recording() {
  if (!job_->is_running()) return;
  job_->cancel();
  cancel_->setEnabled(false);
  status_->setText(tr("cancelling (Ctrl+C to the program)..."));
}

void RecordDialog::reject() {
  if (job_->is_running()) {
    cancel_recording();
    return;  // it closes once the program has ended
  }
  QDialog::reject();
}

void RecordDialog::on_finished(const RecordOutcome& outcome) {
  set_running(false);
  last_outcome_ = outcome;
  if (outcome.cancelled) {
    status_->setText(tr("cancelled: nothing saved"));
    return;
  }
  if (!outcome.saved_path.isEmpty()) {
    status_->setText(outcome.summary);
    emit recorded(outcome.saved_path);
    return;
  }
  status_->setText(outcome.error);
  emit failed(outcome.error);
}

void RecordDialog::set_running(bool running) {
  record_->setEnabled(!running);
  cancel_->setEnabled(running);
  command_->setEnabled(!running);
  working_dir_->setEnabled(!running);
  capture_->setEnabled(!running);
  progress_->setRange(0, running ? 0 : 1);  // busy while running: how long a program runs is not known
  progress_->setVisible(running);
  if (running) {
    nvtx_->setEnabled(false);
    delay_->setEnabled(false);
    duration_->setEnabled(false);
  } else {
    show_capture_options();
  }
}

}  // namespace gtv::ui
