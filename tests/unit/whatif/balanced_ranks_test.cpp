// balanced-ranks on runs merged from synthetic Gloo rank files, against timelines worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "../analysis/trace_helpers.h"
#include "gtv/model/rank_merge.h"
#include "gtv/whatif/predict.h"

namespace gtv::whatif {
namespace {

using analysis::testing::build;
using analysis::testing::host_call;

constexpr TimeNs kUs = kNsPerUs;

// One rank of `world`: its host thread (pid, pid) measures the timed loop [0, end_us) and runs gloo:all_reduce
// ranges [arrival, end) in microseconds.
Trace gloo_rank(std::int64_t rank, std::int64_t world, std::int64_t pid,
                const std::vector<std::pair<TimeNs, TimeNs>>& allreduces_us, TimeNs end_us) {
  TraceBuilder b;
  b.metadata().distributed = {rank, world, "gloo"};
  for (const auto& [start, end] : allreduces_us)
    host_call(b, pid, pid, "gloo:all_reduce", start * kUs, (end - start) * kUs, EventKind::Annotation);
  Measurement m;
  m.name = "timed loop";
  m.method = MeasurementMethod::StopwatchNoSync;
  m.host_start_ns = 0;
  m.host_end_ns = end_us * kUs;
  m.reported_ns = m.host_end_ns;
  m.pid = pid;
  m.tid = pid;
  b.add_measurement(m);
  return build(b);
}

template <typename... Traces>
Trace merge(Traces&&... rank_traces) {
  std::vector<Trace> ranks;
  ranks.reserve(sizeof...(rank_traces));
  (ranks.push_back(std::forward<Traces>(rank_traces)), ...);
  std::vector<RankFile> files;
  files.reserve(ranks.size());
  for (const Trace& t : ranks) files.push_back({&t, "rank.json"});
  Expected<RankMerge> m = merge_ranks(files);
  if (!m) throw std::runtime_error(m.error().message);
  return std::move(m->trace);
}

Expected<Prediction> balanced(const Trace& t) {
  const std::vector<Change> changes = {*parse_change("balanced-ranks")};
  return predict(t, changes);
}

// Three ranks do 100, 200 and 500 us of work before each of two all-reduces; the transfer after the last arrival
// takes 20 us at the first and 60 us at the second; each rank works 50 us after the last.
//   recorded: arrivals (100, 200, 500), ends 520; arrivals (620, 720, 1020), ends 1080; the loop ends at 1130 us.
//   rank 2's work becomes the median of the others' (150 us): arrivals (100, 200, 150), ends 220; arrivals
//   (320, 420, 370), ends 480; the loop ends at 530 us.
//   the band's lower end, rank 2 as fast as rank 0 and every transfer 20 us: ends 220, 440, the loop at 490 us;
//   its upper end, rank 2 as slow as rank 1: 530 us; 1% each way for the spread between recordings.
Trace three_ranks_one_slow() {
  return merge(gloo_rank(0, 3, 100, {{100, 520}, {620, 1080}}, 1130),
               gloo_rank(1, 3, 200, {{200, 520}, {720, 1080}}, 1130),
               gloo_rank(2, 3, 300, {{500, 520}, {1020, 1080}}, 1130));
}

TEST(WhatifBalancedRanks, TheStragglersWorkTakesTheOtherRanksMedian) {
  const Expected<Prediction> p = balanced(three_ranks_one_slow());
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->recorded_ns, 1130 * kUs);
  EXPECT_EQ(p->predicted_ns, 530 * kUs);
  EXPECT_EQ(p->low_ns, 490 * kUs - 4900);
  EXPECT_EQ(p->high_ns, 530 * kUs + 5300);
  ASSERT_EQ(p->applied.size(), 1u);
  EXPECT_NE(p->applied[0].find("rank 2, the rank the others waited for at 2 of 2 collectives"), std::string::npos)
      << p->applied[0];
  EXPECT_NE(p->applied[0].find("0.7 ms less, at 2 collectives"), std::string::npos) << p->applied[0];
  // The path: rank 1 arrived last at both (200 + 200 us of work), 20 + 60 us of transfers, 50 us after the last.
  TimeNs path_ns = 0;
  for (const PathShare& s : p->path) path_ns += s.ns;
  EXPECT_EQ(path_ns, p->predicted_ns);
  ASSERT_EQ(p->path.size(), 2u);
  EXPECT_EQ(p->path[0].ns, 450 * kUs);
  EXPECT_EQ(p->path[1].ns, 80 * kUs);
}

// Rank 0 arrives at the second all-reduce at 150 us, queued while the first still waits for rank 1 (its end is 500
// us): the 50 us since its previous arrival were work it did during that wait. Rank 1 arrives at 480 and 500.
//   balanced: rank 1's first work becomes rank 0's (100 us): both arrive at 100, the transfer keeps 20 us, ends 120;
//   rank 0 arrives at the second 50 us after its first arrival (150), rank 1 right after its end (120); the last
//   arrival is 150, the transfer 20: ends 170; each rank's 80 us after its last collective: 250 us. Counting rank 0's
//   work from the previous end instead (0 us for a queued arrival) would give 220 us.
TEST(WhatifBalancedRanks, WorkQueuedDuringAWaitIsKept) {
  TraceBuilder b0;
  b0.metadata().distributed = {0, 2, "gloo"};
  host_call(b0, 100, 100, "gloo:all_reduce", 100 * kUs, 400 * kUs, EventKind::Annotation);
  host_call(b0, 100, 101, "gloo:all_reduce", 150 * kUs, 370 * kUs, EventKind::Annotation);
  Measurement m{"timed loop", MeasurementMethod::StopwatchNoSync, 600 * kUs, 0, 600 * kUs, 100, 100};
  b0.add_measurement(m);
  const Trace t = merge(build(b0), gloo_rank(1, 2, 200, {{480, 500}, {500, 520}}, 600));
  const Expected<Prediction> p = balanced(t);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->recorded_ns, 600 * kUs);
  EXPECT_EQ(p->predicted_ns, 250 * kUs);
}

