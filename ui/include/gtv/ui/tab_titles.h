#pragma once
// Tab titles that tell files apart: the file name, and where two open files share it, the shortest run of parent
// folders that distinguishes them ("warmup.json.gz — h200x2", "warmup.json.gz — Downloads"). Pure string work, so
// it is unit tested without widgets.
#include <string>
#include <vector>

namespace gtv::ui {

// One title per path, in order. Paths are '/'-separated; the same path opened again gets "(2)", "(3)", ...
[[nodiscard]] std::vector<std::string> distinct_tab_titles(const std::vector<std::string>& paths);

}  // namespace gtv::ui
