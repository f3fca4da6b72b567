#include "gtv/ui/figure_layout.h"

#include <algorithm>

namespace gtv::ui {

FigureLayout layout_figure(const FigureMetrics& m) {
  FigureLayout f;
  const double inner_w = std::max(m.width_px - 2 * m.margin_px, 1.0);
  double y = 0;
  if (m.title_px > 0) {
    f.title = {m.margin_px, m.gap_px, inner_w, m.title_px};
    y = f.title.bottom() + m.gap_px;
  }
  // The legend's rows first (their count does not depend on the plot), so the plot can take what is left.
  double row = 0, x = 0;
  std::vector<Box> items;
  for (std::size_t i = 0; i < m.legend_item_widths_px.size(); ++i) {
    const double w = std::min(m.legend_item_widths_px[i], inner_w);
    const bool forced = i < m.legend_item_breaks.size() && m.legend_item_breaks[i];
    if (x > 0 && (forced || x + w > inner_w)) {
      ++row;
      x = 0;
    }
    items.push_back({m.margin_px + x, row * m.legend_item_px, w, m.legend_item_px});
    x += w + m.gap_px * 2;
  }
  const double legend_h = items.empty() ? 0 : (row + 1) * m.legend_item_px;
  const double caption_h = static_cast<double>(m.caption_lines) * m.caption_line_px;
  const double below_h =
      (legend_h > 0 ? legend_h + m.gap_px : 0) + (caption_h > 0 ? caption_h + m.gap_px : 0) + m.gap_px;
  double plot_h = m.plot_needed_px;
  if (m.max_height_px > 0) plot_h = std::min(plot_h, std::max(m.max_height_px - y - below_h, m.min_plot_px));
  f.plot = {0, y, m.width_px, plot_h};
  y = f.plot.bottom() + m.gap_px;
  if (legend_h > 0) {
    f.legend = {m.margin_px, y, inner_w, legend_h};
    for (Box b : items) {
      b.y += y;
      f.legend_items.push_back(b);
    }
    y = f.legend.bottom() + m.gap_px;
  }
  if (caption_h > 0) {
    f.caption = {m.margin_px, y, inner_w, caption_h};
    y = f.caption.bottom() + m.gap_px;
  }
  f.height_px = y;
  return f;
}

std::vector<std::string> wrap_words(std::string_view text, double width_px,
                                    const std::function<double(std::string_view)>& measure) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = text.find_first_not_of(' ', i);
    if (start == std::string_view::npos) break;
    const std::size_t end = std::min(text.find(' ', start), text.size());
    const std::string_view word = text.substr(start, end - start);
    const std::string candidate = line.empty() ? std::string(word) : line + " " + std::string(word);
    if (!line.empty() && measure(candidate) > width_px) {
      lines.push_back(line);
      line = std::string(word);
    } else {
      line = candidate;
    }
    i = end;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string figure_title(std::string_view name, const std::vector<DeviceInfo>& devices) {
  std::vector<std::pair<std::string, int>> counts;  // device name, how many, in table order
  for (const DeviceInfo& d : devices) {
    const std::string device_name = d.name.empty() ? "GPU" : d.name;
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == device_name; });
    if (it == counts.end())
      counts.emplace_back(device_name, 1);
    else
      ++it->second;
  }
  std::string title(name);
  for (std::size_t i = 0; i < counts.size(); ++i)
    title += (i == 0 ? " \u2014 " : ", ") + std::to_string(counts[i].second) + "x " + counts[i].first;
  return title;
}

}  // namespace gtv::ui
