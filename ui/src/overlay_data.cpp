#include "gtv/ui/overlay_data.h"

#include <algorithm>

namespace gtv::ui {

std::span<const IdleBand> idle_of_device(const OverlayData& o, std::int64_t device) {
  const auto first =
      std::partition_point(o.idle.begin(), o.idle.end(), [device](const IdleBand& b) { return b.device < device; });
  const auto last =
      std::partition_point(first, o.idle.end(), [device](const IdleBand& b) { return b.device == device; });
  return {first, last};
}

std::size_t first_idle_ending_after(std::span<const IdleBand> bands, TimeNs t0_ns) {
  // One device's intervals do not overlap, so sorted by start they are sorted by end too.
  const auto it =
      std::partition_point(bands.begin(), bands.end(), [t0_ns](const IdleBand& b) { return b.end_ns < t0_ns; });
  return static_cast<std::size_t>(it - bands.begin());
}

const IdleBand* idle_band_at(const OverlayData& o, std::int64_t device, TimeNs t_ns, TimeNs tolerance_ns) {
  const std::span<const IdleBand> bands = idle_of_device(o, device);
  const IdleBand* best = nullptr;
  TimeNs best_distance = tolerance_ns + 1;
  for (std::size_t i = first_idle_ending_after(bands, t_ns - tolerance_ns); i < bands.size(); ++i) {
    const IdleBand& b = bands[i];
    if (b.start_ns > t_ns + tolerance_ns) break;
    const TimeNs distance = t_ns < b.start_ns ? b.start_ns - t_ns : (t_ns > b.end_ns ? t_ns - b.end_ns : 0);
    if (distance < best_distance) {
      best = &b;
      best_distance = distance;
    }
  }
  return best;
}

const ShadedSegment* warmup_at(const OverlayData& o, TimeNs t_ns, TimeNs tolerance_ns) {
  // Spans of different findings may overlap, so no binary search on ends: there are a few hundred at most.
  const ShadedSegment* best = nullptr;
  TimeNs best_distance = tolerance_ns + 1;
  for (const ShadedSegment& s : o.warmup) {
    if (s.start_ns > t_ns + tolerance_ns) break;
    const TimeNs distance = t_ns < s.start_ns ? s.start_ns - t_ns : (t_ns > s.end_ns ? t_ns - s.end_ns : 0);
    if (distance < best_distance) {
      best = &s;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace gtv::ui
