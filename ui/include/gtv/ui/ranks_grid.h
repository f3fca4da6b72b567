#pragma once
// The ranks overview's content, without Qt: one row per rank and one column per matched collective or per step, each
// cell two numbers from the reduced report (gtv/analysis/stragglers.h, gtv/ranks/step_paths.h): how long the others
// waited for this rank (at a collective: the sum of their waits when it was the rank they waited for, else 0; in a
// step: that, summed over the step's collectives), and how long this rank waited (summed likewise).
// Drawn by aggregating cells per pixel (render_cells), never one item per cell: a pixel covering several cells shows
// the largest value among them, so a long wait never averages away.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gtv/analysis/stragglers.h"
#include "gtv/ranks/step_paths.h"

namespace gtv::ui {

enum class RanksColour {
  Caused,  // how long the others waited for this rank
  Waited,  // how long this rank waited for the others
};

enum class RanksColumns {
  Collectives,  // one column per matched collective
  Steps,        // one column per step of the critical path across ranks (ranks::StepPaths)
};

struct RanksGrid {
  RanksColumns columns = RanksColumns::Collectives;
  std::size_t rank_count = 0;
  std::size_t column_count = 0;
  std::vector<std::int64_t> ranks;  // rank numbers, per row index (Stragglers::ranks)
  std::vector<TimeNs> caused_ns;    // [row * column_count + column]
  std::vector<TimeNs> waited_ns;    // [row * column_count + column]
  // Per column, the bounding rank's row (-1: none): at a collective the rank the others waited for; in a step the
  // rank with the most work on the step's critical path across ranks (StepPath::bounding_rank).
  std::vector<std::int64_t> bound;
  std::vector<TimeNs> row_caused_ns;         // per row: the others' wait for it over all matched collectives
  std::vector<TimeNs> row_waited_ns;         // per row: its own wait over all matched collectives
  std::vector<std::size_t> row_bound_count;  // per row: columns it bounded
  std::int64_t straggler = -1;               // the row the report names as the straggler; -1 when it names none
  TimeNs max_caused_ns = 0;
  TimeNs max_waited_ns = 0;

  [[nodiscard]] TimeNs value_ns(RanksColour colour, std::size_t row, std::size_t column) const {
    return (colour == RanksColour::Caused ? caused_ns : waited_ns)[row * column_count + column];
  }
  [[nodiscard]] TimeNs max_ns(RanksColour colour) const {
    return colour == RanksColour::Caused ? max_caused_ns : max_waited_ns;
  }
  // Whether the bounding rank's cells are drawn in the bound colour: in Waited mode. In Caused mode the cells keep
  // their values: a collective's bounding rank is the only one with any, and a step's is nearly always the one the
  // others waited for most (the tooltip names it).
  [[nodiscard]] static bool marks_bound(RanksColour colour) { return colour == RanksColour::Waited; }
};

[[nodiscard]] RanksGrid make_ranks_grid(const analysis::Stragglers& stragglers);
// One column per step of paths (the report's critical path across ranks): a step's cells sum the step's collectives'
// (StepPath::collectives); bound is the step's bounding rank. The straggler is the report's, as make_ranks_grid's.
[[nodiscard]] RanksGrid make_step_grid(const analysis::Stragglers& stragglers, const ranks::StepPaths& paths);

// Row indexes top to bottom: by rank number, or by lateness (the others' wait for the rank over the run, the
// longest first; then the columns it bounded; then its own wait, the shortest first: it arrived later).
[[nodiscard]] std::vector<std::size_t> row_order(const RanksGrid& grid, bool by_lateness);

// The cells [first_column, end_column) of every row, in order, drawn into width_px x height_px ARGB32 pixels
// (row-major, stride width_px): each pixel takes the largest value of the cells it covers, coloured from empty
// (0) to full (at max_ns and above); a pixel covering the bounding rank of a column takes bound where the grid marks
// it (RanksGrid::marks_bound).
struct CellColours {
  std::uint32_t empty = 0xffffffff;
  std::uint32_t full = 0xff000000;
  std::uint32_t bound = 0xffff8000;
};
void render_cells(const RanksGrid& grid, RanksColour colour, const std::vector<std::size_t>& order,
                  std::size_t first_column, std::size_t end_column, int width_px, int height_px, TimeNs max_ns,
                  const CellColours& colours, std::uint32_t* pixels);

}  // namespace gtv::ui
