#pragma once
// The ranks overview of a reduced run (ranks_run.h): one row per rank, one column per matched collective or per step
// (the report's critical path across ranks), coloured by how long the others waited for the rank (Caused) or by how
// long the rank waited (Waited), the legend saying which. Rows in rank order or by lateness; the straggler's row and
// each column's bounding rank marked. The cells are aggregated per pixel into one image (ranks_grid.h), so a
// thousand ranks by a thousand columns draw like a hundred. Hover: the cell's exact times; click: that rank's own
// trace at that collective or step; wheel: zooms the columns around the pointer.
#include <QFutureWatcher>
#include <QImage>
#include <QWidget>
#include <memory>
#include <optional>

#include "gtv/base/expected.h"
#include "gtv/ui/ranks_grid.h"
#include "gtv/ui/ranks_run.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/time_mapping.h"

class QComboBox;
class QLabel;
class QStackedWidget;

namespace gtv::ui {

// Where a click on (row, column) takes the user: the rank's own trace, and the window around its part of the
// collective on the rank's own clock (the trace's times).
struct RankTarget {
  std::int64_t rank = -1;
  std::string file;  // empty when the summary names none
  TimeWindow window;
};
[[nodiscard]] RankTarget rank_target(const RanksRun& run, std::size_t row, std::size_t column);
// The same for a step (an index into the report's step_paths): the rank's own step when it marks the run's steps
// (its "ProfilerStep#N" on its own clock), else the step's span across ranks moved onto the rank's clock; a
// twentieth of the step's length either side.
[[nodiscard]] RankTarget rank_step_target(const RanksRun& run, std::size_t row, std::size_t step);
// The number a step goes by on the column axis: N of "ProfilerStep#N", else its place from 1.
[[nodiscard]] std::int64_t step_number(const RanksRun& run, std::size_t step);

// The grid with its rank labels, collective axis and legend; no controls (it is also the exported figure's body).
class RanksCanvas : public QWidget {
  Q_OBJECT
 public:
  explicit RanksCanvas(QWidget* parent = nullptr);
  void set_run(std::shared_ptr<const RanksRun> run);
  void set_theme(const Theme& theme);
  void set_colour(RanksColour colour);
  void set_by_lateness(bool on);
  // Collectives or steps as columns: the grid is rebuilt and every column shown.
  void set_column_kind(RanksColumns kind);
  // The columns shown, [first, end); clamped to the run's.
  void set_columns(std::size_t first, std::size_t end);
  [[nodiscard]] RanksColour colour() const { return colour_; }
  [[nodiscard]] bool by_lateness() const { return by_lateness_; }
  [[nodiscard]] RanksColumns column_kind() const { return column_kind_; }
  // Whether the run has steps to show (the report's critical path across ranks has any).
  [[nodiscard]] bool has_steps() const;
  [[nodiscard]] const RanksGrid& grid() const { return grid_; }
  [[nodiscard]] const std::vector<std::size_t>& order() const { return order_; }
  [[nodiscard]] std::pair<std::size_t, std::size_t> columns() const { return {first_column_, end_column_}; }
  // Geometry, for tests and the figure: the cells' rectangle, the strip that marks the straggler, the centre of a
  // cell, and the cell under a point (the one with the largest value in the pixel's block).
  [[nodiscard]] QRect cells_rect() const;
  [[nodiscard]] QRect marker_strip() const;
  [[nodiscard]] QPoint cell_centre(std::size_t row, std::size_t column) const;
  [[nodiscard]] std::optional<std::pair<std::size_t, std::size_t>> cell_at(QPoint pos) const;
  [[nodiscard]] QString cell_tooltip(std::size_t row, std::size_t column) const;
  // What the legend says the colour means, in words; what the columns are (the figure's caption says it).
  [[nodiscard]] QString colour_meaning() const;
  [[nodiscard]] QString columns_meaning() const;
  // The column axis' title: "collective", "ProfilerStep#" or "step".
  [[nodiscard]] QString axis_title() const;
  [[nodiscard]] static QColor bound_colour() { return {0xff, 0x90, 0x00}; }
  // Time to build the cell image of the last paint (the per-frame cost the benchmark reports).
  [[nodiscard]] double last_render_ms() const { return last_render_ms_; }
  // The cell image for the current size (drawn at the next paint otherwise).
  const QImage& render_cells_now();

