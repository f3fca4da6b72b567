#include "gtv/ui/whatif_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTabWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "gtv/ui/main_window.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_tab.h"
#include "gtv/whatif/predicted_run.h"

namespace gtv::ui {
namespace {

// What each change does, as the dialog offers it.
QString description(whatif::ChangeKind kind) { return QObject::tr(whatif::info(kind).words.data()); }

// "placement=", "no-sync=": a parameter's field label, as the change is spelled.
QString spelling(whatif::ChangeKind kind) {
  const std::string_view text = whatif::info(kind).spelling;
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())) + QLatin1Char('=');
}

}  // namespace

WhatIfDialog::WhatIfDialog(std::shared_ptr<const Trace> trace, std::shared_ptr<const DocumentAnalysis> analysis,
                           QString path, QWidget* parent)
    : QDialog(parent),
      trace_(std::move(trace)),
      analysis_(std::move(analysis)),
      analysed_(analysis_ ? analysis_->analysed : std::make_shared<const analysis::AnalysedTrace>(trace_)),
      path_(std::move(path)),
      status_(new QLabel(this)),
      offered_box_(new QVBoxLayout),
      refused_(new QLabel(tr("<b>Do not apply here:</b>"), this)),
      refused_box_(new QVBoxLayout),
      placement_(new QLineEdit(this)),
      no_sync_(new QLineEdit(this)),
      error_(new QLabel(this)),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)) {
  setWindowTitle(tr("What if..."));
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("Predict what a change to the program would do to this recording, from its "
                                  "happens-before graph, without running it."),
                               this));
  status_->setText(tr("Trying each change on this trace..."));
  layout->addWidget(status_);
  layout->addLayout(offered_box_);
  refused_->setTextFormat(Qt::RichText);
  refused_->setVisible(false);
  layout->addWidget(refused_);
  layout->addLayout(refused_box_);
  auto* form = new QFormLayout;
  placement_->setPlaceholderText(tr("GPU per model, e.g. 0,1,0 (empty: keep)"));
  no_sync_->setPlaceholderText(tr("a call name, e.g. cudaDeviceSynchronize (empty: none)"));
  form->addRow(spelling(whatif::ChangeKind::Placement), placement_);
  form->addRow(spelling(whatif::ChangeKind::NoSync), no_sync_);
  layout->addLayout(form);
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: #b00020;"));
  error_->setVisible(false);
  layout->addWidget(error_);
  buttons_->button(QDialogButtonBox::Ok)->setText(tr("Predict"));
  layout->addWidget(buttons_);
  connect(buttons_, &QDialogButtonBox::accepted, this, &WhatIfDialog::predict);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(&checks_, &QFutureWatcher<std::vector<ChangeCheck>>::finished, this,
          [this] { on_checked(checks_.result()); });
  connect(&prediction_, &QFutureWatcher<WhatIfRun>::finished, this, &WhatIfDialog::on_predicted);
  checks_.setFuture(QtConcurrent::run([analysed = analysed_] { return check_changes(*analysed); }));
}

WhatIfDialog::~WhatIfDialog() {
  checks_.waitForFinished();
  prediction_.waitForFinished();
}

void WhatIfDialog::wait_for_checks() {
  checks_.waitForFinished();
  if (boxes_.empty() && refused_lines_.isEmpty() && checks_.future().isValid() && checks_.isFinished())
    on_checked(checks_.result());
}

void WhatIfDialog::on_checked(const std::vector<ChangeCheck>& checks) {
  if (!boxes_.empty() || !refused_lines_.isEmpty()) return;  // shown already (wait_for_checks)
  int applying = 0;
  for (const ChangeCheck& c : checks) {
    const QString name = QString::fromStdString(c.change.text());
    if (!c.applies) {
      refused_lines_ << name + QStringLiteral(": ") + c.reason;
      continue;
    }
    ++applying;
    auto* box = new QCheckBox(
        tr("%1 — %2 (alone: %3 predicted)").arg(name, description(c.change.kind), whatif_ms(c.predicted_ns)), this);
    offered_box_->addWidget(box);
    boxes_.emplace_back(c.change, box);
  }
  status_->setText(applying > 0 ? tr("Changes that apply to this trace:")
                                : tr("None of the changes without a parameter applies to this trace."));
  refused_->setVisible(!refused_lines_.isEmpty());
  // A label a line: one rich-text list in a word-wrapped label is cut short when its lines wrap.
  for (const QString& line : refused_lines_) {
    auto* label = new QLabel(QStringLiteral("\u2022 ") + line, this);
    label->setWordWrap(true);
    label->setContentsMargins(12, 0, 0, 0);
    refused_box_->addWidget(label);
  }
}