// Rank 0's GPU ran 700 us of kernels in the window: however rank 2 is balanced (530 us by the arrivals alone), the
// loop cannot take less.
TEST(WhatifBalancedRanks, NeverBelowARanksOwnWork) {
  TraceBuilder b0;
  b0.metadata().distributed = {0, 3, "gloo"};
  for (const auto& [start, end] : std::vector<std::pair<TimeNs, TimeNs>>{{100, 520}, {620, 1080}})
    host_call(b0, 100, 100, "gloo:all_reduce", start * kUs, (end - start) * kUs, EventKind::Annotation);
  analysis::testing::kernel(b0, 0, 7, "conv", 0, 700 * kUs);
  b0.add_measurement({"timed loop", MeasurementMethod::StopwatchNoSync, 1130 * kUs, 0, 1130 * kUs, 100, 100});
  const Trace t = merge(build(b0), gloo_rank(1, 3, 200, {{200, 520}, {720, 1080}}, 1130),
                        gloo_rank(2, 3, 300, {{500, 520}, {1020, 1080}}, 1130));
  const Expected<Prediction> p = balanced(t);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->predicted_ns, 700 * kUs);
  EXPECT_EQ(p->low_ns, 700 * kUs - 7000);
  ASSERT_EQ(p->applied.size(), 2u);
  EXPECT_EQ(p->applied[1],
            "the arrivals alone give 0.5 ms, less than rank 0's GPU 0's work in the span of the 3 measurements from "
            "'rank 0: timed loop' to 'rank 2: timed loop' (0.7 ms), which no balancing shortens: the prediction is "
            "0.7 ms");
}

// Ranks 0 and 2 each ran kernels on their GPU 0 (40 us on rank 0 and 30 us on rank 2 inside the window, 100 us
// of rank 0's before it); rank 1 ran none. Over Gloo the files do not say whether the two GPU 0s are one GPU: the
// estimate stays as without the kernels (530 us, band from 490 us), and a warning says the balanced run can be
// longer by up to 40 us, rank 0's GPU work in the window (what rank 2's would wait for on a shared GPU), which the
// band's upper end takes: 570 us, plus 1%. Over NCCL, which refuses two ranks on one GPU, they are two GPUs: no
// warning, and the band's upper end is 530 us plus 1%.
// With `two_gpus`, rank 0 also runs 20 us on its GPU 1 and rank 2 its kernel on its GPU 1 instead of GPU 0.
Trace ranks_naming_one_gpu(const std::string& backend, bool two_gpus = false) {
  const auto rank_trace = [&](std::int64_t rank, std::int64_t pid,
                              const std::vector<std::pair<TimeNs, TimeNs>>& allreduces_us, TimeNs kernel_us,
                              TimeNs kernel_len_us) {
    TraceBuilder b;
    b.metadata().distributed = {rank, 3, backend};
    for (const auto& [start, end] : allreduces_us)
      host_call(b, pid, pid, "gloo:all_reduce", start * kUs, (end - start) * kUs, EventKind::Annotation);
    if (rank == 0) analysis::testing::kernel(b, 0, 7, "conv", -100 * kUs, 100 * kUs);
    if (rank == 0 && two_gpus) analysis::testing::kernel(b, 1, 7, "conv", 200 * kUs, 20 * kUs);
    const std::int64_t gpu = rank == 2 && two_gpus ? 1 : 0;
    if (kernel_len_us > 0) analysis::testing::kernel(b, gpu, 7, "conv", kernel_us * kUs, kernel_len_us * kUs);
    b.add_measurement({"timed loop", MeasurementMethod::StopwatchNoSync, 1130 * kUs, 0, 1130 * kUs, pid, pid});
    return build(b);
  };
  return merge(rank_trace(0, 100, {{100, 520}, {620, 1080}}, 10, 40),
               rank_trace(1, 200, {{200, 520}, {720, 1080}}, 0, 0),
               rank_trace(2, 300, {{500, 520}, {1020, 1080}}, 600, 30));
}

