#include "gtv/ui/run_panel.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>

#include "gtv/base/install_layout.h"
#include "gtv/config.h"
#include "gtv/experiments/catalog.h"
#include "gtv/experiments/run_config.h"
#include "gtv/ui/run_job.h"

namespace gtv::ui {
namespace {

QSpinBox* spin(int min, int max, int value, QWidget* parent) {
  auto* box = new QSpinBox(parent);
  box->setRange(min, max);
  box->setValue(value);
  return box;
}

// "0,1,0" -> {0, 1, 0}; empty -> {} (round-robin); anything else is an error naming the bad item.
std::optional<std::vector<int>> parse_devices(const QString& text, QString* error) {
  std::vector<int> devices;
  if (text.trimmed().isEmpty()) return devices;
  for (const QString& item : text.split(QLatin1Char(','))) {
    bool ok = false;
    const int d = item.trimmed().toInt(&ok);
    if (!ok || d < 0) {
      *error = QStringLiteral("device mapping: '%1' is not a GPU index (use e.g. 0,1,0)").arg(item.trimmed());
      return std::nullopt;
    }
    devices.push_back(d);
  }
  return devices;
}

// The progress bar's units per step, so a loop's iterations move it inside its step.
constexpr int kStepUnits = 1000;

}  // namespace

std::optional<IterationProgress> iteration_progress(const QString& line) {
  static const QRegularExpression kPattern(QStringLiteral("(?:^|: )(\\d+) of (\\d+) iterations$"));
  const QRegularExpressionMatch m = kPattern.match(line);
  if (!m.hasMatch()) return std::nullopt;
  bool done_ok = false;
  bool total_ok = false;
  const int done = m.captured(1).toInt(&done_ok);
  const int total = m.captured(2).toInt(&total_ok);
  if (!done_ok || !total_ok || total <= 0 || done > total) return std::nullopt;
  return IterationProgress{done, total};
}

QString straggler_error(const QString& text, int ranks) {
  const QString trimmed = text.trimmed();
  if (trimmed.isEmpty()) return {};
  const auto parsed = exp::parse_straggler_text(trimmed.toStdString());
  if (!parsed)
    return QObject::tr("straggler: '%1' is not RANK=MS (a rank and a delay in milliseconds above 0, e.g. 1=5 or 2=0.2)")
        .arg(trimmed);
  if (ranks > 0 && parsed->first >= ranks)
    return QObject::tr("straggler: rank %1 is not in a run of %2 ranks (0 to %3)")
        .arg(parsed->first)
        .arg(ranks)
        .arg(ranks - 1);
  return {};
}

QString bundled_recordings_dir() {
  QStringList candidates;
  if (!qEnvironmentVariableIsEmpty("GTV_RECORDINGS_DIR")) candidates << qEnvironmentVariable("GTV_RECORDINGS_DIR");
  candidates << QString::fromStdString((gtv::data_dir() / "traces" / "h200x2").string());
  for (const QString& dir : candidates)
    if (QFileInfo(dir).isDir()) return QDir(dir).absolutePath();
  return {};
}

QString recording_of(const QString& scenario) {
  const QString dir = bundled_recordings_dir();
  const QString path = dir + QLatin1Char('/') + scenario + QStringLiteral(".json.gz");
  return !dir.isEmpty() && !scenario.isEmpty() && QFileInfo::exists(path) ? path : QString();
}

QString default_data_dir() { return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation); }

RunPanel::RunPanel(QWidget* parent) : QWidget(parent), data_dir_(default_data_dir()) {
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(build_form());
  layout->addWidget(build_recordings(), 1);
}

RunPanel::~RunPanel() = default;

