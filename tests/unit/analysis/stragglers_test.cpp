// Stragglers and communication per rank in a run merged from two synthetic rank files, against hand-computed
// answers.
#include "gtv/analysis/stragglers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gtv/analysis/communication.h"
#include "gtv/analysis/report.h"
#include "gtv/analysis/summary.h"
#include "gtv/io/trace_file.h"
#include "gtv/model/rank_merge.h"
#include "trace_helpers.h"

namespace gtv::analysis {
namespace {

using testing::build;
using testing::host_call;
using testing::kernel;

constexpr TimeNs kUs = 1000;
constexpr const char* kAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

// One rank on its cuda:0: a 100 us GEMM at 20 us launched from its host, then all-reduces [start, end).
// With wait_and_launch, the host then waits in cudaStreamSynchronize through the last all-reduce and launches one
// more GEMM after it.
Trace rank_file(std::int64_t rank, std::int64_t pid, const std::vector<std::pair<TimeNs, TimeNs>>& allreduces,
                bool wait_and_launch = false) {
  TraceBuilder b;
  b.metadata().distributed = {rank, 2, "nccl"};
  host_call(b, pid, pid, "cudaLaunchKernel", 10 * kUs, 5 * kUs, EventKind::Runtime, 1);
  kernel(b, 0, 7, "sm90_xmma_gemm_f32f32", 20 * kUs, 100 * kUs, 1);
  for (const auto& [start, end] : allreduces) kernel(b, 0, 7, kAllReduce, start, end - start);
  if (wait_and_launch) {
    const TimeNs last_end = allreduces.back().second;
    host_call(b, pid, pid, "cudaStreamSynchronize", allreduces.back().first, last_end + kUs - allreduces.back().first,
              EventKind::Sync);
    host_call(b, pid, pid, "cudaLaunchKernel", last_end + 5 * kUs, 5 * kUs, EventKind::Runtime, 99);
    kernel(b, 0, 7, "sm90_xmma_gemm_f32f32", last_end + 20 * kUs, 100 * kUs, 99);
  }
  return build(b);
}

Trace merged(const Trace& a, const Trace& b) {
  const std::vector<RankFile> files{{&a, "rank0.json"}, {&b, "rank1.json"}};
  Expected<RankMerge> m = merge_ranks(files);
  if (!m) throw std::runtime_error(m.error().message);
  return std::move(m->trace);
}

// Rank 1 starts each all-reduce 150, 100 and 150 us after rank 0: it arrived last at all 3, and rank 0's kernels
// waited 400 us for it.
TEST(Stragglers, TheRankThatArrivesLastIsNamedWithTheWaitItCaused) {
  const Trace r0 = rank_file(0, 100, {{200 * kUs, 400 * kUs}, {600 * kUs, 800 * kUs}, {1000 * kUs, 1200 * kUs}});
  const Trace r1 = rank_file(1, 200, {{350 * kUs, 401 * kUs}, {700 * kUs, 803 * kUs}, {1150 * kUs, 1202 * kUs}});
  const Trace t = merged(r0, r1);
  const Stragglers s = analyze_stragglers(t);
  EXPECT_EQ(s.ranks, (std::vector<std::int64_t>{0, 1}));
  ASSERT_EQ(s.collectives.size(), 3u);
  EXPECT_EQ(s.collectives[1].last, 1u);
  EXPECT_EQ(s.collectives[1].spread_ns, 100 * kUs);
  EXPECT_EQ(s.collectives[1].wait_caused_ns, 100 * kUs);
  ASSERT_EQ(s.per_rank.size(), 2u);
  EXPECT_EQ(s.per_rank[1].arrived_last, 3u);
  EXPECT_EQ(s.per_rank[1].caused_ns, 400 * kUs);
  EXPECT_EQ(s.per_rank[0].waited_ns, 400 * kUs);
  EXPECT_EQ(s.per_rank[1].waited_ns, 0);
  EXPECT_EQ(
      s.headline,
      "Over the whole trace, rank 1 arrived last at 3 of 3 all-reduces; the others waited 400.0 us in total for it.");
  EXPECT_EQ(s.clock_residual_ns, 3 * kUs);

  // The report leads with it and has the section; communication is per rank.
  const Report report = analyze(t);
  ASSERT_GE(report.verdict.size(), 2u);
  EXPECT_EQ(report.verdict[1], s.headline);
  const std::string text = format_report(report, Format::Text);
  EXPECT_NE(text.find("Ranks and collectives"), std::string::npos);
  EXPECT_NE(text.find("all-reduce #2"), std::string::npos) << text;
  const Communication& c = report.communication;
  ASSERT_EQ(c.devices.size(), 2u);
  EXPECT_EQ(c.devices[0].communication_ns, 600 * kUs);
  EXPECT_EQ(c.devices[1].communication_ns, 206 * kUs);  // 51 + 103 + 52 us
  EXPECT_EQ(c.devices[1].computation_ns, 100 * kUs);
  EXPECT_EQ(c.lines[1].rfind("rank 1 · GPU 0: communication kernels (3) ran 206.0 us", 0), 0u) << c.lines[1];
}

// Rank 0's host waits in cudaStreamSynchronize through its third all-reduce, for which rank 1 arrived last. The
// run's critical path runs on rank 1 from its first launch (10 us) until its third arrival (1150 us), then comes back
// to rank 0 through that all-reduce's transfer. Rank 0 waited for rank 1 only at its all-reduces, [200,350),
// [600,700) and [1000,1150): 400 us, inside its NCCL kernels, which keep its GPU busy while they wait. So none of
// rank 0's GPU idle time is waiting for rank 1 (removing rank 1's lateness gives none of it back): its idle time
// while the path ran on rank 1, [10,20), [120,200), [400,600) and [800,1000) (490 us), is rank 1's work bounding the
// run while rank 0 was not waiting for it.
TEST(Stragglers, AGpuWaitsForAPeerOnlyWhileItsRankWaitedAtACollective) {
  const Trace r0 = rank_file(0, 100, {{200 * kUs, 400 * kUs}, {600 * kUs, 800 * kUs}, {1000 * kUs, 1200 * kUs}}, true);
  const Trace r1 = rank_file(1, 200, {{350 * kUs, 401 * kUs}, {700 * kUs, 803 * kUs}, {1150 * kUs, 1202 * kUs}});
  const Report report = analyze(merged(r0, r1));
  const std::string text = format_report(report, Format::Text);
  TimeNs waiting_ns = 0, not_waiting_ns = 0;
  for (const IdleInterval& i : report.idle.intervals) {
    if (i.device != 0) continue;
    if (i.cause == IdleCause::PeerRank) waiting_ns += i.end_ns - i.start_ns;
    if (i.detail == "rank 1's work (the critical path was there; this rank was not waiting for it then)")
      not_waiting_ns += i.end_ns - i.start_ns;
  }
  EXPECT_EQ(waiting_ns, 0) << text;
  EXPECT_EQ(not_waiting_ns, 490 * kUs) << text;
  EXPECT_EQ(report.stragglers.per_rank[0].waited_ns, 400 * kUs);
  // The critical path says how long the path ran on rank 1 and, apart, how long rank 0 waited for it then.
  bool said = false;
  for (const std::string& line : report.critical.lines)
    said = said || line ==
                       "Waiting for rank 1: the path comes back to rank 0 through 1 collective(s) after 1.14 ms on "
                       "rank 1 (87% of the path): rank 0 waited there for rank 1 to arrive; in that time it waited for "
                       "rank 1 400.0 us (at 3 collective(s)) and was not waiting for it the other 740.0 us.";
  EXPECT_TRUE(said) << ::testing::PrintToString(report.critical.lines);
}

// Each rank last at one of two: no single straggler, and the sentence says so.
TEST(Stragglers, NoStragglerWhenRanksTakeTurns) {
  const Trace r0 = rank_file(0, 100, {{200 * kUs, 400 * kUs}, {700 * kUs, 800 * kUs}});
  const Trace r1 = rank_file(1, 200, {{300 * kUs, 400 * kUs}, {600 * kUs, 800 * kUs}});
  const Stragglers s = analyze_stragglers(merged(r0, r1));
  ASSERT_EQ(s.collectives.size(), 2u);
  EXPECT_EQ(s.headline,
            "Over the whole trace, no rank arrived last at most all-reduces (rank 0 at 1 of 2): no single straggler.");
}

TEST(Stragglers, NothingForATraceOfOneRank) {
  const Trace r0 = rank_file(0, 100, {{200 * kUs, 400 * kUs}});
  const Stragglers s = analyze_stragglers(r0);
  EXPECT_TRUE(s.lines.empty());
  EXPECT_TRUE(s.headline.empty());
  EXPECT_EQ(format_report(analyze(r0), Format::Text).find("Ranks and collectives"), std::string::npos);
}

// A real pair: DistributedDataParallel with Gloo, two processes on one H200, each rank under torch.profiler
// (tests/data/pytorch/record_fixtures.py ddp_gloo); rank 1 sleeps 2 ms before each step.
TEST(Stragglers, TheSleepingRankOfARealGlooPairArrivesLast) {
  const std::string dir = std::string(GTV_TEST_DATA_DIR) + "/pytorch/";
  Expected<Trace> r0 = io::read_trace(dir + "ddp_gloo_rank0.json.gz");
  Expected<Trace> r1 = io::read_trace(dir + "ddp_gloo_rank1.json.gz");
  ASSERT_TRUE(r0.ok() && r1.ok());
  const std::vector<RankFile> files{{&*r1, "rank1"}, {&*r0, "rank0"}};
  Expected<RankMerge> m = merge_ranks(files);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Trace& run = m->trace;
  EXPECT_EQ(run.event_count(), r0->event_count() + r1->event_count());
  EXPECT_EQ(run.flows().size(), r0->flows().size() + r1->flows().size());
  EXPECT_EQ(run.backward_links().size(), r0->backward_links().size() + r1->backward_links().size());
  ASSERT_EQ(run.metadata().ranks.size(), 2u);
  EXPECT_EQ(run.metadata().ranks[0].source, "rank0");
  EXPECT_EQ(run.metadata().ranks[1].local_devices, (std::vector<std::int64_t>{0}));  // both on cuda:0
  EXPECT_EQ(run.metadata().distributed.backend, "gloo");
  // Gloo's all-reduce ranges end together on one host's clock: 51.7 us apart at most in this recording.
  EXPECT_GE(run.metadata().clock.collectives_checked, 3);
  EXPECT_LT(run.metadata().clock.residual_ns, 100 * kUs);
  const Stragglers s = analyze_stragglers(run);
  ASSERT_EQ(s.per_rank.size(), 2u);
  EXPECT_EQ(s.per_rank[1].arrived_last, s.collectives.size());
  EXPECT_GT(s.per_rank[1].caused_ns, static_cast<TimeNs>(s.collectives.size()) * 1000 * kUs);  // >= 1 ms each
  EXPECT_EQ(s.headline.rfind("Over the whole trace, rank 1 arrived last at 3 of 3 all-reduces", 0), 0u) << s.headline;
}

// gtv's own CPU recording of four Gloo ranks, rank 2 sleeping 5 ms before each step (resources/traces/cpu): the
// analysis names rank 2 at every all-reduce after the first (where rank 1 was still starting) and the others'
// typical wait there is the injected delay, within the scheduling noise of four ranks on two cores.
TEST(Stragglers, TheInjectedStragglerOfAGlooRecordingIsNamedWithItsDelay) {
  const std::string path = std::string(GTV_TEST_DATA_DIR) + "/../../resources/traces/cpu/ddp-gloo4-straggler.json.gz";
  Expected<Trace> run = io::read_trace(path);
  ASSERT_TRUE(run.ok()) << run.error().message;
  std::vector<TimeNs> injected;
  for (const Range& r : run->ranges())
    if (r.name == "injected delay") injected.push_back(r.end_ns - r.start_ns);
  ASSERT_EQ(injected.size(), 11u);  // one warm-up step and ten timed ones
  for (const TimeNs d : injected) EXPECT_GE(d, 5000 * kUs);
  const Stragglers s = analyze_stragglers(*run);
  ASSERT_EQ(s.ranks, (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(s.headline.rfind("Over the whole trace, rank 2 arrived last at 10 of 11 all-reduces; ", 0), 0u)
      << s.headline;
  std::vector<TimeNs> waits;  // the median victim's wait at each all-reduce rank 2 held up
  std::size_t all_reduces = 0, named = 0;
  for (const CollectiveArrivals& c : s.collectives) {
    if (c.kind != "AllReduce") continue;
    ++all_reduces;
    if (c.culprit != 2) continue;
    ++named;
    std::vector<TimeNs> victims;
    for (std::size_t r = 0; r < c.wait_ns.size(); ++r)
      if (r != 2) victims.push_back(c.wait_ns[r]);
    std::sort(victims.begin(), victims.end());
    waits.push_back(victims[1]);
  }
  EXPECT_EQ(all_reduces, 11u);
  EXPECT_GE(named, 10u);
  std::sort(waits.begin(), waits.end());
  const TimeNs median = waits[waits.size() / 2];
  EXPECT_GE(median, 3000 * kUs);
  EXPECT_LE(median, 8000 * kUs);
}

// Two of gtv's own recordings (both name their first GPU cuda:0) merged as two ranks: the warm-up sentence names
// each GPU with its rank, never by the merged id alone.
TEST(Stragglers, WarmUpOfAMergedRunNamesGpusWithTheirRank) {
  const std::string dir = std::string(GTV_TEST_DATA_DIR) + "/../../resources/traces/h200x2/";
  Expected<Trace> a = io::read_trace(dir + "warmup.json.gz");
  Expected<Trace> b = io::read_trace(dir + "timing-methods.json.gz");
  ASSERT_TRUE(a.ok() && b.ok());
  const std::vector<RankFile> files{{&*a, "warmup"}, {&*b, "timing-methods"}};
  Expected<RankMerge> m = merge_ranks(files);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Report report = analyze(m->trace);
  EXPECT_NE(report.warmup.headline.find("context creation "), std::string::npos) << report.warmup.headline;
  EXPECT_NE(report.warmup.headline.find(" on rank 0 · GPU 0 and rank 1 · GPU 0"), std::string::npos)
      << report.warmup.headline;
  // Host threads of first iterations with their rank too.
  ASSERT_FALSE(report.warmup.iterations.empty());
  for (const IterationWarmUp& it : report.warmup.iterations)
    EXPECT_EQ(it.rank, it.pid == a->processes().front().pid ? 0 : 1);
  EXPECT_NE(report.warmup.headline.find("the first iteration of rank 0 process "), std::string::npos)
      << report.warmup.headline;
}

// A merged file may name thousands of GPUs per rank: the summary's line about the ranks names the first few and
// counts the rest, and the collectives of every rank are found in one pass over the lanes.
TEST(Stragglers, ARunWithThousandsOfGpusIsSummedUpNotListed) {
  TraceBuilder b;
  constexpr std::int64_t kGpus = 20'000;
  RankInfo r0, r1;
  r0.rank = 0;
  r1.rank = 1;
  for (std::int64_t d = 0; d < kGpus; ++d) {
    kernel(b, d, 7, kAllReduce, 10 * kUs + (d % 2) * kUs, 5 * kUs);
    RankInfo& r = d % 2 == 0 ? r0 : r1;
    r.devices.push_back(d);
    r.local_devices.push_back(d / 2);
  }
  b.metadata().ranks = {r0, r1};
  b.metadata().distributed = {-1, 2, "nccl"};
  const Trace t = build(b);
  const TraceSummary summary = summarize(t);
  const std::string line = ranks_text(summary);
  EXPECT_LT(line.size(), 300u) << line;
  EXPECT_NE(line.find("(GPU 0, 1, 2, 3, 4, 5, 6, 7 and 9,992 more)"), std::string::npos) << line;
  const Stragglers s = analyze_stragglers(t);
  ASSERT_EQ(s.per_rank.size(), 2u);
  EXPECT_EQ(s.collectives.size(), static_cast<std::size_t>(kGpus / 2));  // the k-th of each rank's 10,000
  EXPECT_EQ(s.per_rank[1].arrived_last, static_cast<std::size_t>(kGpus / 2));
}

}  // namespace
}  // namespace gtv::analysis
