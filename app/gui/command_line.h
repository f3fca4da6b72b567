#pragma once
// gtv's command line: `gtv [TRACE...]` opens the traces in tabs (`gtv --ranks A B ...`: as one run of ranks); `gtv
// --export OUT [--range T0:T1]
// [--size WxH] [--label-width PRESET] [--scale F] [--dark] [--font-scale F] TRACE` renders one figure (title,
// timeline, legend, caption; text sized for the width, no window affordances) with no window; `gtv --export OUT
// FOLDER|SUMMARY...` the ranks overview of a reduced run; --help lists every
// headless mode, teaching_shots.cpp's too.
#include <QStringList>
#include <optional>
#include <utility>

#include "gtv/model/rank_merge.h"
#include "gtv/ui/export.h"

namespace gtv::ui {
class RanksOverview;
}

namespace gtv::app {

// The trace shown when gtv starts with no argument: recorded on two H200s, embedded in the binary.
inline constexpr const char* kBundledTrace = ":/traces/default.json.gz";

struct CommandLine {
  QStringList traces;
  bool ranks = false;  // --ranks: the traces are the rank files of one run, opened as one trace
  // The traces are a reduced run (folders of .gtvsum summaries, or the summaries): --export draws its ranks overview.
  bool summaries = false;
  bool ranks_waited = true;     // --ranks-colour: each rank's own waits (waited, the default) or the others' (caused)
  bool ranks_lateness = false;  // --ranks-order lateness: the overview's rows by lateness
  bool ranks_collectives_clock = false;  // --ranks-clock collectives: clocks aligned as reduce --clock collectives
  bool ranks_steps = false;              // --ranks-columns steps: the overview's columns are steps, not collectives
  std::optional<ui::ExportOptions> export_options;
  QStringList whatif;    // --whatif CHANGE (repeatable) with --export: the What if figure of these changes
  bool compare = false;  // --compare with --export: the compare figure of the traces
  QString window_shot;   // --window-shot: picture of the whole window (docs), then exit
  QString side_tab;      // --side-tab: which side panel the shot shows (details, summary, kernels, legend)
  bool dark = false;
  bool classroom = false;  // --classroom: the trace opens in classroom mode
  QString exercise;        // --exercise NAME: a classroom exercise opens
  double font_scale = 1.0;
  std::optional<std::pair<int, int>> window_size;  // --size for the shots: the window's width and height
};

// The clock options of a reduced run's overview (--ranks-clock).
[[nodiscard]] RankMergeOptions ranks_options(const CommandLine& command_line);
// Gives the overview the view the command line asks for (--ranks-colour, --ranks-order, --ranks-columns) once its run
// is reduced; nothing for null.
void apply_ranks_view(ui::RanksOverview* overview, const CommandLine& command_line);
// True when argv asks for --export: the caller then picks the offscreen platform before QApplication exists.
[[nodiscard]] bool wants_export(int argc, char** argv);
// Parses QCoreApplication::arguments(); errors are one line.
[[nodiscard]] Expected<CommandLine> parse_command_line(const QStringList& arguments);
// Loads the trace and writes the image (with --whatif, the What if view's panels: whatif_export.cpp); returns the
// process exit code, printing errors to stderr.
[[nodiscard]] int run_export(const CommandLine& command_line);
// Opens the traces in a window, waits for them to load, and saves a picture of the window.
[[nodiscard]] int run_window_shot(const CommandLine& command_line);
// The What if view of the trace for command_line.whatif, written to the export path (recorded, predicted and, where
// one is bundled, the recording of the variant); exit 1 with the one-line reason when a change does not apply.
[[nodiscard]] int run_whatif_export(const CommandLine& command_line);
// The compare figure of the traces (two or more), aligned as the compare view aligns them.
[[nodiscard]] int run_compare_export(const CommandLine& command_line);

}  // namespace gtv::app