TEST(WhatifBalancedRanks, RanksThatNameTheSameGpuAreWarnedOfAndTheBandTakesIt) {
  const Trace t = ranks_naming_one_gpu("gloo");
  const Expected<Prediction> p = balanced(t);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->predicted_ns, 530 * kUs);
  EXPECT_EQ(p->low_ns, 490 * kUs - 4900);
  EXPECT_EQ(p->high_ns, 570 * kUs + 5700);
  const std::string expected =
      "2 of the 3 ranks name the same GPU as another rank (each its cuda:0, say), and the files do not say whether "
      "that is one GPU shared by ranks of one host: the estimate takes a GPU each; if they share one, their GPU work "
      "takes turns once the ranks arrive together, and the balanced run can be longer by up to the other sharing "
      "ranks' GPU work in the span of the 3 measurements from 'rank 0: timed loop' to 'rank 2: timed loop' (40.0 us), "
      "which the band's upper end takes";
  EXPECT_NE(std::find(p->warnings.begin(), p->warnings.end(), expected), p->warnings.end())
      << (p->warnings.empty() ? std::string("no warning") : p->warnings.back());
}

// Rank 0 names GPUs 0 and 1, rank 2 GPU 1: rank 2 shares with rank 0, whose GPU work in the window is 40 + 20 us
// (a rank's GPU work counts whole, an upper bound: only its GPU 1's 20 us would take turns with rank 2's on a shared
// GPU 1); rank 0 shares with rank 2's 30 us. The band's upper end takes the most: 60 us.
TEST(WhatifBalancedRanks, ARankOfTwoGpusSharesWithEachRankNamingEither) {
  const Trace t = ranks_naming_one_gpu("gloo", true);
  const Expected<Prediction> p = balanced(t);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->predicted_ns, 530 * kUs);
  EXPECT_EQ(p->high_ns, 590 * kUs + 5900);
  bool warned = false;
  for (const std::string& w : p->warnings)
    warned = warned || (w.find("2 of the 3 ranks name the same GPU") == 0 && w.find("(60.0 us)") != std::string::npos);
  EXPECT_TRUE(warned);
}

TEST(WhatifBalancedRanks, RanksOverNcclThatNameTheSameGpuAreOnHostsOfTheirOwn) {
  const Trace t = ranks_naming_one_gpu("nccl");
  const Expected<Prediction> p = balanced(t);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->predicted_ns, 530 * kUs);
  EXPECT_EQ(p->high_ns, 530 * kUs + 5300);
  for (const std::string& w : p->warnings) EXPECT_EQ(w.find("name the same GPU"), std::string::npos) << w;
  const std::string expected =
      "2 of the 3 ranks name the same GPU as another rank; over NCCL, which refuses two ranks on one GPU, they are "
      "GPUs of different hosts";
  EXPECT_NE(std::find(p->assumptions.begin(), p->assumptions.end(), expected), p->assumptions.end());
}

TEST(WhatifBalancedRanks, BalancedRanksAreNothingToChange) {
  const Trace t =
      merge(gloo_rank(0, 2, 100, {{100, 120}, {220, 240}}, 300), gloo_rank(1, 2, 200, {{100, 120}, {220, 240}}, 300));
  const Expected<Prediction> p = balanced(t);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("no rank made the others wait"), std::string::npos) << p.error().message;
}

TEST(WhatifBalancedRanks, ATraceOfOneRankIsRefused) {
  const Expected<Prediction> p = balanced(gloo_rank(0, 1, 100, {{100, 120}}, 300));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message,
            "balanced-ranks: this trace is not a run merged from several ranks: there is no rank to balance");
}

TEST(WhatifBalancedRanks, ItIsNotCombinedWithReplayedChanges) {
  const std::vector<Change> changes = {*parse_change("balanced-ranks"), *parse_change("streams")};
  const Expected<Prediction> p = predict(three_ranks_one_slow(), changes);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("give it alone"), std::string::npos) << p.error().message;
}

}  // namespace
}  // namespace gtv::whatif
