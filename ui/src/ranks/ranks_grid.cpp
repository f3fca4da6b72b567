#include "gtv/ui/ranks_grid.h"

#include <algorithm>
#include <array>
#include <numeric>

#include "gtv/base/time.h"

namespace gtv::ui {
namespace {

std::uint32_t mix(std::uint32_t a, std::uint32_t b, std::uint32_t t256) {
  std::uint32_t out = 0xff000000;
  for (int shift = 0; shift < 24; shift += 8) {
    const std::uint32_t ca = (a >> shift) & 0xff, cb = (b >> shift) & 0xff;
    out |= ((ca * (256 - t256) + cb * t256) >> 8) << shift;
  }
  return out;
}

// The straggler is the rank the report's headline names: the one the others waited for longest, when it is the one
// they waited for at more than half the collectives where anyone waited (analysis/stragglers.h). -1: none.
std::int64_t straggler_row(const analysis::Stragglers& stragglers) {
  const std::size_t n = stragglers.ranks.size();
  if (stragglers.per_rank.empty() || stragglers.per_rank.size() != n) return -1;
  std::size_t top = 0;
  for (std::size_t r = 1; r < n; ++r)
    if (stragglers.per_rank[r].caused_ns > stragglers.per_rank[top].caused_ns) top = r;
  const auto waited_at = static_cast<std::size_t>(
      std::count_if(stragglers.collectives.begin(), stragglers.collectives.end(),
                    [](const analysis::CollectiveArrivals& k) { return k.analysed && k.wait_caused_ns > 0; }));
  return waited_at > 0 && stragglers.per_rank[top].arrived_last * 2 > waited_at ? static_cast<std::int64_t>(top) : -1;
}

RanksGrid empty_grid(const analysis::Stragglers& stragglers, RanksColumns columns, std::size_t column_count) {
  RanksGrid g;
  g.columns = columns;
  g.ranks = stragglers.ranks;
  g.rank_count = g.ranks.size();
  g.column_count = column_count;
  const std::size_t cells = g.rank_count * g.column_count;
  g.caused_ns.assign(cells, 0);
  g.waited_ns.assign(cells, 0);
  g.bound.assign(g.column_count, -1);
  g.row_caused_ns.assign(g.rank_count, 0);
  g.row_waited_ns.assign(g.rank_count, 0);
  g.row_bound_count.assign(g.rank_count, 0);
  g.straggler = straggler_row(stragglers);
  return g;
}

// Adds collective k's waits to column c.
void add_collective(RanksGrid& g, const analysis::CollectiveArrivals& k, std::size_t c) {
  for (std::size_t r = 0; r < g.rank_count && r < k.wait_ns.size(); ++r) {
    TimeNs& cell = g.waited_ns[r * g.column_count + c];
    cell = saturating_add(cell, k.wait_ns[r]);
  }
  if (k.culprit < 0 || static_cast<std::size_t>(k.culprit) >= g.rank_count) return;
  TimeNs& cell = g.caused_ns[static_cast<std::size_t>(k.culprit) * g.column_count + c];
  cell = saturating_add(cell, k.wait_caused_ns);
}

// The rows' totals over every matched collective, whatever the columns: the order by lateness is the same with a
// column per collective and per step (a collective outside every step still counts).
void finish_grid(RanksGrid& g, const analysis::Stragglers& stragglers) {
  for (const analysis::CollectiveArrivals& k : stragglers.collectives) {
    for (std::size_t r = 0; r < g.rank_count && r < k.wait_ns.size(); ++r)
      g.row_waited_ns[r] = saturating_add(g.row_waited_ns[r], k.wait_ns[r]);
    if (k.culprit >= 0 && static_cast<std::size_t>(k.culprit) < g.rank_count)
      g.row_caused_ns[static_cast<std::size_t>(k.culprit)] =
          saturating_add(g.row_caused_ns[static_cast<std::size_t>(k.culprit)], k.wait_caused_ns);
  }
  g.max_caused_ns = g.caused_ns.empty() ? 0 : *std::max_element(g.caused_ns.begin(), g.caused_ns.end());
  g.max_waited_ns = g.waited_ns.empty() ? 0 : *std::max_element(g.waited_ns.begin(), g.waited_ns.end());
  for (const std::int64_t row : g.bound)
    if (row >= 0) ++g.row_bound_count[static_cast<std::size_t>(row)];
}

}  // namespace

RanksGrid make_ranks_grid(const analysis::Stragglers& stragglers) {
  RanksGrid g = empty_grid(stragglers, RanksColumns::Collectives, stragglers.collectives.size());
  for (std::size_t c = 0; c < g.column_count; ++c) {
    const analysis::CollectiveArrivals& k = stragglers.collectives[c];
    add_collective(g, k, c);
    if (k.culprit >= 0 && static_cast<std::size_t>(k.culprit) < g.rank_count) g.bound[c] = k.culprit;
  }
  finish_grid(g, stragglers);
  return g;
}

RanksGrid make_step_grid(const analysis::Stragglers& stragglers, const ranks::StepPaths& paths) {
  RanksGrid g = empty_grid(stragglers, RanksColumns::Steps, paths.steps.size());
  for (std::size_t c = 0; c < g.column_count; ++c) {
    const ranks::StepPath& step = paths.steps[c];
    for (const std::size_t k : step.collectives)
      if (k < stragglers.collectives.size()) add_collective(g, stragglers.collectives[k], c);
    const auto row = std::lower_bound(g.ranks.begin(), g.ranks.end(), step.bounding_rank);
    if (step.bounding_rank >= 0 && row != g.ranks.end() && *row == step.bounding_rank)
      g.bound[c] = static_cast<std::int64_t>(row - g.ranks.begin());
  }
  finish_grid(g, stragglers);
  return g;
}

std::vector<std::size_t> row_order(const RanksGrid& grid, bool by_lateness) {
  std::vector<std::size_t> order(grid.rank_count);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (by_lateness)
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (grid.row_caused_ns[a] != grid.row_caused_ns[b]) return grid.row_caused_ns[a] > grid.row_caused_ns[b];
      if (grid.row_bound_count[a] != grid.row_bound_count[b]) return grid.row_bound_count[a] > grid.row_bound_count[b];
      return grid.row_waited_ns[a] < grid.row_waited_ns[b];  // a rank that arrives later waits less
    });
  return order;
}

