#pragma once
// The colours of the whole application, not only of the plots: in the dark theme Qt's Fusion style with a dark
// palette (menus, tabs, side panels, the run panel, compare headers), and back to the style and palette the
// application started with in the light one.
#include <QPalette>

namespace gtv::ui {

// Dark window colours around dark_theme()'s plot (theme.h): its text colour, greys either side of its own.
[[nodiscard]] QPalette dark_app_palette();
// Applies to the running QApplication. The first call remembers the starting style and palette, which light
// (dark == false) restores exactly.
void apply_app_palette(bool dark);

}  // namespace gtv::ui
