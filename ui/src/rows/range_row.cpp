#include "gtv/ui/range_row.h"

#include <QPainter>
#include <algorithm>

#include "gtv/ui/work_owner.h"

namespace gtv::ui {
namespace {

QColor to_qcolor(Rgb rgb) { return QColor::fromRgb(static_cast<QRgb>(rgb)); }

// Structure ranges are pale, so the forward ranges' model colours stand out among them.
Rgb kind_fill(RangeKind kind) {
  switch (kind) {
    case RangeKind::Scenario:
      return 0xd4d8de;
    case RangeKind::Phase:
      return 0xb8c4d4;
    case RangeKind::WarmUp:
      return 0xf3c48f;  // the warm-up bands' orange, paler
    case RangeKind::Iteration:
      return 0xdfe4ea;
    case RangeKind::Forward:
    case RangeKind::User:
      break;
  }
  return 0xc9d6b8;
}

std::string range_kind_words(RangeKind kind) {
  switch (kind) {
    case RangeKind::Scenario:
      return "scenario";
    case RangeKind::Phase:
      return "phase";
    case RangeKind::WarmUp:
      return "warm-up";
    case RangeKind::Iteration:
      return "iteration";
    case RangeKind::Forward:
      return "model forward";
    case RangeKind::User:
      break;
  }
  return "user range";
}

}  // namespace

std::vector<int> range_depths(const std::vector<const Range*>& sorted_ranges) {
  std::vector<int> depths;
  depths.reserve(sorted_ranges.size());
  std::vector<TimeNs> open_ends;  // ends of the ranges open at the current start, outermost first
  for (const Range* r : sorted_ranges) {
    while (!open_ends.empty() && open_ends.back() <= r->start_ns) open_ends.pop_back();
    depths.push_back(static_cast<int>(open_ends.size()));
    open_ends.push_back(r->end_ns);
  }
  return depths;
}

Rgb range_color(const Range& range, const WorkOwners* owners) {
  if (range.kind != RangeKind::Forward) return kind_fill(range.kind);
  if (owners)
    if (const std::uint16_t owner = owners->find(range.pid, range.name); owner < owners->colors.size())
      return owners->colors[owner];
  return owner_color(range.name);
}

RangeRow::RangeRow(std::int64_t pid, std::int64_t tid, const std::vector<const Range*>& ranges,
                   const WorkOwners* owners)
    : pid_(pid), tid_(tid) {
  std::vector<const Range*> sorted = ranges;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Range* a, const Range* b) {
    return a->start_ns != b->start_ns ? a->start_ns < b->start_ns : a->end_ns > b->end_ns;
  });
  const std::vector<int> depths = range_depths(sorted);
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    placed_.push_back({sorted[i], depths[i], range_color(*sorted[i], owners)});
    depth_rows_ = std::max(depth_rows_, depths[i] + 1);
  }
}

RowDesc RangeRow::desc() const {
  RowDesc d;
  d.group = {LaneKind::HostThread, pid_};
  d.place = RowPlace::Top;
  d.id = "ranges " + std::to_string(pid_) + "/" + std::to_string(tid_);
  d.label = (predicted_ ? "predicted ranges (thread " : "recorded ranges (thread ") + std::to_string(tid_) + ")";
  d.depth_rows = depth_rows_;
  return d;
}

namespace {

// Ranges too narrow for an outline or a name, batched per colour and drawn at once; touching ones of a colour at
// one depth merge into one rectangle. Thousands of iterations in view cost a few draw calls.
class NarrowRanges {
 public:
  void add(Rgb color, const QRectF& box) {
    auto it = std::find_if(batches_.begin(), batches_.end(), [&](const Batch& b) { return b.color == color; });
    if (it == batches_.end()) it = batches_.insert(batches_.end(), Batch{color, {}});
    std::vector<QRectF>& boxes = it->boxes;
    if (!boxes.empty() && boxes.back().top() == box.top() && box.left() <= boxes.back().right() + 0.5) {
      boxes.back().setRight(std::max(boxes.back().right(), box.right()));
      return;
    }
    boxes.push_back(box);
  }
  void draw(QPainter& painter) const {
    painter.setPen(Qt::NoPen);
    std::vector<QRect> pixels;
    for (const Batch& b : batches_) {
      pixels.clear();
      for (const QRectF& box : b.boxes) pixels.push_back(pixel_rect(box));
      painter.setBrush(to_qcolor(b.color));
      painter.drawRects(pixels.data(), static_cast<int>(pixels.size()));
    }
  }

