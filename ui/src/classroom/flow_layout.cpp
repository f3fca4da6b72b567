#include "gtv/ui/flow_layout.h"

#include <QWidget>
#include <algorithm>

namespace gtv::ui {

FlowLayout::FlowLayout(QWidget* parent, int spacing_px) : QLayout(parent), spacing_px_(spacing_px) {}

FlowLayout::~FlowLayout() {
  while (QLayoutItem* item = takeAt(0)) delete item;
}

void FlowLayout::addItem(QLayoutItem* item) { items_.append(item); }

int FlowLayout::count() const { return static_cast<int>(items_.size()); }

QLayoutItem* FlowLayout::itemAt(int index) const { return index >= 0 && index < count() ? items_.at(index) : nullptr; }

QLayoutItem* FlowLayout::takeAt(int index) { return index >= 0 && index < count() ? items_.takeAt(index) : nullptr; }

Qt::Orientations FlowLayout::expandingDirections() const { return {}; }

bool FlowLayout::hasHeightForWidth() const { return true; }

int FlowLayout::heightForWidth(int width) const { return arrange(QRect(0, 0, width, 0), false); }

void FlowLayout::setGeometry(const QRect& rect) {
  QLayout::setGeometry(rect);
  arrange(rect, true);
}

QSize FlowLayout::sizeHint() const { return minimumSize(); }

// As wide as the widest item: any wider and it wraps.
QSize FlowLayout::minimumSize() const {
  QSize size;
  for (const QLayoutItem* item : items_) size = size.expandedTo(item->minimumSize());
  const QMargins m = contentsMargins();
  return size + QSize(m.left() + m.right(), m.top() + m.bottom());
}

int FlowLayout::arrange(const QRect& rect, bool place) const {
  const QMargins m = contentsMargins();
  const QRect area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom());
  int x = area.x(), y = area.y(), row_h = 0;
  for (QLayoutItem* item : items_) {
    if (item->widget() != nullptr && item->widget()->isHidden()) continue;
    const QSize hint = item->sizeHint();
    const int w = std::min(hint.width(), area.width());
    if (x > area.x() && x + w > area.right() + 1) {
      x = area.x();
      y += row_h + spacing_px_;
      row_h = 0;
    }
    if (place) item->setGeometry(QRect(QPoint(x, y), QSize(w, hint.height())));
    x += w + spacing_px_;
    row_h = std::max(row_h, hint.height());
  }
  return y + row_h - rect.y() + m.bottom();
}

}  // namespace gtv::ui
