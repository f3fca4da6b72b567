// balanced-ranks on runs merged from synthetic Gloo rank files, against timelines worked out by hand.
#include <gtest/gtest.h>

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
