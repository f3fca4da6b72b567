// Launches queued and GPU operations running under the classroom playback cursor.
#include "gtv/ui/playback_stats.h"

#include <gtest/gtest.h>

#include "test_traces.h"

namespace gtv::ui {
namespace {

constexpr TimeNs kUs = 1000;

// small_trace: launches at 5, 15, 25 us; their kernels at [20,40), [50,90) on GPU 0 and [60,80) on GPU 1.
TEST(PlaybackStats, QueuedAndRunningAtTheCursor) {
  const Trace trace = test::small_trace();
  ASSERT_EQ(trace.flows().size(), 3u);
  EXPECT_EQ(playback_stats(trace, 0), (PlaybackStats{0, 0}));
  EXPECT_EQ(playback_stats(trace, 12 * kUs), (PlaybackStats{1, 0}));  // launch 1 issued, its kernel not started
  EXPECT_EQ(playback_stats(trace, 20 * kUs), (PlaybackStats{1, 1}));  // kernel 1 starts; launch 2 is queued
  EXPECT_EQ(playback_stats(trace, 30 * kUs), (PlaybackStats{2, 1}));  // launches 2 and 3 wait, kernel 1 runs
  EXPECT_EQ(playback_stats(trace, 65 * kUs), (PlaybackStats{0, 2}));  // both GPUs busy
  EXPECT_EQ(playback_stats(trace, 90 * kUs), (PlaybackStats{0, 0}));  // gemm_big ended at 90 (end excluded)
}

}  // namespace
}  // namespace gtv::ui
