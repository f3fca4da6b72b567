#include "gtv/ui/theme.h"

namespace gtv::ui {

QFont Theme::font(double points, bool bold) const {
  QFont f;
  f.setPointSizeF(points * font_scale);
  f.setBold(bold);
  return f;
}

Theme light_theme(double font_scale) {
  Theme t;
  t.font_scale = font_scale;
  return t;
}

Theme dark_theme(double font_scale) {
  Theme t;
  t.dark = true;
  t.font_scale = font_scale;
  t.background = QColor(0x1e, 0x1f, 0x22);
  t.text = QColor(0xe0, 0xe0, 0xe0);
  t.header_background = QColor(0x2b, 0x2d, 0x31);
  t.group_background = QColor(0x38, 0x3b, 0x42);
  t.lane_stripe = QColor(0x25, 0x26, 0x2a);
  t.grid = QColor(0x40, 0x40, 0x40);
  t.selection = QColor(0xff, 0xff, 0xff);
  t.flow = QColor(0xff, 0x60, 0xb0);
  t.dependency = QColor(0x40, 0xd0, 0xb0);
  t.measure = QColor(0x60, 0xb0, 0xff);
  return t;
}

}  // namespace gtv::ui