QWidget* RunPanel::build_form() {
  auto* box = new QWidget(this);
  auto* form = new QFormLayout(box);
  scenario_ = new QComboBox(box);
  explanation_ = new QTextBrowser(box);
  explanation_->setMinimumHeight(160);
  models_ = spin(1, 16, 3, box);
  hidden_ = spin(0, 100000, 0, box);
  hidden_->setSpecialValueText(tr("default (10000 GPU, 512 CPU)"));
  batch_ = spin(1, 100000, 100, box);
  iters_ = spin(1, 10000, 10, box);
  ranks_ = spin(0, 64, 0, box);
  ranks_->setSpecialValueText(tr("one per GPU (2 on the CPU)"));
  ranks_->setToolTip(tr("ddp scenarios: processes (ranks) to start, one model replica each"));
  devices_ = new QLineEdit(box);
  devices_->setPlaceholderText(tr("round-robin, or e.g. 0,1,0"));
  straggler_ = new QLineEdit(box);
  straggler_->setPlaceholderText(tr("none, or RANK=MS, e.g. 1=5"));
  straggler_->setToolTip(
      tr("ddp scenarios: this rank sleeps this many milliseconds before each training step (an \"injected delay\" "
         "range), so the others wait for it at every step's collectives: a straggler with a known answer"));
  run_ = new QPushButton(tr("Run"), box);
  cancel_ = new QPushButton(tr("Cancel"), box);
  cancel_->setEnabled(false);
  compare_ = new QPushButton(tr("Compare last run with H200"), box);
  compare_->setEnabled(false);
  progress_ = new QProgressBar(box);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  status_ = new QLabel(box);
  status_->setWordWrap(true);
  gpu_note_ = new QLabel(box);
  gpu_note_->setWordWrap(true);
  form->addRow(tr("Scenario"), scenario_);
  form->addRow(explanation_);
  form->addRow(tr("Models"), models_);
  form->addRow(tr("Hidden"), hidden_);
  form->addRow(tr("Batch"), batch_);
  form->addRow(tr("Iterations"), iters_);
  form->addRow(tr("Ranks"), ranks_);
  form->addRow(tr("Devices"), devices_);
  form->addRow(tr("Straggler"), straggler_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_);
  buttons->addWidget(cancel_);
  form->addRow(buttons);
  form->addRow(compare_);
  form->addRow(progress_);
  form->addRow(status_);
  form->addRow(gpu_note_);
  connect(run_, &QPushButton::clicked, this, &RunPanel::start_run);
  connect(cancel_, &QPushButton::clicked, this, &RunPanel::cancel_run);
  connect(compare_, &QPushButton::clicked, this, [this] {
    emit compare_requested({last_outcome_.saved_path, recording_of(last_scenario_)});
  });
  connect(scenario_, &QComboBox::currentIndexChanged, this, &RunPanel::show_explanation);
  connect(scenario_, &QComboBox::currentIndexChanged, this, &RunPanel::show_scenario_options);
  connect(straggler_, &QLineEdit::textChanged, this, &RunPanel::check_straggler);
  connect(ranks_, &QSpinBox::valueChanged, this, &RunPanel::check_straggler);
  for (const exp::ScenarioInfo& s : exp::list_scenarios()) {
    scenario_->addItem(QString::fromStdString(s.name));
    scenario_->setItemData(scenario_->count() - 1, QString::fromStdString(s.summary), Qt::ToolTipRole);
  }
  scenario_->setCurrentIndex(std::max(0, scenario_->findText(QStringLiteral("sequential"))));
  job_ = new RunJob(this);
  connect(job_, &RunJob::progress_line, this, &RunPanel::on_progress);
  connect(job_, &RunJob::finished, this, &RunPanel::on_finished);
  can_run_ = runner_available();
  if (can_run_) {
    gpu_note_->setText(tr("Runs are done by %1.").arg(runner_path()));
  } else {
    gpu_note_->setText(missing_runner_message());
    run_->setEnabled(false);
    for (QWidget* w : std::initializer_list<QWidget*>{models_, hidden_, batch_, iters_, ranks_, devices_, straggler_})
      w->setEnabled(false);
  }
  show_explanation();
  show_scenario_options();
  return box;
}

