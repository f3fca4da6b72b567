#include "gtv/ui/trace_picker.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace gtv::ui {

TraceChoices::TraceChoices(QStringList titles, int current, int previous)
    : titles_(std::move(titles)), checked_(static_cast<std::size_t>(titles_.size()), false) {
  const int n = count();
  auto valid = [n](int i) { return i >= 0 && i < n; };
  if (!valid(current)) {
    current = n - 1;
    previous = n - 2;
  } else if (!valid(previous) || previous == current) {
    previous = current > 0 ? current - 1 : current + 1;
  }
  for (int i : {current, previous})
    if (valid(i)) checked_[static_cast<std::size_t>(i)] = true;
}

std::vector<int> TraceChoices::chosen() const {
  std::vector<int> out;
  for (int i = 0; i < count(); ++i)
    if (checked(i)) out.push_back(i);
  return out;
}

void TraceChoices::set_readable(int count, int panel_min_px, int height_px) {
  readable_ = count;
  panel_min_px_ = panel_min_px;
  height_px_ = height_px;
}

QString TraceChoices::fit_text() const {
  if (readable_ <= 0) return {};
  const QString runs = readable_ == 1 ? QObject::tr("1 run stays") : QObject::tr("%1 runs stay").arg(readable_);
  if (!beyond_readable())
    return QObject::tr(
               "At this window's height (%1 px) %2 readable: a panel needs %3 px for its header, the time "
               "axes, a GPU and a lane, the GPUs-busy strip and the idle rows.")
        .arg(height_px_)
        .arg(runs)
        .arg(panel_min_px_);
  return QObject::tr(
             "%1 runs checked, but at this window's height (%2 px) %3 readable (a panel needs %4 px): "
             "shorter panels leave out their strips and brackets. Check fewer runs, or give the window "
             "more height first.")
      .arg(chosen().size())
      .arg(height_px_)
      .arg(runs)
      .arg(panel_min_px_);
}

TracePickerDialog::TracePickerDialog(TraceChoices choices, QWidget* parent)
    : QDialog(parent), choices_(std::move(choices)), list_(new QListWidget(this)) {
  setWindowTitle(tr("Compare open traces"));
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("Runs to compare (two or more), stacked in tab order:"), this));
  for (int i = 0; i < choices_.count(); ++i) {
    auto* item = new QListWidgetItem(choices_.title(i), list_);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    item->setCheckState(choices_.checked(i) ? Qt::Checked : Qt::Unchecked);
  }
  layout->addWidget(list_);
  fit_label_ = new QLabel(this);
  fit_label_->setWordWrap(true);
  layout->addWidget(fit_label_);
  update_fit_label();
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  ok_ = buttons->button(QDialogButtonBox::Ok);
  ok_->setText(tr("Compare"));
  ok_->setEnabled(choices_.can_compare());
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(list_, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
    choices_.set_checked(list_->row(item), item->checkState() == Qt::Checked);
    ok_->setEnabled(choices_.can_compare());
    update_fit_label();
  });
}

void TracePickerDialog::update_fit_label() {
  fit_label_->setText(choices_.fit_text());
  fit_label_->setVisible(!fit_label_->text().isEmpty());
  fit_label_->setStyleSheet(choices_.beyond_readable() ? QStringLiteral("color: #9a5b00;") : QString());
}

}  // namespace gtv::ui
