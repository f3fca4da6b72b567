#include "gtv/ui/collective_row.h"

#include <QPainter>
#include <algorithm>
#include <limits>
#include <map>

namespace gtv::ui {
namespace {

// A part narrower than this many pixels gets no arrival tick: at that zoom the ticks would cover the colours.
constexpr double kTickMinWidthPx = 4;

QColor color_of(Rgb rgb) { return QColor::fromRgb(static_cast<QRgb>(rgb)); }

std::string rank_words(std::int64_t rank) { return "rank " + std::to_string(rank); }

}  // namespace

CollectiveRow::CollectiveRow(const RankCollectives& rank) : rank_(&rank) {
  max_end_ns_.reserve(rank.parts.size());
  TimeNs latest_ns = std::numeric_limits<TimeNs>::min();
  for (const CollectivePart& part : rank.parts) {
    latest_ns = std::max(latest_ns, part.end_ns);
    max_end_ns_.push_back(latest_ns);
  }
}

RowDesc CollectiveRow::desc() const {
  RowDesc d;
  d.group = GroupKey{rank_->on_gpu ? LaneKind::GpuStream : LaneKind::HostThread, rank_->group};
  d.place = RowPlace::Bottom;
  d.id = "collectives " + std::to_string(rank_->rank);
  d.label = "collectives: wait, transfer";
  d.depth_rows = 1;
  return d;
}

std::size_t CollectiveRow::first_reaching(TimeNs t_ns) const {
  return static_cast<std::size_t>(
      std::partition_point(max_end_ns_.begin(), max_end_ns_.end(), [&](TimeNs end_ns) { return end_ns < t_ns; }) -
      max_end_ns_.begin());
}

bool CollectiveRow::has_content_in(TimeNs t0_ns, TimeNs t1_ns) const {
  const std::size_t i = first_reaching(t0_ns);
  return i < rank_->parts.size() && rank_->parts[i].arrival_ns < t1_ns;
}

void CollectiveRow::draw(const RowPaint& p) const {
  const TimeWindow window = p.map->window();
  const auto& parts = rank_->parts;
  const double top = p.rect.top() + 3;
  const double height = p.rect.height() - 6;
  const auto x_of = [&](TimeNs t_ns) { return p.rect.left() + p.map->x_of(t_ns); };
  p.painter->save();
  double covered_px = -1;  // parts inside a pixel already drawn add nothing
  std::vector<QLineF> ticks;
  std::vector<QLineF> culprit_ticks;
  std::vector<QLineF> awaited;
  for (std::size_t i = first_reaching(window.t0_ns); i < parts.size() && parts[i].arrival_ns <= window.t1_ns; ++i) {
    const CollectivePart& part = parts[i];
    const double x0 = x_of(part.arrival_ns);
    const double x_wait = x_of(part.wait_end_ns);
    const double x1 = std::max(x_of(part.end_ns), x0 + 1);
    if (x1 <= covered_px) continue;
    p.painter->setPen(Qt::NoPen);
    if (!part.counted) {
      p.painter->setBrush(color_of(kCollectiveUncountedColor));
      p.painter->drawRect(QRectF(x0, top, x1 - x0, height));
    } else {
      if (x_wait > x0) {
        p.painter->setBrush(color_of(kCollectiveWaitColor));
        p.painter->drawRect(QRectF(x0, top, std::max(x_wait - x0, 1.0), height));
      }
      const double transfer_x0 = std::max(x_wait, x0);
      p.painter->setBrush(color_of(kCollectiveTransferColor));
      p.painter->drawRect(QRectF(transfer_x0, top, std::max(x1 - transfer_x0, 1.0), height));
    }
    covered_px = x1;
    if (x1 - x0 < kTickMinWidthPx) continue;
    (part.culprit ? culprit_ticks : ticks).emplace_back(x0, p.rect.top(), x0, p.rect.bottom());
    if (!part.culprit && part.last_arrival_ns >= 0)
      awaited.emplace_back(x_of(part.last_arrival_ns), p.rect.top(), x_of(part.last_arrival_ns), p.rect.bottom());
  }
  p.painter->setPen(QPen(p.theme->text, 1.5));
  p.painter->drawLines(ticks.data(), static_cast<int>(ticks.size()));
  p.painter->setPen(QPen(color_of(kLastArrivalColor), 1.5, Qt::DashLine));
  p.painter->drawLines(awaited.data(), static_cast<int>(awaited.size()));
  p.painter->setPen(QPen(color_of(kLastArrivalColor), 3));
  p.painter->drawLines(culprit_ticks.data(), static_cast<int>(culprit_ticks.size()));
  p.painter->restore();
}

const CollectivePart* CollectiveRow::part_at(TimeNs t_ns, TimeNs pixel_ns) const {
  const auto& parts = rank_->parts;
  const CollectivePart* nearest = nullptr;
  TimeNs nearest_ns = pixel_ns + 1;
  for (std::size_t i = first_reaching(t_ns - pixel_ns); i < parts.size() && parts[i].arrival_ns <= t_ns + pixel_ns;
       ++i) {
    const CollectivePart& part = parts[i];
    const TimeNs distance_ns =
        t_ns < part.arrival_ns ? part.arrival_ns - t_ns : (t_ns > part.end_ns ? t_ns - part.end_ns : 0);
    if (distance_ns < nearest_ns) {
      nearest = &part;
      nearest_ns = distance_ns;
    }
  }
  return nearest;
}

QString CollectiveRow::tooltip_at(TimeNs t_ns, int, TimeNs pixel_ns, TimeNs origin_ns) const {
  const CollectivePart* part = part_at(t_ns, pixel_ns);
  if (part == nullptr || !rank_->instances || part->instance >= rank_->instances->size()) return {};
  const CollectiveInstance& instance = (*rank_->instances)[part->instance];
  std::string text = instance.name + ", " + rank_words(rank_->rank) + "'s part (" + rank_->where + ")\n";
  text += "arrived at " + format_duration_exact(part->arrival_ns - origin_ns) + ", ended at " +
          format_duration_exact(part->end_ns - origin_ns);
  if (part->counted) {
    const TimeNs wait_ns = part->wait_end_ns - part->arrival_ns;
    text += part->culprit ? "\nthe others waited for it here" : "\nwaited for peers " + format_duration_exact(wait_ns);
    text += ", then moved data " + format_duration_exact(part->end_ns - part->wait_end_ns);
  }
  text += "\n" + instance.summary + "\nclick to select its " + (rank_->on_gpu ? "kernel" : "range");
  return QString::fromStdString(text);
}

std::optional<EventRef> CollectiveRow::event_at(TimeNs t_ns, int, TimeNs pixel_ns) const {
  const CollectivePart* part = part_at(t_ns, pixel_ns);
  return part != nullptr ? std::optional<EventRef>(part->ref) : std::nullopt;
}

std::vector<std::string> with_rank_clocks(std::vector<std::string> labels, const std::vector<LaneDesc>& lanes,
                                          const std::vector<std::pair<std::int64_t, std::string>>& clocks) {
  if (clocks.empty()) return labels;
  std::map<std::int64_t, GroupKey> first_group;  // per rank: the group whose header carries its clock
  for (const LaneDesc& lane : lanes)
    if (lane.rank >= 0 && !lane.bookkeeping) first_group.try_emplace(lane.rank, group_of(lane.key));
  for (std::size_t i = 0; i < labels.size() && i < lanes.size(); ++i) {
    const auto group = first_group.find(lanes[i].rank);
    if (group == first_group.end() || group->second != group_of(lanes[i].key)) continue;
    const auto it = std::find_if(clocks.begin(), clocks.end(), [&](const auto& c) { return c.first == lanes[i].rank; });
    const std::string prefix = rank_words(lanes[i].rank) + " \u00b7 ";
    if (it == clocks.end() || labels[i].rfind(prefix, 0) != 0) continue;
    labels[i].insert(prefix.size(), it->second + " \u00b7 ");
  }
  return labels;
}

std::vector<std::string> rank_group_labels(const Trace& trace, const std::vector<LaneDesc>& lanes,
                                           const std::vector<std::pair<std::int64_t, std::string>>& clocks) {
  return with_rank_clocks(group_labels(trace), lanes, clocks);
}

std::vector<LegendGroup> CollectiveRow::legend() const {
  LegendGroup g{"Collectives (row under each rank)", {}};
  g.entries.push_back({kCollectiveWaitColor, "waiting for a peer rank"});
  g.entries.push_back({kCollectiveTransferColor, "transfer after the last arrival"});
  g.entries.push_back({kLastArrivalColor, "arrival the others waited for"});
  const bool uncounted =
      std::any_of(rank_->parts.begin(), rank_->parts.end(), [](const CollectivePart& p) { return !p.counted; });
  if (uncounted) g.entries.push_back({kCollectiveUncountedColor, "waits not counted (no root, clocks)"});
  return {g};
}

}  // namespace gtv::ui