QStringList WhatIfDialog::offered() const {
  QStringList out;
  for (const auto& [change, box] : boxes_) out << QString::fromStdString(change.text());
  return out;
}

QStringList WhatIfDialog::refused() const { return refused_lines_; }

void WhatIfDialog::set_checked(const QString& change, bool checked) {
  for (const auto& [c, box] : boxes_)
    if (QString::fromStdString(c.text()) == change) box->setChecked(checked);
}

Expected<std::vector<whatif::Change>> WhatIfDialog::chosen() const {
  std::vector<whatif::Change> out;
  const QString placement = placement_->text().trimmed();
  if (!placement.isEmpty()) {
    Expected<whatif::Change> c =
        whatif::parse_change((spelling(whatif::ChangeKind::Placement) + placement).toStdString());
    if (!c) return c.error();
    out.push_back(std::move(c).value());
  }
  for (const auto& [change, box] : boxes_)
    if (box->isChecked()) out.push_back(change);
  const QString no_sync = no_sync_->text().trimmed();
  if (!no_sync.isEmpty()) {
    Expected<whatif::Change> c = whatif::parse_change((spelling(whatif::ChangeKind::NoSync) + no_sync).toStdString());
    if (!c) return c.error();
    out.push_back(std::move(c).value());
  }
  if (out.empty()) return Error{"choose a change (a box, placement= or no-sync=)"};
  if (Expected<Ok> ok = whatif::check_compatible(out); !ok) return ok.error();
  return out;
}

void WhatIfDialog::show_error(const QString& text) {
  error_->setText(text);
  error_->setVisible(!text.isEmpty());
}

QString WhatIfDialog::error() const { return error_->isHidden() ? QString() : error_->text(); }

void WhatIfDialog::predict() {
  if (prediction_.isRunning()) return;
  Expected<std::vector<whatif::Change>> changes = chosen();
  if (!changes) {
    show_error(QString::fromStdString(changes.error().message));
    return;
  }
  show_error({});
  status_->setText(tr("Predicting %1...").arg(QString::fromStdString(whatif::changes_text(*changes))));
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(false);
  pending_ = true;
  prediction_.setFuture(QtConcurrent::run([trace = trace_, analysis = analysis_, analysed = analysed_, path = path_,
                                           c = std::move(changes).value()]() mutable {
    // Without the document's analysis, the checks' analysed trace gets one: its graph is not built again.
    if (!analysis) analysis = std::make_shared<const DocumentAnalysis>(analyse_document(std::move(analysed)));
    return compute_whatif(std::move(trace), std::move(analysis), path, std::move(c));
  }));
}

void WhatIfDialog::wait_for_prediction() {
  if (!prediction_.future().isValid()) return;
  prediction_.waitForFinished();
  if (pending_) on_predicted();  // the watcher's finished signal has not been delivered yet
}

void WhatIfDialog::on_predicted() {
  if (!pending_) return;  // handled already (wait_for_prediction)
  pending_ = false;
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(true);
  WhatIfRun run = prediction_.result();
  if (!run.ok()) {
    status_->setText(tr("Changes that apply to this trace:"));
    show_error(run.error);
    return;
  }
  run_ = std::move(run);
  accept();
}

WhatIfView* open_whatif_view(MainWindow* window, WhatIfRun run) {
  auto* view = new WhatIfView;
  view->set_theme(window->theme());
  const QString title = QObject::tr("what if: %1").arg(QString::fromStdString(whatif::changes_text(run.changes)));
  const QString tooltip = QObject::tr("%1, predicted with %2")
                              .arg(run.recorded_label, QString::fromStdString(whatif::changes_text(run.changes)));
  view->set_run(std::move(run));
  const int index = window->tabs()->addTab(view, title);
  window->tabs()->setTabToolTip(index, tooltip);
  window->tabs()->setCurrentIndex(index);
  return view;
}

WhatIfView* open_whatif(MainWindow* window) {
  TraceTab* tab = window->current_tab();
  if (tab == nullptr || !tab->document()->trace()) {
    QMessageBox::information(window, QObject::tr("What if"),
                             QObject::tr("Open a recording first; What if predicts changes to it."));
    return nullptr;
  }
  WhatIfDialog dialog(tab->document()->trace(), tab->document()->analysis(), tab->document()->path(), window);
  if (dialog.exec() != QDialog::Accepted) return nullptr;
  return open_whatif_view(window, dialog.take_run());
}

}  // namespace gtv::ui