QWidget* RunPanel::build_recordings() {
  auto* box = new QWidget(this);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new QLabel(tr("Recorded on 2x H200 (double-click to open):"), box));
  recordings_ = new QListWidget(box);
  layout->addWidget(recordings_);
  const QString dir = bundled_recordings_dir();
  if (!dir.isEmpty()) {
    const QStringList files = QDir(dir).entryList({QStringLiteral("*.json.gz")}, QDir::Files, QDir::Name);
    for (const QString& f : files) {
      auto* item = new QListWidgetItem(QString(f).remove(QStringLiteral(".json.gz")), recordings_);
      item->setData(Qt::UserRole, QDir(dir).filePath(f));
    }
  }
  if (recordings_->count() == 0) recordings_->addItem(tr("(no bundled recordings found)"));
  connect(recordings_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    const QString path = item->data(Qt::UserRole).toString();
    if (!path.isEmpty()) emit open_recording(path);
  });
  return box;
}

bool RunPanel::scenario_runs_as_ranks() const {
  const auto info = exp::find_scenario(scenario_->currentText().toStdString());
  return info && info->ranks;
}

void RunPanel::show_scenario_options() {
  if (!can_run_) return;
  const bool ranks = scenario_runs_as_ranks();
  models_->setEnabled(!ranks);
  ranks_->setEnabled(ranks);
  straggler_->setEnabled(ranks);
  devices_->setPlaceholderText(ranks ? tr("GPU of each rank, e.g. 0,1") : tr("round-robin, or e.g. 0,1,0"));
  check_straggler();
}

int RunPanel::ranks_to_run() const {
  if (ranks_->value() > 0) return ranks_->value();
  // "one per GPU (2 on the CPU)": known once the runner has said how many GPUs it sees.
  if (gpu_count_ < 0) return 0;
  return gpu_count_ > 0 ? gpu_count_ : 2;
}

void RunPanel::check_straggler() {
  if (!can_run_ || job_ == nullptr || job_->is_running()) return;
  const QString error = scenario_runs_as_ranks() ? straggler_error(straggler_->text(), ranks_to_run()) : QString();
  straggler_->setToolTip(error.isEmpty() ? QString() : error);
  straggler_->setStyleSheet(error.isEmpty() ? QString() : QStringLiteral("QLineEdit { border: 1px solid #c0392b; }"));
  run_->setEnabled(error.isEmpty());
  if (!error.isEmpty())
    status_->setText(error);
  else if (status_->text().startsWith(QStringLiteral("straggler: ")))
    status_->clear();
}

void RunPanel::show_explanation() {
  const auto text = exp::scenario_explanation(scenario_->currentText().toStdString());
  QString markdown = text ? QString::fromUtf8(text->data(), static_cast<qsizetype>(text->size())) : QString();
  // The file's title is a level-1 heading, too large for a side panel.
  markdown.replace(QRegularExpression(QStringLiteral("^# "), QRegularExpression::MultilineOption),
                   QStringLiteral("#### "));
  explanation_->setMarkdown(markdown);
}

bool RunPanel::is_running() const { return job_->is_running(); }

void RunPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (can_run_ && gpu_probe_ == nullptr) probe_gpus();
}

void RunPanel::probe_gpus() {
  // Asked of the runner, whose LibTorch decides where runs go; gtv itself never loads LibTorch.
  gpu_probe_ = new QProcess(this);
  gpu_note_->setText(tr("Asking %1 how many CUDA GPUs it can use...").arg(runner_path()));
  connect(gpu_probe_, &QProcess::finished, this, [this](int exit_code, QProcess::ExitStatus status) {
    bool ok = false;
    const int gpus = QString::fromUtf8(gpu_probe_->readAllStandardOutput()).trimmed().toInt(&ok);
    if (status != QProcess::NormalExit || exit_code != 0 || !ok) {
      gpu_note_->setText(tr("%1 --gpu-count did not answer (%2); runs may still work.")
                             .arg(runner_path(), QString::fromUtf8(gpu_probe_->readAllStandardError()).trimmed()));
    } else {
      gpu_count_ = gpus;
      check_straggler();
      gpu_note_->setText(gpus > 0 ? tr("%1 CUDA GPU(s) here (as gtv-run's LibTorch sees them).").arg(gpus)
                                  : tr("No CUDA GPU here (gtv-run's LibTorch sees none): runs use the CPU mode (no "
                                       "GPU lanes). The H200 recordings below show what the scenarios do on two "
                                       "GPUs."));
    }
    emit gpus_probed();
  });
  connect(gpu_probe_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart) return;
    gpu_note_->setText(tr("cannot start %1: %2").arg(runner_path(), gpu_probe_->errorString()));
    emit gpus_probed();
  });
  gpu_probe_->start(runner_path(), {QStringLiteral("--gpu-count")});
}

