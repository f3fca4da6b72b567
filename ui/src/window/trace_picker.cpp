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
  });
}

}  // namespace gtv::ui
