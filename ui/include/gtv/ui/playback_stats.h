#pragma once
// What the classroom playback cursor shows in words: at time t, how many launches have been issued on the host
// whose GPU work has not started yet (queued), and how many GPU operations are running. Pure, no Qt.
#include "gtv/model/trace.h"

namespace gtv::ui {

struct PlaybackStats {
  int queued_launches = 0;  // flows whose host call started at or before t and whose GPU work starts after t
  int running_gpu_ops = 0;  // kernels, copies and memsets with start <= t < end
  friend bool operator==(const PlaybackStats&, const PlaybackStats&) = default;
};

[[nodiscard]] PlaybackStats playback_stats(const Trace& trace, TimeNs t_ns);

}  // namespace gtv::ui
