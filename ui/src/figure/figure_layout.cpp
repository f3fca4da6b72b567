#include "gtv/ui/figure_layout.h"

#include <algorithm>
#include <cmath>

namespace gtv::ui {

namespace {

struct LegendPlacement {
  std::vector<Box> items;  // y from the legend's top
  double height_px = 0;
};

// Legend items in rows, left to right. Laid out, each group's title starts a row; compact, the groups run on and a
// title only keeps its first entry beside it (a title never ends a row alone).
LegendPlacement place_legend(const FigureMetrics& m, double inner_w, bool compact) {
  LegendPlacement out;
  const auto& widths = m.legend_item_widths_px;
  auto is_title = [&](std::size_t i) { return i < m.legend_item_breaks.size() && m.legend_item_breaks[i]; };
  auto width = [&](std::size_t i) { return std::min(widths[i], inner_w); };
  double row = 0, x = 0;
  for (std::size_t i = 0; i < widths.size(); ++i) {
    const double w = width(i);
    double needs = w;
    if (compact && is_title(i) && i + 1 < widths.size() && !is_title(i + 1)) needs += m.gap_px * 2 + width(i + 1);
    const bool wraps = compact ? x + std::min(needs, inner_w) > inner_w : is_title(i) || x + w > inner_w;
    if (x > 0 && wraps) {
      ++row;
      x = 0;
    }
    out.items.push_back({m.margin_px + x, row * m.legend_item_px, w, m.legend_item_px});
    x += w + m.gap_px * 2;
  }
  out.height_px = out.items.empty() ? 0 : (row + 1) * m.legend_item_px;
  return out;
}

}  // namespace

FigureLayout layout_figure(const FigureMetrics& m) {
  FigureLayout f;
  const double inner_w = std::max(m.width_px - 2 * m.margin_px, 1.0);
  double y = 0;
  if (m.title_px > 0) {
    f.title = {m.margin_px, m.gap_px, inner_w, m.title_px};
    y = f.title.bottom() + m.gap_px;
  }
  const double caption_h = static_cast<double>(m.caption_lines) * m.caption_line_px;
  auto height_with = [&](const LegendPlacement& legend) {
    return y + m.plot_needed_px + m.gap_px + (legend.height_px > 0 ? legend.height_px + m.gap_px : 0) +
           (caption_h > 0 ? caption_h + m.gap_px : 0);
  };
  LegendPlacement legend = place_legend(m, inner_w, false);
  if (m.max_height_px > 0 && height_with(legend) > m.max_height_px) {
    LegendPlacement compact = place_legend(m, inner_w, true);
    if (compact.height_px < legend.height_px) {
      legend = std::move(compact);
      f.fit = FigureFit::CompactLegend;
    }
    if (height_with(legend) > m.max_height_px) f.fit = FigureFit::Grown;
  }
  f.plot = {0, y, m.width_px, m.plot_needed_px};
  y = f.plot.bottom() + m.gap_px;
  if (legend.height_px > 0) {
    f.legend = {m.margin_px, y, inner_w, legend.height_px};
    for (Box b : legend.items) {
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

std::string figure_fit_note(const FigureLayout& layout, double max_height_px) {
  const auto px = [](double v) { return std::to_string(static_cast<long long>(std::ceil(v))); };
  switch (layout.fit) {
    case FigureFit::Fits:
      return {};
    case FigureFit::CompactLegend:
      return "legend set compact so that every lane fits in " + px(max_height_px) + " px";
    case FigureFit::Grown:
      return "the figure is " + px(layout.height_px) + " px tall, more than the " + px(max_height_px) +
             " px asked, so that every lane is drawn";
  }
  return {};
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

std::string figure_title(std::string_view name, const std::vector<DeviceInfo>& devices,
                         const std::set<std::int32_t>& used) {
  std::vector<DeviceInfo> ran;
  for (const DeviceInfo& d : devices)
    if (used.count(d.index) != 0) ran.push_back(d);
  if (ran.empty() || ran.size() == devices.size()) return figure_title(name, devices);
  return figure_title(name, ran) + " (" + std::to_string(ran.size()) + " of the " + std::to_string(devices.size()) +
         " GPUs recorded ran work)";
}

}  // namespace gtv::ui
