// The waits of collectives across ranks, against hand-computed answers: only waits that happened count, a
// broadcast's root waits for nobody, a late peer is no warm-up, clocks far apart are said and not believed,
// computation is kept apart from communication, and two ranks of one run are not compared as two runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gtv/analysis/compare.h"
#include "gtv/analysis/report.h"
#include "gtv/analysis/stragglers.h"
#include "gtv/model/rank_merge.h"
#include "trace_helpers.h"

namespace gtv::analysis {
namespace {

using testing::build;
using testing::make_event;

constexpr TimeNs kUs = 1000;
constexpr TimeNs kOrigin = 1'790'857'026'000'000'000;
constexpr const char* kAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
constexpr const char* kBroadcast = "ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
constexpr const char* kReduce = "ncclDevKernel_Reduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

struct Work {
  const char* name;
  TimeNs start_us;
  TimeNs end_us;
  std::int64_t stream = 7;
};

// One rank's file: its kernels on its cuda:0 (with a launch configuration, so first runs are compared), times
// relative to its origin; clock_error_ns is how far its clock reads ahead of the truth.
Trace rank_file(std::int64_t rank, const std::vector<Work>& work, TimeNs clock_error_ns = 0,
                std::int64_t world_size = 2) {
  TraceBuilder b;
  b.metadata().origin_unix_ns = kOrigin;
  b.metadata().distributed = {rank, world_size, "nccl"};
  KernelDetail detail;
  detail.grid[0] = 4;
  detail.grid[1] = detail.grid[2] = 1;
  detail.block[0] = 256;
  detail.block[1] = detail.block[2] = 1;
  for (const Work& w : work)
    b.add_kernel(
        b.lane(gpu_lane_key(0, w.stream)),
        make_event(b, w.name, w.start_us * kUs + clock_error_ns, (w.end_us - w.start_us) * kUs, EventKind::Kernel),
        detail);
  return build(b);
}

Trace merged(const Trace& a, const Trace& b, ClockMethod clock = ClockMethod::WallClock,
             std::vector<std::string>* warnings = nullptr) {
  const std::vector<RankFile> files{{&a, "rank0.json"}, {&b, "rank1.json"}};
  RankMergeOptions options;
  options.clock = clock;
  Expected<RankMerge> m = merge_ranks(files, options);
  if (!m) throw std::runtime_error(m.error().message);
  if (warnings != nullptr) *warnings = m->warnings;
  return std::move(m->trace);
}

// Rank 0 is the broadcast's root: it finishes [100, 150) before rank 1 starts its part [200, 260): nobody waited.
// Rank 1 then arrives 9,980 us late at the first all-reduce (rank 0 started at 300, rank 1 at 10,280) and 100 us
// late at the second and third: rank 0 waited 9,980 + 100 + 100 = 10,180 us, all for rank 1.
struct LatePeer {
  Trace r0 = rank_file(
      0,
      {{kBroadcast, 100, 150}, {kAllReduce, 300, 10'300}, {kAllReduce, 10'500, 10'700}, {kAllReduce, 11'000, 11'200}});
  Trace r1 = rank_file(1, {{kBroadcast, 200, 260},
                           {kAllReduce, 10'280, 10'302},
                           {kAllReduce, 10'600, 10'701},
                           {kAllReduce, 11'100, 11'202}});
};

TEST(CollectiveWaits, ABroadcastRootWaitsForNobodyAndOnlyWaitsThatHappenedCount) {
  const LatePeer p;
  const Stragglers s = analyze_stragglers(merged(p.r0, p.r1));
  ASSERT_EQ(s.collectives.size(), 4u);
  const CollectiveArrivals& broadcast = s.collectives[0];
  EXPECT_EQ(broadcast.kind, "Broadcast");
  EXPECT_EQ(broadcast.root, 0);
  EXPECT_TRUE(broadcast.root_inferred);
  EXPECT_EQ(broadcast.wait_ns, (std::vector<TimeNs>{0, 0}));
  EXPECT_EQ(broadcast.culprit, -1);
  EXPECT_EQ(broadcast.spread_ns, 100 * kUs);  // the skew is still said
  const CollectiveArrivals& first = s.collectives[1];
  EXPECT_EQ(first.wait_ns, (std::vector<TimeNs>{9'980 * kUs, 0}));
  EXPECT_EQ(first.transfer_ns, (std::vector<TimeNs>{20 * kUs, 22 * kUs}));  // after 10,280 us
  EXPECT_EQ(first.culprit, 1);
  ASSERT_EQ(s.per_rank.size(), 2u);
  EXPECT_EQ(s.per_rank[1].arrived_last, 3u);
  EXPECT_EQ(s.per_rank[1].caused_ns, 10'180 * kUs);
  EXPECT_EQ(s.per_rank[0].waited_ns, 10'180 * kUs);
  EXPECT_EQ(s.per_rank[1].waited_ns, 0);
  EXPECT_EQ(s.headline,
            "Over the whole trace, rank 1 kept the others waiting at 3 of 4 collectives (3 all-reduces, 1 broadcast); "
            "the others waited "
            "10.2 ms in total for it.");
}

// The clock is checked on the all-reduces only: their ends differ by 2, 1 and 2 us (median 2 us, all within 1 us
// of it), while the broadcast's ends are 110 us apart by design.
TEST(CollectiveWaits, ClockErrorBarsComeFromCollectivesThatEndTogether) {
  const LatePeer p;
  const Trace run = merged(p.r0, p.r1);
  EXPECT_EQ(run.metadata().clock.residual_ns, 2 * kUs);
  EXPECT_EQ(run.metadata().clock.collectives_checked, 3);
  EXPECT_NE(run.metadata().clock.basis.find("(3 all-reduces; broadcasts and reduces end apart by design)"),
            std::string::npos)
      << run.metadata().clock.basis;
  const Stragglers s = analyze_stragglers(run);
  EXPECT_EQ(s.per_rank[1].clock_offset_ns, 2 * kUs);
  EXPECT_EQ(s.per_rank[1].clock_uncertainty_ns, 1 * kUs);
  bool said = false;
  for (const std::string& line : s.lines)
    said = said || line ==
                       "Clock uncertainty: from the ends of 3 all-reduces as merged (wall clock), rank 1's clock "
                       "reads +2.00 us +/- 1.00 us against rank 0's: differences of arrivals below 1.00 us are "
                       "within it.";
  EXPECT_TRUE(said) << ::testing::PrintToString(s.lines);
}

// Rank 0's first all-reduce ran 10 ms because rank 1 arrived late, not because it was a first run.
TEST(CollectiveWaits, ALatePeerIsNoWarmUp) {
  const LatePeer p;
  const Report own = analyze(p.r0);
  EXPECT_EQ(own.warmup.headline.find("first runs"), std::string::npos) << own.warmup.headline;
  const Report run = analyze(merged(p.r0, p.r1));
  EXPECT_EQ(run.warmup.headline.find("first runs"), std::string::npos) << run.warmup.headline;
  // The same shape of kernel that is not NCCL's is still warm-up.
  const Trace compute =
      rank_file(0, {{"sm90_gemm", 300, 10'300}, {"sm90_gemm", 10'500, 10'700}, {"sm90_gemm", 11'000, 11'200}});
  EXPECT_NE(analyze(compute).warmup.headline.find("first runs of 1 kernel"), std::string::npos)
      << analyze(compute).warmup.headline;
}

// Rank 1's clock reads 30 s ahead. On the wall clock its all-reduces end 30 s after rank 0's: the merge says so and
// points to --clock collectives, and no wait across ranks is believed (each rank's part ended before the other
// arrived). Aligned on collectives, the waits of the true run come back.
TEST(CollectiveWaits, ClocksFarApartAreSaidAndTheirWaitsNotCounted) {
  const LatePeer p;
  const Trace r1 = rank_file(1,
                             {{kBroadcast, 200, 260},
                              {kAllReduce, 10'280, 10'302},
                              {kAllReduce, 10'600, 10'701},
                              {kAllReduce, 11'100, 11'202}},
                             30 * kNsPerS);
  std::vector<std::string> warnings;
  const Trace wall = merged(p.r0, r1, ClockMethod::WallClock, &warnings);
  EXPECT_NE(std::find(warnings.begin(), warnings.end(),
                      "rank 1's 3 all-reduces end 30.0 s after rank 0's on the wall clock, yet agree within +/- "
                      "1.00 us of that: the clocks disagree and waits across ranks are wrong by as much; merge with "
                      "--clock collectives"),
            warnings.end())
      << ::testing::PrintToString(warnings);
  const Stragglers s = analyze_stragglers(wall);
  EXPECT_EQ(s.per_rank[0].waited_ns, 0);
  EXPECT_EQ(s.per_rank[1].waited_ns, 0);
  EXPECT_EQ(s.clock_inconsistent, 3u);  // the broadcast's root (rank 0) ended first either way
  EXPECT_EQ(s.headline,
            "Over the whole trace, who waited for whom at the 4 collectives (3 all-reduces, 1 broadcast) is unknown: "
            "the ranks' clocks "
            "contradict them (rank 1's reads +30.0 s against rank 0's); merge with --clock collectives.");
  const std::string text = format_report(analyze(wall), Format::Text);
  EXPECT_NE(text.find("merge with --clock collectives"), std::string::npos) << text;
  EXPECT_EQ(text.find("450"), std::string::npos) << text;

  // Aligned on the median end difference, 30 s + 2 us: rank 1 arrives 2 us earlier than in the run above.
  const Stragglers aligned = analyze_stragglers(merged(p.r0, r1, ClockMethod::Collectives));
  EXPECT_EQ(aligned.per_rank[1].caused_ns, (10'180 - 3 * 2) * kUs);
  EXPECT_EQ(aligned.clock_inconsistent, 0u);
}

// A reduce's root (rank 1, which ends last) waits for the last of the others; nobody waits for the root.
TEST(CollectiveWaits, AReduceRootWaitsForTheOthers) {
  const Trace r0 = rank_file(0, {{kReduce, 500, 520}});
  const Trace r1 = rank_file(1, {{kReduce, 100, 530}});
  const Stragglers s = analyze_stragglers(merged(r0, r1));
  ASSERT_EQ(s.collectives.size(), 1u);
  EXPECT_EQ(s.collectives[0].root, 1);
  EXPECT_EQ(s.collectives[0].wait_ns, (std::vector<TimeNs>{0, 400 * kUs}));
  EXPECT_EQ(s.collectives[0].culprit, 0);
  EXPECT_EQ(s.headline,
            "Over the whole trace, rank 0 kept the others waiting at 1 of 1 reduces; the others waited 400.0 us in "
            "total for it.");
}

// Gloo's host ranges do not end in the order NCCL's kernels do: without a recorded root, a broadcast on Gloo is
// not given one, and its waits are not counted.
TEST(CollectiveWaits, AGlooBroadcastWithoutARootCountsNoWaits) {
  auto rank = [](std::int64_t r, TimeNs start_us, TimeNs end_us) {
    TraceBuilder b;
    b.metadata().origin_unix_ns = kOrigin;
    b.metadata().distributed = {r, 2, "gloo"};
    testing::host_call(b, 100 + r, 100 + r, "gloo:broadcast", start_us * kUs, (end_us - start_us) * kUs,
                       EventKind::Annotation);
    return build(b);
  };
  const Stragglers s = analyze_stragglers(merged(rank(0, 100, 300), rank(1, 50, 120)));
  ASSERT_EQ(s.collectives.size(), 1u);
  EXPECT_FALSE(s.collectives[0].analysed);
  EXPECT_EQ(s.collectives[0].root, -1);
  EXPECT_EQ(s.per_rank[0].waited_ns + s.per_rank[1].waited_ns, 0);
  EXPECT_NE(std::find(s.lines.begin(), s.lines.end(),
                      "1 broadcast on Gloo without a recorded root (whose host ranges do not end in the order that "
                      "would tell it): their waits are not counted."),
            s.lines.end())
      << ::testing::PrintToString(s.lines);
}

// Rank 0 computes [0, 100) us and then spins in an all-reduce [100, 400) waiting for rank 1, which computes
// [0, 300) and all-reduces [300, 400). Both GPUs are busy [0, 400): parallelism 2.00 of 2; computation alone is
// 100 + 300 us in a union of 300 us: 1.33.
TEST(CollectiveWaits, ParallelismOfComputationAloneIsSaidBesideTheTotal) {
  const Trace r0 = rank_file(0, {{"sm90_gemm", 0, 100}, {kAllReduce, 100, 400}});
  const Trace r1 = rank_file(1, {{"sm90_gemm", 0, 300}, {kAllReduce, 300, 400}});
  const Report report = analyze(merged(r0, r1));
  const std::string& verdict = report.concurrency.verdict;
  EXPECT_NE(verdict.find("effective parallelism 2.00 of 2 possible; computation alone (communication kernels, which "
                         "run while they wait for peers, left out): effective parallelism 1.33 over 300.0 us busy"),
            std::string::npos)
      << verdict;
}

// One GPU with a compute stream and a communication stream: stream parallelism counts the spinning all-reduce;
// computation alone ran on one stream.
TEST(CollectiveWaits, StreamParallelismOfOneRankSaysItsComputationAlone) {
  const Trace r0 = rank_file(0, {{"sm90_gemm", 0, 300, 7}, {kAllReduce, 100, 400, 20}});
  const Report report = analyze(r0);
  EXPECT_NE(report.concurrency.verdict.find("communication kernels alone (which run while they wait for peers) "
                                            "100.0 us of it, computation 300.0 us with stream parallelism 1.00 on "
                                            "its own"),
            std::string::npos)
      << report.concurrency.verdict;
}

// Rank 1 sleeps on its host until 10,270 us, then launches its all-reduce; rank 0 launched its own at 295 us and
// its host keeps working until 12,000 us, which ends the run. The run's critical path stays on rank 0's host, so
// rank 1's idle GPU is "bound by rank 0's work", never "waiting for rank 0": rank 1 is the one the other waited for.
TEST(CollectiveWaits, TheLateRankIsNotSaidToWaitForTheOthers) {
  auto rank = [](std::int64_t r, std::int64_t pid, TimeNs launch_us, TimeNs start_us, TimeNs end_us, TimeNs last_us) {
    TraceBuilder b;
    b.metadata().origin_unix_ns = kOrigin;
    b.metadata().distributed = {r, 2, "nccl"};
    testing::host_call(b, pid, pid, "cudaLaunchKernel", launch_us * kUs, 5 * kUs, EventKind::Runtime, 1);
    testing::kernel(b, 0, 7, kAllReduce, start_us * kUs, (end_us - start_us) * kUs, 1);
    testing::host_call(b, pid, pid, "cudaLaunchKernel", last_us * kUs, 5 * kUs, EventKind::Runtime, 2);
    return build(b);
  };
  const Trace r0 = rank(0, 100, 290, 300, 10'300, 12'000);
  const Trace r1 = rank(1, 200, 10'270, 10'280, 10'302, 10'400);
  const Report report = analyze(merged(r0, r1));
  TimeNs bound_ns = 0;
  for (const IdleInterval& i : report.idle.intervals) {
    if (i.device != 1) continue;
    EXPECT_NE(i.detail, "waiting for rank 0") << i.start_ns << " " << i.end_ns;
    if (i.cause == IdleCause::OtherGpuBound &&
        i.detail == "rank 0's work (the critical path stayed there: nothing of this rank held it up)")
      bound_ns += i.end_ns - i.start_ns;
  }
  EXPECT_GT(bound_ns, 10'000 * kUs) << format_report(report, Format::Text);
}

TEST(CollectiveWaits, TwoRanksOfOneRunAreNotComparedAsTwoRuns) {
  const LatePeer p;
  const Comparison c = compare(p.r0, p.r1, "rank0.json", "rank1.json");
  EXPECT_TRUE(c.same_run);
  // The headline is the note, never a speedup said before it.
  EXPECT_EQ(c.verdict.rfind("rank0.json and rank1.json are ranks 0 and 1 of one run (world size 2, recorded at the "
                            "same time): their difference is what one rank waited for the other, not a speedup; merge "
                            "the two files (gtv-cli merge) to see who waited for whom. ",
                            0),
            0u)
      << c.verdict;
  EXPECT_EQ(c.verdict.find("faster"), std::string::npos) << c.verdict;
  EXPECT_EQ(c.verdict.find("slower"), std::string::npos) << c.verdict;
  for (const std::string& w : c.warnings) EXPECT_EQ(w.find("of one run"), std::string::npos) << w;
  EXPECT_EQ(format_comparison(c, Format::Text).find("speedup on the"), std::string::npos);
  const Comparison same = compare(p.r0, p.r0, "a.json", "b.json");
  for (const std::string& w : same.warnings) EXPECT_EQ(w.find("of one run"), std::string::npos) << w;
}

}  // namespace
}  // namespace gtv::analysis
