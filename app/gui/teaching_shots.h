#pragma once
// Headless pictures of the compare, classroom and window views for docs/screenshots (no display needed):
// Each takes --dark for the dark theme over the whole picture.
//   gtv --compare-shot OUT.png [--size WxH] TRACE_A TRACE_B [...]   runs stacked and aligned
//   gtv --classroom-shot OUT.png [--size WxH] [--cursor F] [--reveal] TRACE
//                                                                  classroom mode, cursor at fraction F (0..1)
//   gtv --classroom-shot OUT.png [--size WxH] --exercise NAME [--step question|prediction|reveal] [--choice N]
//                                                                  a classroom exercise at one step
//   gtv --run-panel-shot OUT.png [--size WxH] [TRACE]               the main window with the run panel
#include <QStringList>
#include <optional>

namespace gtv::app {

// True when argv asks for one of these pictures (the caller then picks the offscreen platform).
[[nodiscard]] bool wants_teaching_shot(int argc, char** argv);
// Makes the picture and returns the exit code; nullopt when the arguments ask for none of these modes.
[[nodiscard]] std::optional<int> run_teaching_shot(const QStringList& arguments);

}  // namespace gtv::app
