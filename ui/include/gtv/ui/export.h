#pragma once
// Image export of a timeline: PNG and JPG (raster, with a scale factor for print), PDF (vector, through
// QCustomPlot) and SVG (QSvgGenerator). The format follows the file extension; the image is drawn into memory and
// then written with gtv's output rules (image_file.h: a symlink's target is written, a FIFO or device is streamed
// into, a directory is refused, a regular file is replaced atomically keeping its mode), so a failed export never
// leaves half a file. With a figure (ExportOptions::figure) the image is ready for a paper or a slide: a title
// line above the plot, the legend of exactly what the image shows and the verdict as a caption below it
// (figure_layout.h places them, never over the plot).
#include <QString>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/ui/document_analysis.h"
#include "gtv/ui/figure_layout.h"
#include "gtv/ui/lane_layout.h"
#include "gtv/ui/legend.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/time_mapping.h"

namespace gtv::ui {

class TimelineView;

struct FigureText {
  QString title;    // "sequential — 2x NVIDIA H200"
  QString caption;  // the report's first verdict sentences, wrapped to the image width
  std::vector<LegendGroup> legend;
};

struct ExportOptions {
  QString path;
  double scale = 1.0;  // raster formats: pixels per layout pixel
  int width_px = 0;    // 0: 1600
  int height_px = 0;   // 0: tall enough for every lane (capped); with a figure: the most the whole image may take,
                       // the plot shrinks to fit (never below a readable height) and the image is no taller
                       // than its lanes need
  std::optional<TimeWindow>
      range;  // relative to the trace start; else the visible window, or the whole trace with whole_trace
  bool whole_trace = false;
  int jpg_quality = 92;
  std::optional<FigureText> figure;  // none: the plot alone, exactly width_px x height_px
  // Figures only (figure_rows.h): the text size, times the view's font scale (0: chosen for the width,
  // figure_font_scale), and the label column ("auto", "narrow", "wide" or pixels).
  double font_scale = 0;
  std::string label_width = "auto";
};

// With a figure whose lanes need more than options.height_px, fit_note (when given) says what gave way instead:
// "legend set compact ..." or "the figure is N px tall, more than the M px asked ..."; else it is emptied.
[[nodiscard]] Status export_timeline(TimelineView& view, const ExportOptions& options, std::string* fit_note = nullptr);

// The figure text for a trace: the scenario (else the file's name) and its GPUs, the legend of what occurs in the
// trace (its GPU work as the view colours it), the first verdict sentences.
[[nodiscard]] FigureText figure_text(const Trace& trace, const DocumentAnalysis& analysis, const QString& file_path,
                                     ColorMode color_mode = ColorMode::KernelName, bool dark = false);
// Where the parts of the figure go for these options (the text measured as the image will draw it), for
// export_timeline and its tests. Needs options.figure.
[[nodiscard]] FigureLayout export_figure_layout(TimelineView& view, const ExportOptions& options);
// The figure's layout rows as its plot draws them: whole, or cut by the plot's edge; and the bands under the lanes
// (0: left out). Needs options.figure.
struct FigureRows {
  std::vector<LaneRow> drawn, cut;
  double busy_strip_px = 0;
  double idle_row_px = 0;
};
[[nodiscard]] FigureRows export_figure_rows(TimelineView& view, const ExportOptions& options);

// A figure's view for as long as it lives: the figure's rows (figure_lane_state on the view's window), no
// affordances, the text scaled for the width and the label column of options.label_width; the view as it was
// afterwards.
class FigureViewScope {
 public:
  FigureViewScope(TimelineView& view, const ExportOptions& options, int width_px);
  ~FigureViewScope();
  FigureViewScope(const FigureViewScope&) = delete;
  FigureViewScope& operator=(const FigureViewScope&) = delete;
  // An invalid label width preset.
  [[nodiscard]] const Status& status() const { return status_; }

 private:
  TimelineView& view_;
  Theme theme_;
  LaneViewState lane_state_;
  std::optional<double> label_width_px_;
  Status status_ = ok_status();
};

// "12.5ms", "300us", "2s", "1500ns"; a bare number is milliseconds.
[[nodiscard]] Expected<TimeNs> parse_time(std::string_view text);
// "T0:T1" with the units of parse_time; T1 must be after T0.
[[nodiscard]] Expected<TimeWindow> parse_time_range(std::string_view text);
// "WxH" in pixels, each 16..20000.
[[nodiscard]] Expected<std::pair<int, int>> parse_size(std::string_view text);

}  // namespace gtv::ui