 private:
  struct Batch {
    Rgb color;
    std::vector<QRectF> boxes;
  };
  std::vector<Batch> batches_;
};

}  // namespace

void RangeRow::draw(const RowPaint& p) const {
  QPainter& painter = *p.painter;
  const TimeWindow& w = p.map->window();
  // Ranges under a pixel wide that fall on a pixel already drawn at their depth are skipped: the cost follows the
  // pixels, not the number of ranges, when thousands of iterations are in view.
  std::vector<double> drawn_to_px(static_cast<std::size_t>(depth_rows_), -1e300);
  NarrowRanges narrow;
  painter.save();
  for (const PlacedRange& placed : placed_) {
    const Range& r = *placed.range;
    if (r.end_ns < w.t0_ns || r.start_ns > w.t1_ns) continue;
    const double x0 = std::max(p.rect.left() + p.map->x_of(r.start_ns), p.rect.left() - 2);
    const double x1 = std::min(p.rect.left() + p.map->x_of(r.end_ns), p.rect.right() + 2);
    double& drawn_to = drawn_to_px[static_cast<std::size_t>(placed.depth)];
    if (x1 - x0 < 1 && x0 < drawn_to) continue;
    drawn_to = std::max(drawn_to, std::max(x1, x0 + 1));
    const QRectF box(x0, p.rect.top() + placed.depth * p.depth_px + 1, std::max(x1 - x0, 1.0), p.depth_px - 2);
    if (box.width() < 4) {  // no room for an outline or a name
      narrow.add(placed.color, box);
      continue;
    }
    painter.fillRect(box, to_qcolor(placed.color));
    painter.setPen(QPen(to_qcolor(placed.color).darker(140), 0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(box);
    // The name where a few characters fit, kept inside the visible part of the range.
    const QRectF visible = box.intersected(p.rect).adjusted(3, 0, -3, 0);
    if (visible.width() < 24) continue;
    painter.setPen(to_qcolor(text_color_on(placed.color)));
    painter.drawText(visible, Qt::AlignVCenter | Qt::AlignLeft,
                     painter.fontMetrics().elidedText(QString::fromStdString(r.name), Qt::ElideRight,
                                                      static_cast<int>(visible.width())));
  }
  narrow.draw(painter);
  painter.restore();
}

const PlacedRange* RangeRow::range_at(TimeNs t_ns, int depth, TimeNs slop_ns) const {
  const PlacedRange* best = nullptr;
  for (const PlacedRange& placed : placed_) {
    if (placed.depth != depth) continue;
    if (placed.range->start_ns - slop_ns > t_ns) break;  // sorted by start
    if (t_ns <= placed.range->end_ns + slop_ns) best = &placed;
  }
  return best;
}

QString RangeRow::tooltip_at(TimeNs t_ns, int depth, TimeNs pixel_ns, TimeNs origin_ns) const {
  const PlacedRange* placed = range_at(t_ns, depth, 2 * pixel_ns);
  if (!placed) return {};
  const Range& r = *placed->range;
  std::string text = r.name + "\n" + range_kind_words(r.kind) + " range, recorded by thread " + std::to_string(tid_) +
                     "\nfrom " + format_duration_exact(r.start_ns - origin_ns) + " to " +
                     format_duration_exact(r.end_ns - origin_ns) + " (" + format_duration_exact(r.end_ns - r.start_ns) +
                     ")";
  if (r.device >= 0) text += "\nabout GPU " + std::to_string(r.device);
  return QString::fromStdString(text);
}

bool RangeRow::has_content_in(TimeNs t0_ns, TimeNs t1_ns) const {
  return std::any_of(placed_.begin(), placed_.end(),
                     [&](const PlacedRange& p) { return p.range->end_ns > t0_ns && p.range->start_ns < t1_ns; });
}

}  // namespace gtv::ui