void render_cells(const RanksGrid& grid, RanksColour colour, const std::vector<std::size_t>& order,
                  std::size_t first_column, std::size_t end_column, int width_px, int height_px, TimeNs max_ns,
                  const CellColours& colours, std::uint32_t* pixels) {
  if (width_px <= 0 || height_px <= 0) return;
  const auto width = static_cast<std::size_t>(width_px);
  const auto height = static_cast<std::size_t>(height_px);
  end_column = std::min(end_column, grid.column_count);
  const std::size_t columns = end_column > first_column ? end_column - first_column : 0;
  const std::size_t rows = order.size();
  if (columns == 0 || rows == 0) {
    std::fill(pixels, pixels + width * height, colours.empty);
    return;
  }
  const std::vector<TimeNs>& values = colour == RanksColour::Caused ? grid.caused_ns : grid.waited_ns;
  const bool mark_bound = RanksGrid::marks_bound(colour);
  // Pixel column x covers the columns [x_first[x], x_first[x + 1]) (at least one).
  std::vector<std::size_t> x_first(width + 1);
  for (std::size_t x = 0; x <= width; ++x) x_first[x] = first_column + x * columns / width;
  std::vector<TimeNs> column_max(columns);
  std::vector<std::uint8_t> column_bound(columns);
  // The colour of each of 257 steps from empty to full, looked up per pixel.
  std::array<std::uint32_t, 257> ramp{};
  for (std::uint32_t t = 0; t <= 256; ++t) ramp[t] = mix(colours.empty, colours.full, t);
  const double scale = max_ns > 0 ? 256.0 / static_cast<double>(max_ns) : 0.0;
  auto shade = [&](TimeNs v) {
    if (v <= 0) return ramp[0];
    // Any wait at all shows: the faintest non-zero cell is an eighth of the way to full.
    const double t = std::min(256.0, static_cast<double>(v) * scale);
    return ramp[static_cast<std::uint32_t>(std::max(32.0, t))];
  };
  std::size_t previous_r0 = rows, previous_r1 = rows;
  for (std::size_t y = 0; y < height; ++y) {
    std::uint32_t* line = pixels + y * width;
    std::size_t r0 = y * rows / height;
    const std::size_t r1 = std::max(r0 + 1, (y + 1) * rows / height);
    if (r0 == previous_r0 && r1 == previous_r1) {  // a row taller than a pixel: the line above again
      std::copy(line - width, line, line);
      continue;
    }
    previous_r0 = r0;
    previous_r1 = r1;
    std::fill(column_max.begin(), column_max.end(), 0);
    std::fill(column_bound.begin(), column_bound.end(), 0);
    for (; r0 < r1; ++r0) {
      const std::size_t row = order[r0];
      const TimeNs* cell = values.data() + row * grid.column_count + first_column;
      for (std::size_t c = 0; c < columns; ++c) column_max[c] = std::max(column_max[c], cell[c]);
      if (mark_bound)
        for (std::size_t c = 0; c < columns; ++c)
          column_bound[c] |= static_cast<std::uint8_t>(grid.bound[first_column + c] == static_cast<std::int64_t>(row));
    }
    for (std::size_t x = 0; x < width; ++x) {
      const std::size_t c0 = x_first[x] - first_column;
      const std::size_t c1 = std::max(c0 + 1, x_first[x + 1] - first_column);
      TimeNs v = column_max[c0];
      bool bound = column_bound[c0] != 0;
      for (std::size_t c = c0 + 1; c < c1; ++c) {
        v = std::max(v, column_max[c]);
        bound = bound || column_bound[c] != 0;
      }
      line[x] = bound ? colours.bound : shade(v);
    }
  }
}

}  // namespace gtv::ui