  static QColor straggler_colour() { return {0xd0, 0x10, 0x10}; }

 signals:
  void cell_clicked(std::size_t row, std::size_t column);

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;

 private:
  [[nodiscard]] int label_width() const;
  [[nodiscard]] int axis_height() const;
  [[nodiscard]] int legend_height() const;
  [[nodiscard]] std::pair<std::size_t, std::size_t> rows_at(int y) const;
  void paint_legend(QPainter& p, QRect area) const;
  [[nodiscard]] CellColours cell_colours() const;
  [[nodiscard]] QString collective_tooltip(std::size_t row, std::size_t column) const;
  [[nodiscard]] QString step_tooltip(std::size_t row, std::size_t step) const;
  void rebuild_grid();

  std::shared_ptr<const RanksRun> run_;
  RanksGrid grid_;
  std::vector<std::size_t> order_;
  Theme theme_;
  RanksColour colour_ = RanksColour::Waited;
  bool by_lateness_ = false;
  RanksColumns column_kind_ = RanksColumns::Collectives;
  std::size_t first_column_ = 0;
  std::size_t end_column_ = 0;
  QImage cells_;
  bool cells_dirty_ = true;
  double last_render_ms_ = 0;
};

// The tab: the report's headline and warnings, the clock, columns, colour and order choices, and the canvas. Reads and
// reduces the summaries in the background; the first result arrives through loaded() or failed(). Choosing the other
// clock alignment reduces them again (a failure then keeps the run shown and says why above it).
class RanksOverview : public QWidget {
  Q_OBJECT
 public:
  explicit RanksOverview(QStringList paths, const RankMergeOptions& options = {}, QWidget* parent = nullptr);
  // Reduces the summaries again with these clock options (the clock choice does this).
  void reduce_with(const RankMergeOptions& options);
  ~RanksOverview() override;
  [[nodiscard]] const QStringList& paths() const { return paths_; }
  [[nodiscard]] QString title() const;
  [[nodiscard]] RanksCanvas* canvas() const { return canvas_; }
  [[nodiscard]] std::shared_ptr<const RanksRun> run() const { return run_; }
  [[nodiscard]] bool is_loading() const { return watcher_.isRunning(); }
  void set_theme(const Theme& theme) { canvas_->set_theme(theme); }
  // The view, as the choices above the canvas set it (the command line's --ranks-colour, -order, -columns); steps
  // fall back to collectives for a run without steps.
  void set_view(RanksColour colour, bool by_lateness, RanksColumns columns);
  // Blocks until the summaries are reduced (tests, command line).
  void wait();

 signals:
  void loaded();
  void failed(const QString& message);
  // A cell was clicked: open the rank's trace file and show the window (its own clock).
  void open_rank(const QString& file, std::int64_t rank, gtv::ui::TimeWindow window);

 private:
  void on_reduced();

  QStringList paths_;
  bool delivered_ = false;
  std::shared_ptr<const RanksRun> run_;
  QFutureWatcher<Expected<RanksRun>> watcher_;
  QStackedWidget* stack_;
  QLabel* status_;
  QLabel* headline_;
  QLabel* warnings_;
  QComboBox* clock_box_;
  QComboBox* columns_box_;
  QComboBox* colour_box_;
  QComboBox* order_box_;
  RanksCanvas* canvas_;
};

// The exported figure of a reduced run: a title, the canvas (grid, labels, legend) and a caption (the report's
// headline, the row order and what the columns are), no controls; its text is sized for the width.
struct RanksFigureOptions {
  RanksColour colour = RanksColour::Waited;
  bool by_lateness = false;
  RanksColumns columns = RanksColumns::Collectives;
  int width_px = 1600;
  // 0: tall enough for every rank at a pixel or more (a grid of 300 to 700 pixels, 16 a rank when few), else the
  // whole figure's height (the grid takes what the title and caption leave, at least 200 pixels)
  int height_px = 0;
  bool dark = false;
  double scale = 1.0;
};
// Errors: steps asked of a run without steps, or what writing the image says.
[[nodiscard]] Status export_ranks_figure(const std::shared_ptr<const RanksRun>& run, const QString& path,
                                         const RanksFigureOptions& options);

}  // namespace gtv::ui
