#include <QElapsedTimer>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "gtv/analysis/stragglers.h"
#include "gtv/base/time.h"
#include "gtv/ui/ranks_overview.h"

namespace gtv::ui {
namespace {

QString duration(TimeNs ns) { return QString::fromStdString(format_duration(ns)); }

constexpr int kMarkerPx = 8;  // the strip left of the rank labels that marks the straggler

}  // namespace

RankTarget rank_target(const RanksRun& run, std::size_t row, std::size_t column) {
  RankTarget t;
  const analysis::Stragglers& s = run.report.stragglers;
  if (row >= s.ranks.size() || column >= s.collectives.size()) return t;
  const analysis::CollectiveArrivals& k = s.collectives[column];
  t.rank = s.ranks[row];
  t.file = row < run.rank_files.size() ? run.rank_files[row] : std::string();
  const TimeNs shift = row < run.shift_ns.size() ? run.shift_ns[row] : 0;
  const TimeNs arrival = k.arrival_ns[row] - shift;
  const TimeNs end = k.end_ns[row] - shift;
  // The rank's part of the collective with the work before it in view: as much again as the part and the skew.
  const TimeNs pad = std::max({(end - arrival) / 2, k.spread_ns, TimeNs{100'000}});
  t.window = TimeWindow{arrival - pad, end + pad};
  return t;
}

RankTarget rank_step_target(const RanksRun& run, std::size_t row, std::size_t step) {
  RankTarget t;
  const analysis::Stragglers& s = run.report.stragglers;
  const ranks::StepPaths& paths = run.report.step_paths;
  if (row >= s.ranks.size() || step >= paths.steps.size()) return t;
  t.rank = s.ranks[row];
  t.file = row < run.rank_files.size() ? run.rank_files[row] : std::string();
  const TimeNs shift = row < run.shift_ns.size() ? run.shift_ns[row] : 0;
  TimeNs start = paths.steps[step].start_ns - shift;
  TimeNs end = paths.steps[step].end_ns - shift;
  if (paths.basis == ranks::StepBasis::ProfilerSteps && row < run.rank_steps.size() &&
      run.rank_steps[row].size() == paths.steps.size()) {
    start = run.rank_steps[row][step].start_ns;
    end = run.rank_steps[row][step].end_ns;
  }
  const TimeNs pad = std::max<TimeNs>((end - start) / 20, 1'000);
  t.window = TimeWindow{start - pad, end + pad};
  return t;
}

std::int64_t step_number(const RanksRun& run, std::size_t step) {
  const ranks::StepPaths& paths = run.report.step_paths;
  if (step < paths.steps.size() && paths.basis == ranks::StepBasis::ProfilerSteps) {
    const std::string& name = paths.steps[step].name;
    const std::size_t hash = name.rfind('#');
    if (hash != std::string::npos && hash + 1 < name.size()) {
      std::int64_t n = 0;
      bool digits = true;
      for (std::size_t i = hash + 1; i < name.size() && digits; ++i) {
        digits = name[i] >= '0' && name[i] <= '9';
        if (digits && n < (std::int64_t{1} << 50)) n = n * 10 + (name[i] - '0');
      }
      if (digits) return n;
    }
  }
  return static_cast<std::int64_t>(step) + 1;
}

RanksCanvas::RanksCanvas(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(320, 200);
  setAttribute(Qt::WA_OpaquePaintEvent);
}

void RanksCanvas::set_run(std::shared_ptr<const RanksRun> run) {
  run_ = std::move(run);
  rebuild_grid();
}

bool RanksCanvas::has_steps() const { return run_ && !run_->report.step_paths.steps.empty(); }

void RanksCanvas::set_column_kind(RanksColumns kind) {
  column_kind_ = kind;
  rebuild_grid();
}

void RanksCanvas::rebuild_grid() {
  if (!run_)
    grid_ = RanksGrid{};
  else if (column_kind_ == RanksColumns::Steps)
    grid_ = make_step_grid(run_->report.stragglers, run_->report.step_paths);
  else
    grid_ = make_ranks_grid(run_->report.stragglers);
  order_ = row_order(grid_, by_lateness_);
  first_column_ = 0;
  end_column_ = grid_.column_count;
  cells_dirty_ = true;
  update();
}

void RanksCanvas::set_theme(const Theme& theme) {
  theme_ = theme;
  cells_dirty_ = true;
  update();
}

void RanksCanvas::set_colour(RanksColour colour) {
  colour_ = colour;
  cells_dirty_ = true;
  update();
}

void RanksCanvas::set_by_lateness(bool on) {
  by_lateness_ = on;
  order_ = row_order(grid_, on);
  cells_dirty_ = true;
  update();
}

void RanksCanvas::set_columns(std::size_t first, std::size_t end) {
  end = std::min(end, grid_.column_count);
  first = std::min(first, end > 0 ? end - 1 : 0);
  if (end <= first) end = std::min(first + 1, grid_.column_count);
  first_column_ = first;
  end_column_ = end;
  cells_dirty_ = true;
  update();
}

int RanksCanvas::label_width() const {
  const QFontMetrics fm(theme_.font(9, true));
  return kMarkerPx + 4 + fm.horizontalAdvance(QStringLiteral("rank 00000 (straggler)")) + 6;
}

// Half a line more than the axis' numbers need: the first rank's label, centred on its row, reaches half a line above
// the cells, under the axis' title.
int RanksCanvas::axis_height() const {
  const int line = QFontMetrics(theme_.font(9)).height();
  return line + line / 2 + 8;
}

// Likewise half a line below the cells for the last rank's label, then the legend's two lines.
int RanksCanvas::legend_height() const {
  const int line = QFontMetrics(theme_.font(9)).height();
  return 2 * line + line / 2 + 16;
}

QRect RanksCanvas::cells_rect() const {
  const int top = axis_height();
  return {label_width(), top, std::max(1, width() - label_width() - 8),
          std::max(1, height() - top - legend_height() - 4)};
}

QRect RanksCanvas::marker_strip() const {
  const QRect cells = cells_rect();
  return {0, cells.top(), kMarkerPx, cells.height()};
}

std::pair<std::size_t, std::size_t> RanksCanvas::rows_at(int y) const {
  const QRect cells = cells_rect();
  const auto rows = order_.size();
  const auto h = static_cast<std::size_t>(cells.height());
  const auto py = static_cast<std::size_t>(std::clamp(y - cells.top(), 0, cells.height() - 1));
  const std::size_t r0 = py * rows / h;
  return {r0, std::max(r0 + 1, (py + 1) * rows / h)};
}

QPoint RanksCanvas::cell_centre(std::size_t row, std::size_t column) const {
  const QRect cells = cells_rect();
  const auto pos = static_cast<std::size_t>(std::find(order_.begin(), order_.end(), row) - order_.begin());
  const double rows = static_cast<double>(std::max<std::size_t>(1, order_.size()));
  const double columns = static_cast<double>(std::max<std::size_t>(1, end_column_ - first_column_));
  const double y = cells.top() + (static_cast<double>(pos) + 0.5) * cells.height() / rows;
  const double x = cells.left() + (static_cast<double>(column - first_column_) + 0.5) * cells.width() / columns;
  return {static_cast<int>(std::floor(x)), static_cast<int>(std::floor(y))};
}

std::optional<std::pair<std::size_t, std::size_t>> RanksCanvas::cell_at(QPoint pos) const {
  const QRect cells = cells_rect();
  if (!cells.contains(pos) || order_.empty() || end_column_ <= first_column_) return std::nullopt;
  const std::size_t columns = end_column_ - first_column_;
  const auto w = static_cast<std::size_t>(cells.width());
  const auto px = static_cast<std::size_t>(pos.x() - cells.left());
  const std::size_t c0 = first_column_ + px * columns / w;
  const std::size_t c1 = std::max(c0 + 1, first_column_ + (px + 1) * columns / w);
  const auto [r0, r1] = rows_at(pos.y());
  // The cell the pixel shows: the largest value of its block, the bounding rank first where it is marked.
  std::pair<std::size_t, std::size_t> best{order_[r0], c0};
  TimeNs best_value = -1;
  const bool marks_bound = RanksGrid::marks_bound(colour_);
  for (std::size_t r = r0; r < r1; ++r)
    for (std::size_t c = c0; c < c1; ++c) {
      const std::size_t row = order_[r];
      TimeNs v = grid_.value_ns(colour_, row, c);
      if (marks_bound && grid_.bound[c] == static_cast<std::int64_t>(row)) v = std::numeric_limits<TimeNs>::max();
      if (v > best_value) {
        best_value = v;
        best = {row, c};
      }
    }
  return best;
}

QString RanksCanvas::cell_tooltip(std::size_t row, std::size_t column) const {
  if (!run_ || row >= grid_.rank_count || column >= grid_.column_count) return {};
  return column_kind_ == RanksColumns::Steps ? step_tooltip(row, column) : collective_tooltip(row, column);
}

QString RanksCanvas::collective_tooltip(std::size_t row, std::size_t column) const {
  const analysis::Stragglers& s = run_->report.stragglers;
  const analysis::CollectiveArrivals& k = s.collectives[column];
  const auto first = *std::min_element(k.arrival_ns.begin(), k.arrival_ns.end());
  const std::int64_t rank = s.ranks[row];
  QStringList lines;
  lines << tr("rank %1, %2 #%3%4 (collective %5 of %6)")
               .arg(rank)
               .arg(QString::fromStdString(analysis::collective_words(k.kind)))
               .arg(k.ordinal)
               .arg(k.seq >= 0 ? tr(", sequence number %1").arg(k.seq) : QString())
               .arg(column + 1)
               .arg(s.collectives.size());
  lines << tr("arrived %1 after the first rank (skew of all arrivals: %2)")
               .arg(duration(k.arrival_ns[row] - first), duration(k.spread_ns));
  if (k.culprit == static_cast<std::int64_t>(row))
    lines << tr("the others waited for it: %1 in all (the sum of their waits)").arg(duration(k.wait_caused_ns));
  else if (k.culprit >= 0)
    lines << tr("the others waited for rank %1, not for it").arg(s.ranks[static_cast<std::size_t>(k.culprit)]);
  else
    lines << (k.analysed ? tr("nobody waited at this collective")
                         : tr("its waits are not told for this kind of collective"));
  lines << tr("it waited: %1; its part ran %2 after that").arg(duration(k.wait_ns[row]), duration(k.transfer_ns[row]));
  if (k.clock_inconsistent) lines << tr("the clocks contradict the waits here: some are not counted");
  const RankTarget target = rank_target(*run_, row, column);
  lines << (target.file.empty()
                ? tr("its summary names no trace file")
                : tr("click: open %1 at %2 (its own clock)")
                      .arg(QString::fromStdString(target.file), duration(k.arrival_ns[row] - run_->shift_ns[row])));
  return lines.join(QLatin1Char('\n'));
}

QString RanksCanvas::step_tooltip(std::size_t row, std::size_t step) const {
  const analysis::Stragglers& s = run_->report.stragglers;
  const ranks::StepPaths& paths = run_->report.step_paths;
  const ranks::StepPath& p = paths.steps[step];
  const std::int64_t rank = s.ranks[row];
  QStringList lines;
  lines << tr("rank %1, %2 (step %3 of %4)")
               .arg(rank)
               .arg(QString::fromStdString(p.name))
               .arg(step + 1)
               .arg(paths.steps.size());
  lines << tr("the step across ranks: %1 (from its earliest start on any rank to its latest end), %2")
               .arg(duration(p.end_ns - p.start_ns), p.collectives.size() == 1
                                                         ? tr("1 matched collective")
                                                         : tr("%1 matched collectives").arg(p.collectives.size()));
  std::size_t waited_at = 0, caused_at = 0;
  for (const std::size_t k : p.collectives) {
    const analysis::CollectiveArrivals& c = s.collectives[k];
    if (c.wait_ns[row] > 0) ++waited_at;
    if (c.culprit == static_cast<std::int64_t>(row) && c.wait_caused_ns > 0) ++caused_at;
  }
  const std::size_t cell = row * grid_.column_count + step;
  lines << tr("it waited: %1 in all, at %2 of the step's collectives")
               .arg(duration(grid_.waited_ns[cell]))
               .arg(waited_at);
  lines << (caused_at > 0 ? tr("the others waited for it: %1 in all (the sum of their waits), at %2 of the step's "
                               "collectives")
                                .arg(duration(grid_.caused_ns[cell]))
                                .arg(caused_at)
                          : tr("the others did not wait for it in this step"));
  const TimeNs length = p.end_ns - p.start_ns;
  auto share = [&](TimeNs ns) {
    return length > 0 ? QString::number(100.0 * static_cast<double>(ns) / static_cast<double>(length), 'f', 0)
                      : QStringLiteral("0");
  };
  if (p.bounding_rank == rank)
    lines << tr("it bounded the step: its work on the step's critical path across ranks is %1, %2% of the step")
                 .arg(duration(p.bounding_work_ns), share(p.bounding_work_ns));
  else if (p.bounding_rank >= 0)
    lines << tr("the step's bounding rank is rank %1 (its work on the step's critical path across ranks: %2, %3% of "
                "the step)")
                 .arg(p.bounding_rank)
                 .arg(duration(p.bounding_work_ns), share(p.bounding_work_ns));
  else
    lines << tr("no rank's work is on the step's critical path across ranks");
  const bool own = paths.basis == ranks::StepBasis::ProfilerSteps && row < run_->rank_steps.size() &&
                   run_->rank_steps[row].size() == paths.steps.size();
  if (own) {
    const ranks::StepWork& w = run_->rank_steps[row][step];
    lines << tr("its own %1: %2, its GPUs busy %3 of it (communication kernels %4)")
                 .arg(QString::fromStdString(w.name), duration(w.end_ns - w.start_ns), duration(w.gpu_busy_ns),
                      duration(w.communication_ns));
  }
  const RankTarget target = rank_step_target(*run_, row, step);
  lines << (target.file.empty() ? tr("its summary names no trace file")
                                : tr("click: open %1 at %2 (its own clock)")
                                      .arg(QString::fromStdString(target.file),
                                           own ? tr("its own %1").arg(QString::fromStdString(p.name))
                                               : tr("the step's span across ranks")));
  return lines.join(QLatin1Char('\n'));
}

QString RanksCanvas::columns_meaning() const {
  if (!run_) return {};
  if (column_kind_ == RanksColumns::Collectives)
    return tr("Columns: the collectives matched across ranks by %1, in order.")
        .arg(QString::fromStdString(run_->report.stragglers.match_basis));
  const ranks::StepPaths& paths = run_->report.step_paths;
  const QString steps =
      paths.basis == ranks::StepBasis::ProfilerSteps
          ? tr("Columns: the profiler steps every rank marks (ProfilerStep#N), each from its earliest start on any "
               "rank to its latest end, holding the collectives whose arrival on the step's critical path falls in "
               "it.")
          : tr("Columns: steps ended by the collectives every rank waits for (%1).")
                .arg(paths.basis_note.empty() ? tr("the ranks mark no profiler steps")
                                              : QString::fromStdString(paths.basis_note));
  return steps + QStringLiteral(" ") +
         tr("A cell sums the rank's waits (or the others' waits for it) over the step's collectives; the bounding "
            "rank is the one with the most work on the step's critical path across ranks.");
}

QString RanksCanvas::axis_title() const {
  if (column_kind_ == RanksColumns::Collectives) return tr("collective");
  return run_ && run_->report.step_paths.basis == ranks::StepBasis::ProfilerSteps ? tr("ProfilerStep#") : tr("step");
}

QString RanksCanvas::colour_meaning() const {
  if (column_kind_ == RanksColumns::Steps)
    return colour_ == RanksColour::Caused
               ? tr("Colour: how long the others waited for this rank in this step (the sum of their waits at the "
                    "step's collectives)")
               : tr("Colour: how long this rank waited for the others in this step (its waits at the step's "
                    "collectives, summed); orange: the step's bounding rank");
  return colour_ == RanksColour::Caused
             ? tr("Colour: how long the others waited for this rank at this collective (the sum of their waits; "
                  "only the rank they waited for has any)")
             : tr("Colour: how long this rank waited for the others at this collective; orange: the rank the others "
                  "waited for (it bounded the collective)");
}

CellColours RanksCanvas::cell_colours() const {
  CellColours c;
  c.empty = theme_.background.rgba();
  c.full = colour_ == RanksColour::Caused ? QColor(0xb0, 0x00, 0x20).rgba() : QColor(0x10, 0x40, 0xc0).rgba();
  if (theme_.dark)
    c.full = colour_ == RanksColour::Caused ? QColor(0xff, 0x50, 0x50).rgba() : QColor(0x60, 0xa0, 0xff).rgba();
  c.bound = bound_colour().rgba();
  return c;
}

const QImage& RanksCanvas::render_cells_now() {
  const QRect cells = cells_rect();
  if (!cells_dirty_ && cells_.size() == cells.size()) return cells_;
  QElapsedTimer timer;
  timer.start();
  if (cells_.size() != cells.size()) cells_ = QImage(cells.size(), QImage::Format_ARGB32);
  render_cells(grid_, colour_, order_, first_column_, end_column_, cells.width(), cells.height(), grid_.max_ns(colour_),
               cell_colours(), reinterpret_cast<std::uint32_t*>(cells_.bits()));
  cells_dirty_ = false;
  last_render_ms_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
  return cells_;
}

void RanksCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), theme_.background);
  if (!run_ || order_.empty()) return;
  const QRect cells = cells_rect();
  p.drawImage(cells.topLeft(), render_cells_now());
  p.setPen(theme_.grid);
  p.drawRect(cells.adjusted(-1, -1, 0, 0));

  // Rank labels: as many as fit, every k-th row; the straggler's always, marked in the strip left of them.
  const QFont font = theme_.font(9);
  const QFontMetrics fm(font);
  const double row_h = static_cast<double>(cells.height()) / static_cast<double>(order_.size());
  const auto every = static_cast<std::size_t>(std::max(1.0, std::ceil((fm.height() + 2) / row_h)));
  p.setFont(font);
  p.setPen(theme_.text);
  auto row_y = [&](std::size_t pos) { return cells.top() + static_cast<double>(pos) * row_h; };
  std::size_t straggler_pos = order_.size();
  for (std::size_t pos = 0; pos < order_.size(); ++pos)
    if (static_cast<std::int64_t>(order_[pos]) == grid_.straggler) straggler_pos = pos;
  for (std::size_t pos = 0; pos < order_.size(); pos += every) {
    if (straggler_pos < order_.size() && pos != straggler_pos &&
        std::abs(row_y(pos) - row_y(straggler_pos)) < fm.height() + 2)
      continue;
    const QRectF box(kMarkerPx + 4, row_y(pos) + row_h / 2 - fm.height() / 2.0, label_width() - kMarkerPx - 10,
                     fm.height());
    p.drawText(box, Qt::AlignRight | Qt::AlignVCenter, tr("rank %1").arg(grid_.ranks[order_[pos]]));
  }
  if (straggler_pos < order_.size()) {
    const QColor red = straggler_colour();
    const double y = row_y(straggler_pos);
    p.fillRect(QRectF(0, y, kMarkerPx, std::max(row_h, 3.0)), red);
    // Marked beside the cells, not over them: the rows next to it stay in view.
    p.fillRect(QRectF(cells.right() + 2, y, 5, std::max(row_h, 3.0)), red);
    const QRectF box(kMarkerPx + 4, y + row_h / 2 - fm.height() / 2.0, label_width() - kMarkerPx - 10, fm.height());
    p.fillRect(box, theme_.background);
    p.setPen(red);
    p.setFont(theme_.font(9, true));
    p.drawText(box, Qt::AlignRight | Qt::AlignVCenter,
               tr("rank %1 (straggler)").arg(grid_.ranks[order_[straggler_pos]]));
  }

  // The collective axis: the first and last shown, and a few between.
  p.setFont(font);
  p.setPen(theme_.text);
  const std::size_t shown = end_column_ - first_column_;
  const int ticks = std::clamp(cells.width() / (fm.horizontalAdvance(QStringLiteral("00000")) * 3), 1, 10);
  for (int i = 0; i <= ticks; ++i) {
    const std::size_t c =
        first_column_ + std::min(shown - 1, shown * static_cast<std::size_t>(i) / static_cast<std::size_t>(ticks));
    const double x =
        cells.left() + (static_cast<double>(c - first_column_) + 0.5) * cells.width() / static_cast<double>(shown);
    const QString text = QString::number(
        column_kind_ == RanksColumns::Steps && run_ ? step_number(*run_, c) : static_cast<std::int64_t>(c) + 1);
    const int w = fm.horizontalAdvance(text);
    const double left =
        std::clamp(x - w / 2.0, static_cast<double>(cells.left()), static_cast<double>(cells.right() - w));
    p.drawText(QPointF(left, cells.top() - 6), text);
  }
  p.drawText(QRectF(0, 0, cells.left() - 6, cells.top() - fm.height() / 2.0 - 2), Qt::AlignRight | Qt::AlignBottom,
             axis_title());
  paint_legend(p, QRect(0, cells.bottom() + fm.height() / 2 + 6, width(), legend_height()));
}

void RanksCanvas::paint_legend(QPainter& p, QRect area) const {
  const QFont font = theme_.font(9);
  const QFontMetrics fm(font);
  p.setFont(font);
  const CellColours colours = cell_colours();
  const int bar_w = std::min(220, area.width() / 4);
  const QRect bar(label_width(), area.top() + 2, bar_w, fm.height());
  QLinearGradient gradient(bar.topLeft(), bar.topRight());
  gradient.setColorAt(0, QColor::fromRgba(colours.empty));
  gradient.setColorAt(1, QColor::fromRgba(colours.full));
  p.fillRect(bar, gradient);
  p.setPen(theme_.grid);
  p.drawRect(bar);
  p.setPen(theme_.text);
  p.drawText(QRect(0, bar.top(), bar.left() - 6, bar.height()), Qt::AlignRight | Qt::AlignVCenter, tr("0"));
  int x = bar.right() + 6;
  const QString max_text = tr("%1 (the longest)").arg(duration(grid_.max_ns(colour_)));
  p.drawText(QPoint(x, bar.top() + fm.ascent()), max_text);
  x += fm.horizontalAdvance(max_text) + 18;
  if (RanksGrid::marks_bound(colour_)) {
    p.fillRect(QRect(x, bar.top(), fm.height(), fm.height()), QColor::fromRgba(colours.bound));
    x += fm.height() + 4;
    const QString t =
        column_kind_ == RanksColumns::Steps ? tr("the step's bounding rank") : tr("the rank the others waited for");
    p.drawText(QPoint(x, bar.top() + fm.ascent()), t);
    x += fm.horizontalAdvance(t) + 18;
  }
  if (grid_.straggler >= 0) {
    p.fillRect(QRect(x, bar.top(), kMarkerPx, fm.height()), straggler_colour());
    x += kMarkerPx + 4;
    p.drawText(QPoint(x, bar.top() + fm.ascent()), tr("the straggler's row"));
  }
  p.drawText(QRect(label_width(), bar.bottom() + 4, area.width() - label_width() - 8, fm.height()),
             Qt::AlignLeft | Qt::AlignVCenter,
             fm.elidedText(colour_meaning(), Qt::ElideRight, area.width() - label_width() - 8));
}

bool RanksCanvas::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    if (const auto cell = cell_at(help->pos()))
      QToolTip::showText(help->globalPos(), cell_tooltip(cell->first, cell->second), this);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(event);
}

void RanksCanvas::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
  if (const auto cell = cell_at(event->position().toPoint())) emit cell_clicked(cell->first, cell->second);
}

void RanksCanvas::wheelEvent(QWheelEvent* event) {
  const QRect cells = cells_rect();
  const std::size_t shown = end_column_ - first_column_;
  if (shown == 0) return;
  const double at = std::clamp((event->position().x() - cells.left()) / cells.width(), 0.0, 1.0);
  const double factor = event->angleDelta().y() > 0 ? 1 / 1.5 : 1.5;
  const auto wanted = static_cast<std::size_t>(
      std::clamp(std::round(static_cast<double>(shown) * factor), 1.0, static_cast<double>(grid_.column_count)));
  const double centre = static_cast<double>(first_column_) + at * static_cast<double>(shown);
  const auto first = static_cast<std::size_t>(
      std::clamp(centre - at * static_cast<double>(wanted), 0.0, static_cast<double>(grid_.column_count - wanted)));
  set_columns(first, first + wanted);
  event->accept();
}

}  // namespace gtv::ui
