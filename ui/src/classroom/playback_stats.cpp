#include "gtv/ui/playback_stats.h"

namespace gtv::ui {

PlaybackStats playback_stats(const Trace& trace, TimeNs t_ns) {
  PlaybackStats stats;
  for (const Flow& f : trace.flows())
    if (trace.event(f.from).start_ns <= t_ns && trace.event(f.to).start_ns > t_ns) ++stats.queued_launches;
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu()) continue;
    for (const Event& e : lane.events) {
      if (e.start_ns > t_ns) break;  // sorted by start
      if (is_gpu_activity(e.kind) && t_ns < e.end_ns()) ++stats.running_gpu_ops;
    }
  }
  return stats;
}

}  // namespace gtv::ui
