#pragma once
// Colours and sizes of the timeline that depend on the theme (light, dark) and the presentation font scale.
#include <QColor>
#include <QFont>

namespace gtv::ui {

struct Theme {
  bool dark = false;
  double font_scale = 1.0;  // presentation mode: 1.5 or 2 on a projector
  QColor background{0xff, 0xff, 0xff};
  QColor text{0x20, 0x20, 0x20};
  QColor header_background{0xee, 0xf0, 0xf3};
  QColor group_background{0xdd, 0xe2, 0xea};
  QColor lane_stripe{0xf7, 0xf8, 0xfa};
  QColor grid{0xdd, 0xdd, 0xdd};
  QColor selection{0x00, 0x00, 0x00};
  QColor search_match{0xff, 0xd0, 0x00};
  QColor flow{0xd0, 0x20, 0x70};
  QColor dependency{0x00, 0x80, 0x70};  // dependency links (a synchronization's wait), drawn dashed
  QColor measure{0x10, 0x70, 0xd0};

  [[nodiscard]] QFont font(double points = 9, bool bold = false) const;
  [[nodiscard]] double depth_px() const { return 18 * font_scale; }
  [[nodiscard]] double header_px() const { return 22 * font_scale; }
};

[[nodiscard]] Theme light_theme(double font_scale = 1.0);
[[nodiscard]] Theme dark_theme(double font_scale = 1.0);

}  // namespace gtv::ui
