#pragma once
// One named colour of a legend, and a titled group of them: what legend.h lists for the whole timeline and what a
// TimelineRow names for its own colours (timeline_row.h), kept apart so either can include it.
#include <string>
#include <vector>

#include "gtv/ui/color_roles.h"

namespace gtv::ui {

struct LegendEntry {
  Rgb color = 0;
  std::string label;
  bool hatched = false;  // drawn hatched over the colour (the lanes' merged blocks)
  friend bool operator==(const LegendEntry&, const LegendEntry&) = default;
};

struct LegendGroup {
  std::string title;
  std::vector<LegendEntry> entries;
};

}  // namespace gtv::ui
