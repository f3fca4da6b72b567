#pragma once
// Where each part of an exported figure goes: title line, plot, legend, caption, top to bottom, none over
// another. The plot always gets the height its lanes need: the lanes are the figure and never give way. Where the
// figure would be taller than asked, the legend is set compact (its groups run on in one flow instead of a row
// each); where that is not enough, the figure grows past the height asked, and says so (FigureFit). Plain numbers
// in, boxes out (no Qt), so the geometry is unit tested; export.cpp measures the text and paints into the boxes.
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/model/records.h"

namespace gtv::ui {

struct Box {
  double x = 0, y = 0, w = 0, h = 0;
  [[nodiscard]] double right() const { return x + w; }
  [[nodiscard]] double bottom() const { return y + h; }
  // Open boxes: touching edges do not overlap.
  [[nodiscard]] bool overlaps(const Box& o) const {
    return x < o.right() && o.x < right() && y < o.bottom() && o.y < bottom();
  }
};

struct FigureMetrics {
  double width_px = 1600;
  double max_height_px = 0;   // 0: no limit; else the height asked for (the legend gets compact, else it grows)
  double plot_needed_px = 0;  // the plot's height with every lane shown: the plot gets exactly this
  double title_px = 0;        // 0: no title line
  std::vector<double> legend_item_widths_px;  // in order; an item wider than a row gets a row of its own
  std::vector<bool> legend_item_breaks;       // true: the item starts a new row (a group's title); may be empty
  double legend_item_px = 0;                  // height of one legend row
  double caption_line_px = 0;
  std::size_t caption_lines = 0;
  double margin_px = 12;
  double gap_px = 8;
};

// How the figure met the height asked: it fits as laid out, it fits with a compact legend, or it is taller.
enum class FigureFit : std::uint8_t { Fits, CompactLegend, Grown };

struct FigureLayout {
  Box title, plot, legend, caption;
  std::vector<Box> legend_items;
  double height_px = 0;
  FigureFit fit = FigureFit::Fits;
};

// What a figure of height max_height_px (0: no limit) had to do to keep its lanes whole, in one sentence for the
// user; empty when it fits as laid out.
[[nodiscard]] std::string figure_fit_note(const FigureLayout& layout, double max_height_px);

[[nodiscard]] FigureLayout layout_figure(const FigureMetrics& m);

// Greedy word wrap to width_px with `measure` (the width of a piece of text); a word wider than a line gets a
// line of its own rather than being cut.
[[nodiscard]] std::vector<std::string> wrap_words(std::string_view text, double width_px,
                                                  const std::function<double(std::string_view)>& measure);

// "sequential — 2x NVIDIA H200": the scenario (or file name) and the GPUs of the trace's device table.
[[nodiscard]] std::string figure_title(std::string_view name, const std::vector<DeviceInfo>& devices);
// The same naming only the GPUs that ran work (device indexes in `used`) when fewer did than the table holds:
// "sequential — 1x NVIDIA H200 (1 of the 2 GPUs recorded ran work)".
[[nodiscard]] std::string figure_title(std::string_view name, const std::vector<DeviceInfo>& devices,
                                       const std::set<std::int32_t>& used);

}  // namespace gtv::ui
