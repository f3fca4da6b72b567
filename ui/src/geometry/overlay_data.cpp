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

std::optional<BusyOverSpan> busy_over(const OverlayData& o, TimeNs t0_ns, TimeNs t1_ns) {
  const std::vector<Step>& steps = o.busy_gpus;  // the last step (value 0) only marks the end
  if (steps.size() < 2 || t0_ns >= steps.back().time_ns || t1_ns <= steps.front().time_ns) return std::nullopt;
  // The step in force at t0: the last one starting at or before it.
  auto it = std::upper_bound(steps.begin(), steps.end(), t0_ns, [](TimeNs t, const Step& s) { return t < s.time_ns; });
  if (it != steps.begin()) --it;
  BusyOverSpan span{it->value, it->value, it->time_ns, 0, 0};
  for (; it + 1 != steps.end() && it->time_ns < std::max(t1_ns, t0_ns + 1); ++it) {
    span.min_busy = std::min(span.min_busy, it->value);
    span.max_busy = std::max(span.max_busy, it->value);
    span.end_ns = (it + 1)->time_ns;
    ++span.steps;
  }
  return span;
}

}  // namespace gtv::ui
