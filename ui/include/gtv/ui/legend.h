#pragma once
// What every colour on the timeline means, as plain values (no Qt), so the window's Legend tab and an exported
// figure's legend come from one list: event kinds, kernels, the GPUs-busy strip, warm-up, idle causes, the rows
// beside the lanes (each names its own colours: TimelineRow::legend) and measurement brackets. The overlay colours
// live here so the drawing code and the legend cannot disagree.
#include <cstddef>
#include <string>
#include <vector>

#include "gtv/ui/document_analysis.h"
#include "gtv/ui/legend_entry.h"
#include "gtv/ui/palette.h"

namespace gtv::ui {

// Warm-up spans: this colour at kWarmupAlpha over the lanes.
inline constexpr Rgb kWarmupRgb = 0xff9900;
inline constexpr int kWarmupAlpha = 46;
// The warm-up labels' text on the plot's background: a burnt orange, lightened or darkened to read (readable_on).
[[nodiscard]] Rgb warmup_text_color(Rgb background);
// GPUs-busy strip: one GPU busy, two or more busy (where the GPUs overlap).
inline constexpr Rgb kBusyOneRgb = role_color(ColorRole::BusyOne);
inline constexpr Rgb kBusyManyRgb = role_color(ColorRole::BusyMany);  // darker than one GPU busy
// A figure's legend swatch for merged blocks (hatched over it): the lanes draw them in their events' colour.
inline constexpr Rgb kMergedBlockRgb = 0x9aa0a6;
// Measurement brackets by Bracket::method: stopwatch, stopwatch+sync, cuda-events, then truth / other (grey).
inline constexpr int kBracketColorCount = 4;
[[nodiscard]] Rgb bracket_color(int method);
// A bracket's label text on the plot's background: its colour, lightened or darkened to read (readable_on).
[[nodiscard]] Rgb bracket_text_color(int method, Rgb background);
// `color` at `alpha` (0..255) over `background`: what a translucent fill looks like on the page.
[[nodiscard]] Rgb blend_over(Rgb color, int alpha, Rgb background);

struct LegendOptions {
  // Everything: every colour the timeline can use (the Legend tab); the causes, methods and levels that occur in
  // this trace come first. Present: only what occurs in this trace (an exported figure).
  bool only_present = false;
  std::size_t kernel_count = 12;  // the kernels that take the most GPU time
  Rgb background = 0xffffff;      // the plot's background, for translucent fills
  Rgb strip_background = 0xeef0f3;
  ColorMode color_mode = ColorMode::KernelName;  // what the timeline colours GPU work by: the legend says the same
};

// The groups in order, those with no entry left out. The rows' groups come from make_timeline_rows(trace,
// analysis.overlays) in row order; groups of one title (the communication rows of several GPUs, the collective rows
// of several ranks) are one group with the entries of all, each once, in the order first named.
[[nodiscard]] std::vector<LegendGroup> legend_groups(const Trace& trace, const DocumentAnalysis& analysis,
                                                     const LegendOptions& options);

}  // namespace gtv::ui