void RunPanel::start_run() {
  if (job_->is_running()) return;
  if (!can_run_) {
    status_->setText(missing_runner_message());
    emit run_failed(missing_runner_message());
    return;
  }
  QString error;
  const auto devices = parse_devices(devices_->text(), &error);
  if (!devices) {
    status_->setText(error);
    emit run_failed(error);
    return;
  }
  if (const QString straggler =
          scenario_runs_as_ranks() ? straggler_error(straggler_->text(), ranks_to_run()) : QString();
      !straggler.isEmpty()) {
    status_->setText(straggler);
    emit run_failed(straggler);
    return;
  }
  exp::RunConfig config;
  config.scenario = scenario_->currentText().toStdString();
  last_scenario_ = scenario_->currentText();
  config.models = models_->value();
  config.hidden = hidden_->value();
  config.batch = batch_->value();
  config.iters = iters_->value();
  config.devices = *devices;
  expected_steps_ = config.models + 3;  // building each model, warm-up, the timed phases
  if (scenario_runs_as_ranks()) {
    config.ranks = ranks_->value();
    expected_steps_ = 2 * std::max(config.ranks, 2);  // each rank started, each rank finished
    if (const auto straggler = exp::parse_straggler_text(straggler_->text().trimmed().toStdString())) {
      config.straggler_rank = straggler->first;
      config.straggler_us = straggler->second;
    }
  }
  steps_seen_ = 0;
  progress_->setRange(0, expected_steps_ * kStepUnits);
  progress_->setValue(0);
  status_->setText(tr("starting %1...").arg(scenario_->currentText()));
  set_running(job_->start(config, data_dir_));
}

void RunPanel::cancel_run() {
  if (!job_->is_running()) return;
  job_->cancel();
  cancel_->setEnabled(false);
  status_->setText(tr("cancelling (ending gtv-run)..."));
}

void RunPanel::on_progress(const QString& line) {
  status_->setText(line);
  // A step begun means the steps before it are done; a loop's report moves the bar inside its step.
  if (const auto loop = iteration_progress(line); loop && steps_seen_ > 0) {
    progress_->setValue((steps_seen_ - 1) * kStepUnits + loop->done * kStepUnits / loop->total);
    emit progress_line(line);
    return;
  }
  ++steps_seen_;
  if (steps_seen_ >= expected_steps_) progress_->setRange(0, (steps_seen_ + 1) * kStepUnits);  // more than guessed
  progress_->setValue((steps_seen_ - 1) * kStepUnits);
  emit progress_line(line);
}

void RunPanel::on_finished(const RunOutcome& outcome) {
  set_running(false);
  last_outcome_ = outcome;
  if (outcome.cancelled) {
    progress_->setValue(0);
    status_->setText(tr("cancelled: nothing saved"));
    emit run_cancelled();
    return;
  }
  progress_->setValue(progress_->maximum());
  if (!outcome.saved_path.isEmpty()) {
    status_->setText(outcome.error.isEmpty()
                         ? tr("saved %1").arg(outcome.saved_path)
                         : tr("saved %1 (the run failed part way: %2)").arg(outcome.saved_path, outcome.error));
    compare_->setEnabled(!recording_of(last_scenario_).isEmpty());
    emit run_saved(outcome.saved_path);
    return;
  }
  status_->setText(tr("run failed: %1").arg(outcome.error));
  emit run_failed(outcome.error);
}

void RunPanel::set_running(bool running) {
  run_->setEnabled(!running && can_run_);
  cancel_->setEnabled(running);
  if (!running) check_straggler();
}

}  // namespace gtv::ui
