#include "gtv/ui/rank_clock_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <cmath>

namespace gtv::ui {

RankClockDialog::RankClockDialog(const TraceMetadata& metadata, const RankMergeOptions& options, QWidget* parent)
    : QDialog(parent), base_(options) {
  setWindowTitle(tr("Rank clocks"));
  auto* layout = new QVBoxLayout(this);
  auto* now = new QLabel(QString::fromStdString("Now: " + metadata.clock.method + ". " + metadata.clock.basis), this);
  now->setWordWrap(true);
  layout->addWidget(now);
  auto* form = new QFormLayout();
  method_ = new QComboBox(this);
  method_->addItem(tr("wall clock (each rank's own timestamps)"));
  method_->addItem(tr("collectives (matched collectives end together)"));
  method_->setCurrentIndex(options.clock == ClockMethod::Collectives ? 1 : 0);
  form->addRow(tr("Align on"), method_);
  for (const RankInfo& r : metadata.ranks) {
    auto* spin = new QDoubleSpinBox(this);
    spin->setRange(-1e9, 1e9);
    spin->setDecimals(3);
    spin->setSuffix(tr(" us"));
    const auto it = options.manual_shift_ns.find(r.rank);
    spin->setValue(it == options.manual_shift_ns.end() ? 0.0 : static_cast<double>(it->second) / 1e3);
    spin->setToolTip(tr("Added to rank %1's times after the alignment").arg(r.rank));
    form->addRow(tr("Shift rank %1 (%2)").arg(r.rank).arg(QString::fromStdString(r.source)), spin);
    shifts_.emplace_back(r.rank, spin);
  }
  layout->addLayout(form);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
}

RankMergeOptions RankClockDialog::options() const {
  RankMergeOptions out = base_;
  out.clock = method_->currentIndex() == 1 ? ClockMethod::Collectives : ClockMethod::WallClock;
  out.manual_shift_ns.clear();
  for (const auto& [rank, spin] : shifts_)
    if (const double us = spin->value(); us != 0.0) out.manual_shift_ns[rank] = std::llround(us * 1e3);
  return out;
}

}  // namespace gtv::ui
