// merge_ranks: per-rank files of one run as one trace, with hand-computed clocks, ids and counts.
#include "gtv/model/rank_merge.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <set>

#include "gtv/model/collective_clock.h"
#include "gtv/model/collectives.h"
#include "gtv/model/ranks.h"
#include "gtv/model/trace_builder.h"

namespace gtv {
namespace {

constexpr TimeNs kUs = 1000;
constexpr TimeNs kOrigin = 1'790'857'026'000'000'000;  // a Kineto baseTimeNanoseconds

struct RankSpec {
  std::int64_t rank = 0;  // -1: no distributedInfo
  std::int64_t world_size = 2;
  std::int64_t device = 0;
  std::int64_t pid = 100;
  TimeNs origin_ns = kOrigin;
  TimeNs clock_error_ns = 0;                // how far this rank's clock runs ahead of the truth
  std::vector<TimeNs> allreduce_starts_ns;  // true times
  std::vector<TimeNs> allreduce_ends_ns;
  std::map<std::string, std::string> config;
  std::vector<RecorderCost> recorder_costs;
};

void add(TraceBuilder& b, LaneIndex lane, std::string_view name, TimeNs start_ns, TimeNs duration_ns, EventKind kind,
         std::uint64_t correlation) {
  Event e;
  e.name = b.intern(name);
  e.start_ns = start_ns;
  e.duration_ns = duration_ns;
  e.kind = kind;
  e.correlation_id = correlation;
  if (kind == EventKind::Kernel)
    b.add_kernel(lane, e, KernelDetail{});
  else
    b.add_event(lane, e);
}

// One rank: a compute kernel launched by its host thread (a flow), then its all-reduces, times as its clock reads
// them (truth + clock error), relative to its origin.
Trace rank_trace(const RankSpec& s) {
  TraceBuilder b;
  b.metadata().origin_unix_ns = s.origin_ns;
  b.metadata().source_tool = "PyTorch Profiler (Kineto)";
  if (s.rank >= 0) b.metadata().distributed = {s.rank, s.world_size, "nccl"};
  b.metadata().config = s.config;
  b.metadata().recorder_costs = s.recorder_costs;
  const TimeNs shift = kOrigin - s.origin_ns + s.clock_error_ns;
  const LaneIndex host = b.lane(host_lane_key(s.pid, s.pid));
  const LaneIndex gpu = b.lane(gpu_lane_key(s.device, 7));
  b.process(s.pid).name = "python3";
  b.add_device(DeviceInfo{static_cast<std::int32_t>(s.device), "NVIDIA H200", 0, 9, 0, 132});
  add(b, host, "cudaLaunchKernel", shift + 10 * kUs, 5 * kUs, EventKind::Runtime, 1);
  add(b, gpu, "volta_sgemm_128x64_nn", shift + 20 * kUs, 100 * kUs, EventKind::Kernel, 1);
  for (std::size_t k = 0; k < s.allreduce_starts_ns.size(); ++k)
    add(b, gpu, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
        shift + s.allreduce_starts_ns[k], s.allreduce_ends_ns[k] - s.allreduce_starts_ns[k], EventKind::Kernel,
        static_cast<std::uint64_t>(k + 2));
  Expected<Trace> t = b.build();
  EXPECT_TRUE(t.ok()) << t.error().message;
  return std::move(t).value();
}

// Two ranks on one GPU id each (both see cuda:0), one host pid each (both 100): rank 1 arrives last at every
// all-reduce; the ends agree except for 1-3 us of jitter.
struct Pair {
  Trace rank0, rank1;
};
Pair straggler_pair(TimeNs rank1_clock_error_ns, TimeNs rank1_origin_ns = kOrigin, std::int64_t rank1_pid = 100) {
  RankSpec r0;
  r0.allreduce_starts_ns = {200 * kUs, 600 * kUs, 1000 * kUs};
  r0.allreduce_ends_ns = {400 * kUs, 800 * kUs, 1200 * kUs};
  RankSpec r1;
  r1.rank = 1;
  r1.origin_ns = rank1_origin_ns;
  r1.pid = rank1_pid;
  r1.clock_error_ns = rank1_clock_error_ns;
  r1.allreduce_starts_ns = {350 * kUs, 700 * kUs, 1150 * kUs};
  r1.allreduce_ends_ns = {401 * kUs, 803 * kUs, 1202 * kUs};
  return {rank_trace(r0), rank_trace(r1)};
}

Expected<RankMerge> merge(const Trace& a, const Trace& b, const RankMergeOptions& options = {}) {
  const std::vector<RankFile> files{{&a, "a.json"}, {&b, "b.json"}};
  return merge_ranks(files, options);
}

TEST(RankMerge, RanksComeFromDistributedInfoInRankOrder) {
  const Pair p = straggler_pair(0, kOrigin, 200);
  const Expected<RankMerge> m = merge(p.rank1, p.rank0);  // files in the other order
  ASSERT_TRUE(m.ok()) << m.error().message;
  const TraceMetadata& meta = m->trace.metadata();
  ASSERT_EQ(meta.ranks.size(), 2u);
  EXPECT_EQ(meta.ranks[0].rank, 0);
  EXPECT_EQ(meta.ranks[0].source, "b.json");
  EXPECT_EQ(meta.ranks[1].source, "a.json");
  EXPECT_EQ(meta.distributed.rank, -1);
  EXPECT_EQ(meta.distributed.world_size, 2);
  EXPECT_EQ(meta.distributed.backend, "nccl");
  ASSERT_EQ(m->warnings.size(), 1u);  // both name their GPU cuda:0
  EXPECT_EQ(m->warnings[0].rfind("ranks name the same GPU ids", 0), 0u) << m->warnings[0];
  EXPECT_EQ(meta.notes.at(0), "merge: " + m->warnings[0]);
}

TEST(RankMerge, TheRunKeepsTheSettingsEveryRankSharesAndTheCallersNotes) {
  RankSpec r0;
  r0.config = {{"hidden", "10000"}, {"rank", "0"}, {"devices", "0"}, {"only_rank0", "x"}};
  RankSpec r1;
  r1.rank = 1;
  r1.device = 1;
  r1.pid = 200;
  r1.config = {{"hidden", "10000"}, {"rank", "1"}, {"devices", "1"}};
  const Trace a = rank_trace(r0), b = rank_trace(r1);
  RankMergeOptions options;
  options.notes = {"every rank holds the same parameters"};
  const Expected<RankMerge> m = merge(a, b, options);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->trace.metadata().config, (std::map<std::string, std::string>{{"hidden", "10000"}}));
  ASSERT_FALSE(m->trace.metadata().notes.empty());
  EXPECT_EQ(m->trace.metadata().notes.back(), "every rank holds the same parameters");
}

TEST(RankMerge, SharedGpuIdsAndPidsAreRenumberedAndNamed) {
  const Pair p = straggler_pair(0);
  const Expected<RankMerge> m = merge(p.rank0, p.rank1);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Trace& t = m->trace;
  const TraceMetadata& meta = t.metadata();
  EXPECT_EQ(meta.ranks[0].devices, (std::vector<std::int64_t>{0}));
  EXPECT_EQ(meta.ranks[1].devices, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(meta.ranks[1].local_devices, (std::vector<std::int64_t>{0}));
  EXPECT_EQ(meta.ranks[0].pids, (std::vector<std::int64_t>{100}));
  EXPECT_EQ(meta.ranks[1].pids, (std::vector<std::int64_t>{10'000'100}));
  EXPECT_EQ(gpu_label(t, 1), "rank 1 · GPU 0");
  EXPECT_EQ(gpu_label(meta, 1), "rank 1 · GPU 0");
  const auto gpu1 = t.find_lane(gpu_lane_key(1, 7));
  ASSERT_TRUE(gpu1.has_value());
  EXPECT_EQ(t.lane(*gpu1).name, "rank 1 · GPU 0 · stream 7");
  EXPECT_EQ(rank_of_lane(t, t.lane(*gpu1))->rank, 1);
  const auto host1 = t.find_lane(host_lane_key(10'000'100, 100));
  ASSERT_TRUE(host1.has_value());
  EXPECT_EQ(t.lane(*host1).name, "rank 1 · thread 100");
  ASSERT_EQ(t.devices().size(), 2u);
  EXPECT_EQ(t.devices()[1].index, 1);
  ASSERT_EQ(m->warnings.size(), 2u);
  EXPECT_NE(m->warnings[1].find("rank 1's 100 as 10000100"), std::string::npos) << m->warnings[1];
}

// What recording cost each process stays with its process, under the pid the merge gave it.
TEST(RankMerge, EachProcesssRecorderCostFollowsItsPid) {
  RankSpec r0;
  r0.recorder_costs = {{100, 11'000, 2'000, 3'000, 1'000'000, 4, 50, 40}};
  RankSpec r1;
  r1.rank = 1;
  r1.recorder_costs = {{100, 22'000, 2'000, 3'000, 1'000'000, 4, 50, 45}};
  const Trace a = rank_trace(r0), b = rank_trace(r1);
  const Expected<RankMerge> m = merge(a, b);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const std::vector<RecorderCost>& costs = m->trace.metadata().recorder_costs;
  ASSERT_EQ(costs.size(), 2u);
  EXPECT_EQ(costs[0].pid, 100);
  EXPECT_EQ(costs[0].startup_ns, 11'000);
  EXPECT_EQ(costs[1].pid, 10'000'100);  // rank 1's pid 100, renumbered as its lanes are
  EXPECT_EQ(costs[1].startup_ns, 22'000);
  EXPECT_EQ(costs[1].records_kept, 45);
}

// Merging moves each rank's events as a block: its event and kernel counts, busy time and launch flows are the
// ones of its own file.
TEST(RankMerge, EachRanksEventsKernelsAndFlowsAreKept) {
  const Pair p = straggler_pair(0);
  const Expected<RankMerge> m = merge(p.rank0, p.rank1);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Trace& t = m->trace;
  EXPECT_EQ(t.event_count(), p.rank0.event_count() + p.rank1.event_count());
  EXPECT_EQ(t.flows().size(), 2u);
  for (const Flow& f : t.flows()) {
    const RankInfo* from = rank_of_lane(t, t.lane(f.from.lane));
    const RankInfo* to = rank_of_lane(t, t.lane(f.to.lane));
    ASSERT_NE(from, nullptr);
    ASSERT_NE(to, nullptr);
    EXPECT_EQ(from->rank, to->rank);  // a launch joins its own rank's kernel, never the other's
  }
  for (std::int64_t device : {0, 1}) {
    const Trace& own = device == 0 ? p.rank0 : p.rank1;
    EXPECT_EQ(collectives_by_rank(t).at(static_cast<std::size_t>(device)).size(), find_collectives(own).size());
    const Lane& merged = t.lane(*t.find_lane(gpu_lane_key(device, 7)));
    const Lane& original = own.lane(*own.find_lane(gpu_lane_key(0, 7)));
    ASSERT_EQ(merged.events.size(), original.events.size());
    for (std::size_t i = 0; i < merged.events.size(); ++i)
      EXPECT_EQ(merged.events[i].duration_ns, original.events[i].duration_ns);
  }
}

// On one host the wall clock is exact: with rank 1's file starting from another origin, its times move by the
// difference of the origins, and the ends of the all-reduces then differ by their jitter only (max 3 us).
TEST(RankMerge, WallClockMovesByTheOriginsAndChecksOnCollectives) {
  const Pair p = straggler_pair(0, kOrigin + 5 * kNsPerS);
  const Expected<RankMerge> m = merge(p.rank0, p.rank1);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const TraceMetadata& meta = m->trace.metadata();
  EXPECT_EQ(meta.origin_unix_ns, kOrigin);
  EXPECT_EQ(meta.ranks[1].shift_ns, 5 * kNsPerS);
  EXPECT_EQ(meta.ranks[1].clock_offset_ns, 0);
  EXPECT_EQ(meta.clock.method, "wall clock");
  EXPECT_EQ(meta.clock.collectives_checked, 3);
  EXPECT_EQ(meta.clock.residual_ns, 3 * kUs);
  EXPECT_NE(meta.clock.basis.find("differ by at most 3.00 us"), std::string::npos) << meta.clock.basis;
}

// Rank 1's host clock runs 300 us ahead: on the wall clock the all-reduce ends look 299-301 us apart; aligned on
// collectives, rank 1 moves by the median of (rank 0's end - rank 1's end) = median(-301, -303, -302) = -302 us,
// and the ends then agree within 1 us.
TEST(RankMerge, CollectivesEstimateAHostClockOffset) {
  const Pair p = straggler_pair(300 * kUs);
  const Expected<RankMerge> wall = merge(p.rank0, p.rank1);
  ASSERT_TRUE(wall.ok()) << wall.error().message;
  EXPECT_EQ(wall->trace.metadata().clock.residual_ns, 303 * kUs);
  RankMergeOptions options;
  options.clock = ClockMethod::Collectives;
  const Expected<RankMerge> aligned = merge(p.rank0, p.rank1, options);
  ASSERT_TRUE(aligned.ok()) << aligned.error().message;
  const TraceMetadata& meta = aligned->trace.metadata();
  EXPECT_EQ(meta.clock.method, "collectives");
  EXPECT_EQ(meta.ranks[1].clock_offset_ns, -302 * kUs);
  EXPECT_EQ(meta.clock.residual_ns, 1 * kUs);
  EXPECT_NE(meta.clock.basis.find("over 3 all-reduces, of its end against rank 0's (rank 1 -302.0 us +/- 1.00 us)"),
            std::string::npos)
      << meta.clock.basis;
  // The compute kernel of rank 1 (true start 20 us) lands at 20 + 300 - 302 = 18 us.
  const Lane& gpu1 = aligned->trace.lane(*aligned->trace.find_lane(gpu_lane_key(1, 7)));
  EXPECT_EQ(gpu1.events.front().start_ns, 18 * kUs);
}

TEST(RankMerge, ManualShiftsAddToTheAlignment) {
  const Pair p = straggler_pair(0);
  RankMergeOptions options;
  options.manual_shift_ns[1] = -250 * kUs;
  const Expected<RankMerge> m = merge(p.rank0, p.rank1, options);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const TraceMetadata& meta = m->trace.metadata();
  EXPECT_EQ(meta.clock.method, "wall clock + manual");
  EXPECT_EQ(meta.ranks[1].clock_offset_ns, -250 * kUs);
  // The ends (400/401, 800/803, 1200/1202 us) become 400/151, 800/553, 1200/952: 249, 247 and 248 us apart.
  EXPECT_EQ(meta.clock.residual_ns, 249 * kUs);
  EXPECT_NE(meta.clock.basis.find("rank 1 moved -250.0 us by hand"), std::string::npos) << meta.clock.basis;
  options.manual_shift_ns = {{5, 1}};
  const Expected<RankMerge> unknown = merge(p.rank0, p.rank1, options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "a shift is given for rank 5, which no file holds");
}

// One rank whose origin is origin_ns: three all-reduces on its GPU, times relative to that origin.
Trace rank_at(std::int64_t rank, TimeNs origin_ns) {
  TraceBuilder b;
  b.metadata().origin_unix_ns = origin_ns;
  b.metadata().distributed = {rank, 2, "nccl"};
  const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  for (std::uint64_t k = 0; k < 3; ++k)
    add(b, gpu, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
        static_cast<TimeNs>(200 + 400 * k) * kUs, 200 * kUs, EventKind::Kernel, k + 2);
  Expected<Trace> t = b.build();
  EXPECT_TRUE(t.ok()) << t.error().message;
  return std::move(t).value();
}

// Origins at the two ends of the time range (2^63 - 1 ns apart) with --allow-far-apart: the clocks cannot be put
// on one axis inside the range, whichever method aligns them, and the arithmetic never overflows (UBSan).
TEST(RankMerge, RanksThatCannotShareTheTimeRangeAreRefused) {
  const Trace early = rank_at(0, kMinTraceTimeNs);
  const Trace late = rank_at(1, kMaxTraceTimeNs);
  for (const ClockMethod method : {ClockMethod::WallClock, ClockMethod::Collectives}) {
    RankMergeOptions options;
    options.allow_far_apart = true;
    options.clock = method;
    const Expected<RankMerge> m = merge(early, late, options);
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.error().message.find("would leave the accepted time range [-2^62, 2^62) ns"), std::string::npos)
        << m.error().message;
    options.manual_shift_ns[1] = kMinTraceTimeNs;  // a shift on top cannot bring it back either
    EXPECT_FALSE(merge(early, late, options).ok());
  }
  const Expected<RankMerge> refused = merge(early, late);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "b.json starts 2562047.8 h after a.json: recordings of different runs?");
}

// clock_error_ns: when the recording happened, relative to the others.
Trace with_info(std::int64_t rank, std::int64_t world, TimeNs clock_error_ns = 0) {
  RankSpec s;
  s.rank = rank;
  s.world_size = world;
  s.clock_error_ns = clock_error_ns;
  return rank_trace(s);
}

TEST(RankMerge, BadSetsOfFilesAreRefusedNamingTheFiles) {
  const Trace r0 = with_info(0, 2), r0_again = with_info(0, 2), r1_of4 = with_info(1, 4), silent = with_info(-1, 0);
  const Trace late = with_info(1, 2, 3 * 3600 * kNsPerS);
  auto error_of = [](const Trace& a, const Trace& b) {
    Expected<RankMerge> m = merge(a, b);
    return m.ok() ? std::string("merged") : m.error().message;
  };
  EXPECT_EQ(error_of(r0, r0_again), "a.json and b.json are both rank 0");
  EXPECT_EQ(error_of(r0, r1_of4), "world sizes disagree: a.json says 2, b.json says 4");
  EXPECT_EQ(error_of(r0, silent),
            "a.json says its rank (distributedInfo) but b.json does not: give files that all say it, or none (then "
            "the order of the files numbers the ranks)");
  EXPECT_EQ(error_of(r0, late), "b.json starts 3.0 h after a.json: recordings of different runs?");
  const std::vector<RankFile> one{{&r0, "a.json"}};
  EXPECT_EQ(merge_ranks(one).error().message, "merging ranks needs at least two files");
  RankMergeOptions allow;
  allow.allow_far_apart = true;
  EXPECT_TRUE(merge(r0, late, allow).ok());
  const Trace r3 = with_info(3, 2);
  EXPECT_EQ(error_of(r0, r3), "b.json is rank 3 but the world size is 2");
}

TEST(RankMerge, AMissingRankOrMissingRanksAreWarnings) {
  const Trace r0 = with_info(0, 4), r2 = with_info(2, 4);
  const Expected<RankMerge> m = merge(r0, r2);
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_FALSE(m->warnings.empty());
  EXPECT_EQ(m->warnings[0],
            "world size 4, but no file for 2 ranks (1 and 3); collectives wait for ranks this view does not show");
  // A file may claim any world: the missing ranks are counted, the first few named, nothing walks them all.
  const Trace huge0 = with_info(0, 1'000'000'000'000), huge7 = with_info(7, 1'000'000'000'000);
  const Expected<RankMerge> sparse = merge(huge0, huge7);
  ASSERT_TRUE(sparse.ok()) << sparse.error().message;
  EXPECT_EQ(sparse->warnings[0],
            "world size 1000000000000, but no file for 999999999998 ranks (1, 2, 3, 4 and 5, ...); collectives "
            "wait for ranks this view does not show");
  const Trace only0 = with_info(0, 3);
  const Trace r2of3 = with_info(2, 3);
  EXPECT_EQ(merge(only0, r2of3)->warnings[0],
            "world size 3, but no file for rank 1; collectives wait for ranks this view does not show");
  const Trace a = with_info(-1, 0), b = with_info(-1, 0);
  const Expected<RankMerge> by_order = merge(a, b);
  ASSERT_TRUE(by_order.ok()) << by_order.error().message;
  EXPECT_EQ(by_order->warnings[0],
            "no file says its rank (distributedInfo): ranks numbered 0 to 1 in the order of the files");
  EXPECT_EQ(by_order->trace.metadata().distributed.world_size, 2);
}

TEST(RankMerge, AMergedRunIsNotMergedAgain) {
  const Pair p = straggler_pair(0);
  Expected<RankMerge> m = merge(p.rank0, p.rank1);
  ASSERT_TRUE(m.ok());
  const Expected<RankMerge> again = merge(m->trace, p.rank0);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message, "a.json is already a merged run of 2 ranks: merge the rank files themselves");
}

// A rank of `world` whose host calls run in the processes `pids` (one thread each), its kernel on GPU 0.
Trace rank_with_pids(std::int64_t rank, std::int64_t world, const std::vector<std::int64_t>& pids) {
  TraceBuilder b;
  b.metadata().origin_unix_ns = kOrigin;
  b.metadata().distributed = {rank, world, "nccl"};
  for (const std::int64_t pid : pids)
    add(b, b.lane(host_lane_key(pid, 1)), "cudaLaunchKernel", 10 * kUs, 5 * kUs, EventKind::Runtime, 1);
  add(b, b.lane(gpu_lane_key(0, 7)), "volta_sgemm_128x64_nn", 20 * kUs, 100 * kUs, EventKind::Kernel, 1);
  Expected<Trace> t = b.build();
  EXPECT_TRUE(t.ok()) << t.error().message;
  return std::move(t).value();
}

// Repeated pids of ranks so large that rank * 10^7 leaves the int64 range, and a pid whose multiples of the step
// are taken up to the int64 limit: each merge ends, every merged pid is distinct and positive, and the warning
// names the id each got.
TEST(RankMerge, RepeatedPidsOfHugeRanksGetDistinctIdsWithoutOverflow) {
  constexpr std::int64_t kHuge = std::int64_t{1} << 57;
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kNearMax = kMax - 35'000'000;  // kNearMax + 4 * 10^7 is beyond the int64 range
  struct Case {
    std::int64_t rank, world;
    std::vector<std::int64_t> rank0_pids;
    std::int64_t pid;
  };
  const std::vector<Case> cases{
      {kHuge, kHuge + 1, {100}, 100},
      {kHuge - 1, kHuge, {100}, 100},
      {1, 2, {kNearMax, kNearMax + 10'000'000, kNearMax + 20'000'000, kNearMax + 30'000'000}, kNearMax},
      {1, 2, {kMax}, kMax}};
  for (const Case& c : cases) {
    const Trace a = rank_with_pids(0, c.world, c.rank0_pids), b = rank_with_pids(c.rank, c.world, {c.pid});
    const Expected<RankMerge> m = merge(a, b);
    ASSERT_TRUE(m.ok()) << m.error().message;
    const TraceMetadata& meta = m->trace.metadata();
    ASSERT_EQ(meta.ranks.size(), 2u);
    std::set<std::int64_t> pids(meta.ranks[0].pids.begin(), meta.ranks[0].pids.end());
    ASSERT_EQ(meta.ranks[1].pids.size(), 1u);
    const std::int64_t moved = meta.ranks[1].pids[0];
    EXPECT_GT(moved, 0) << "rank " << c.rank;
    EXPECT_TRUE(pids.insert(moved).second) << "rank " << c.rank << "'s pid " << moved << " repeats rank 0's";
    const std::string said =
        "rank " + std::to_string(c.rank) + "'s " + std::to_string(c.pid) + " as " + std::to_string(moved) + ")";
    // Pids from 10^12 up are profiler pseudo-processes to the merge: renumbered without a warning.
    if (c.pid < 1'000'000'000'000) {
      EXPECT_NE(m->warnings.back().find(said), std::string::npos) << m->warnings.back();
    }
    EXPECT_TRUE(m->trace.find_lane(host_lane_key(moved, 1)).has_value());
  }
  // Where rank * 10^7 fits, a repeated pid still reads as pid + rank * 10^7.
  const Trace a = rank_with_pids(0, std::int64_t{1} << 40, {100}),
              b = rank_with_pids(std::int64_t{1} << 30, std::int64_t{1} << 40, {100});
  const Expected<RankMerge> m = merge(a, b);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->trace.metadata().ranks[1].pids, (std::vector<std::int64_t>{(std::int64_t{1} << 30) * 10'000'000 + 100}));
}

TEST(Collectives, KindsComeFromNcclKernelNames) {
  EXPECT_EQ(collective_kind("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"), "AllReduce");
  EXPECT_EQ(collective_kind("ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclWorkElem)"), "AllGather");
  EXPECT_EQ(collective_kind("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"), "SendRecv");
  EXPECT_EQ(collective_kind("ncclSomethingNew"), "NCCL");
  EXPECT_EQ(collective_kind("volta_sgemm_128x64_nn"), "");
}

// A collective of kind at t (ends at t + 1), with a sequence number, group and size when given.
Collective c(std::string kind, TimeNs t, std::int64_t seq = -1, std::string group = {}, std::int64_t elements = -1) {
  Collective out;
  out.kind = std::move(kind);
  out.start_ns = t;
  out.end_ns = t + 1;
  out.seq = seq;
  out.group = std::move(group);
  out.elements = elements;
  return out;
}

TEST(Collectives, TheKthOfEachKindIsMatchedAndCountDifferencesNamed) {
  const std::vector<std::vector<Collective>> per_rank{
      {c("Broadcast", 0), c("AllReduce", 10), c("AllReduce", 20), c("AllReduce", 30)},
      {c("Broadcast", 1), c("AllReduce", 11), c("AllReduce", 21)}};
  const std::vector<std::string> names{"rank 0", "rank 1"};
  const CollectiveMatch m = match_collectives(per_rank, names);
  ASSERT_EQ(m.matched.size(), 3u);
  EXPECT_EQ(m.matched[0].kind, "Broadcast");
  EXPECT_EQ(m.matched[2].kind, "AllReduce");
  EXPECT_EQ(m.matched[2].ordinal, 1u);
  EXPECT_EQ(m.matched[2].index, (std::vector<std::size_t>{2, 2}));
  ASSERT_EQ(m.count_differences.size(), 1u);
  EXPECT_EQ(m.count_differences[0], "AllReduce: rank 0 ran 3, rank 1 ran 2; the first 2 are matched");
  EXPECT_FALSE(m.by_sequence);
}

// Rank 1's recording started one all-reduce later: by order its first would be matched with rank 0's first; by
// sequence number it is matched with rank 0's second, and rank 0's first is said to have no partner.
TEST(Collectives, SequenceNumbersMatchWhereOrderWouldNot) {
  const std::vector<std::vector<Collective>> per_rank{
      {c("AllReduce", 10, 4, "0"), c("AllReduce", 20, 5, "0"), c("AllReduce", 30, 6, "0")},
      {c("AllReduce", 21, 5, "0"), c("AllReduce", 31, 6, "0")}};
  const std::vector<std::string> names{"rank 0", "rank 1"};
  const CollectiveMatch m = match_collectives(per_rank, names);
  EXPECT_TRUE(m.by_sequence);
  ASSERT_EQ(m.matched.size(), 2u);
  EXPECT_EQ(m.matched[0].seq, 5);
  EXPECT_EQ(m.matched[0].index, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(m.matched[1].index, (std::vector<std::size_t>{2, 1}));
  ASSERT_EQ(m.count_differences.size(), 1u);
  EXPECT_EQ(m.count_differences[0],
            "1 collective(s) of rank 0 have a sequence number that some rank did not record; not matched");
}

// Without sequence numbers, collectives of two process groups (or two sizes) are matched within their group and
// size, whatever order the ranks ran the groups in.
TEST(Collectives, WithoutSequenceNumbersGroupKindAndSizeMatch) {
  const std::vector<std::vector<Collective>> per_rank{
      {c("AllReduce", 10, -1, "tp", 1024), c("AllReduce", 20, -1, "dp", 4096), c("AllReduce", 30, -1, "tp", 1024)},
      {c("AllReduce", 11, -1, "dp", 4096), c("AllReduce", 21, -1, "tp", 1024), c("AllReduce", 31, -1, "tp", 1024)}};
  const std::vector<std::string> names{"rank 0", "rank 1"};
  const CollectiveMatch m = match_collectives(per_rank, names);
  ASSERT_EQ(m.matched.size(), 3u);
  EXPECT_EQ(m.matched[0].index, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(m.matched[1].index, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(m.matched[2].index, (std::vector<std::size_t>{2, 2}));
  EXPECT_EQ(m.matched[2].ordinal, 2u);  // the third all-reduce of rank 0
  EXPECT_TRUE(m.count_differences.empty());
}

// Sequence numbers come from the file: where they repeat, contradict the kind, size or order of what they match,
// or are shared by no rank, the collectives are matched by group, kind, size and order, and the match says why.
TEST(Collectives, SequenceNumbersThatDoNotHoldUpAreNotUsed) {
  const std::vector<std::string> two{"rank 0", "rank 1"};
  struct Case {
    std::vector<std::vector<Collective>> per_rank;
    std::string doubt;
  };
  std::vector<Case> cases;
  // The same number on every collective: by number, each of rank 0's would be matched with rank 1's first.
  Case same{{{}, {}}, "rank 0 gives sequence number 7 in group 0 to 20 collectives"};
  for (int k = 0; k < 20; ++k) {
    same.per_rank[0].push_back(c("AllReduce", 100 * k, 7, "0", 1024));
    same.per_rank[1].push_back(c("AllReduce", 100 * k + 3, 7, "0", 1024));
  }
  cases.push_back(same);
  cases.push_back({{{c("AllReduce", 10, 1, "0")}, {c("Broadcast", 11, 1, "0")}},
                   "sequence number 1 in group 0: rank 0 ran AllReduce, rank 1 Broadcast"});
  cases.push_back({{{c("AllReduce", 10, 1, "0", 1024)}, {c("AllReduce", 11, 1, "0", 4096)}},
                   "sequence number 1 in group 0: rank 0 ran AllReduce of 1024 elements, rank 1 of 4096"});
  cases.push_back({{{c("AllReduce", 10, 1, "0", 8), c("AllReduce", 20, 2, "0", 8)},
                    {c("AllReduce", 11, 2, "0", 8), c("AllReduce", 21, 1, "0", 8)}},
                   "sequence number 2 in group 0: rank 1 ran it before a collective that rank 0 ran earlier"});
  for (const Case& k : cases) {
    const CollectiveMatch m = match_collectives(k.per_rank, two);
    EXPECT_FALSE(m.by_sequence) << k.doubt;
    EXPECT_EQ(m.sequence_doubt, k.doubt);
    EXPECT_EQ(match_basis(m),
              "process group, kind, size and order (the trace's sequence numbers were not used: " + k.doubt + ")");
  }
  const CollectiveMatch same_match = match_collectives(same.per_rank, two);
  ASSERT_EQ(same_match.matched.size(), 20u);
  for (std::size_t k = 0; k < 20; ++k) EXPECT_EQ(same_match.matched[k].index, (std::vector<std::size_t>{k, k}));
  // Four ranks, 20 all-reduces each, numbered apart (no number on two ranks): all 20 are matched by order.
  std::vector<std::vector<Collective>> apart(4);
  for (std::size_t r = 0; r < 4; ++r)
    for (int k = 0; k < 20; ++k)
      apart[r].push_back(c("AllReduce", 100 * k + TimeNs(r), std::int64_t(r) * 1000 + k, "0", 1024));
  const std::vector<std::string> four{"rank 0", "rank 1", "rank 2", "rank 3"};
  const CollectiveMatch m = match_collectives(apart, four);
  EXPECT_FALSE(m.by_sequence);
  EXPECT_EQ(m.matched.size(), 20u);
  EXPECT_EQ(m.sequence_doubt, "no sequence number is recorded by every rank");
  EXPECT_TRUE(m.count_differences.empty());
  // A send numbered like a collective of its group (PyTorch may count them apart) is no repeat.
  const std::vector<std::vector<Collective>> with_send{
      {c("AllReduce", 10, 1, "0", 8), c("SendRecv", 20, 1, "0", 8), c("AllReduce", 30, 2, "0", 8)},
      {c("AllReduce", 11, 1, "0", 8), c("SendRecv", 21, 1, "0", 8), c("AllReduce", 31, 2, "0", 8)}};
  const CollectiveMatch sends = match_collectives(with_send, two);
  EXPECT_TRUE(sends.by_sequence) << sends.sequence_doubt;
  EXPECT_EQ(sends.matched.size(), 3u);
}

// Ranks that record the first rank's numbers in its order are matched position by position, the others by search:
// a number repeated on a later rank is still found and named, and a group whose name looks like another group's
// send counter is a group of its own.
TEST(Collectives, SequenceNumbersAreCheckedOnEveryRank) {
  const std::vector<std::string> three{"rank 0", "rank 1", "rank 2"};
  std::vector<std::vector<Collective>> per_rank(3);
  for (std::size_t r = 0; r < 3; ++r)
    for (int k = 0; k < 5; ++k) per_rank[r].push_back(c("AllReduce", 100 * k + TimeNs(r), k, "0", 8));
  const CollectiveMatch all = match_collectives(per_rank, three);
  EXPECT_TRUE(all.by_sequence);
  ASSERT_EQ(all.matched.size(), 5u);
  EXPECT_EQ(all.matched[4].index, (std::vector<std::size_t>{4, 4, 4}));
  // Rank 2 started one collective late and ran the last two in the other order: found by search.
  std::vector<std::vector<Collective>> shifted = per_rank;
  shifted[2] = {c("AllReduce", 102, 1, "0", 8), c("AllReduce", 202, 2, "0", 8), c("AllReduce", 302, 4, "0", 8),
                c("AllReduce", 402, 3, "0", 8)};
  const CollectiveMatch searched = match_collectives(shifted, three);
  EXPECT_FALSE(searched.by_sequence);
  EXPECT_EQ(searched.sequence_doubt,
            "sequence number 4 in group 0: rank 2 ran it before a collective that rank 0 ran earlier");
  shifted[2][3].seq = 2;
  const CollectiveMatch repeated = match_collectives(shifted, three);
  EXPECT_EQ(repeated.sequence_doubt, "rank 2 gives sequence number 2 in group 0 to 2 collectives");
  // Group "g#p2p"'s collective 5 and group "g"'s send 5 are two collectives.
  const std::vector<std::vector<Collective>> groups{{c("AllReduce", 10, 5, "g#p2p", 8), c("SendRecv", 20, 5, "g", 8)},
                                                    {c("AllReduce", 11, 5, "g#p2p", 8), c("SendRecv", 21, 5, "g", 8)}};
  const CollectiveMatch apart = match_collectives(groups, std::span(three).first(2));
  EXPECT_TRUE(apart.by_sequence) << apart.sequence_doubt;
  EXPECT_EQ(apart.matched.size(), 2u);
}

// Kineto writes the sequence number and group into the args of a collective: the model reads them.
TEST(Collectives, SequenceNumbersAndGroupsAreReadFromArgs) {
  TraceBuilder b;
  const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  Event e;
  e.name = b.intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  e.start_ns = 10;
  e.duration_ns = 5;
  e.kind = EventKind::Kernel;
  const std::vector<EventArg> args{{"Process Group Name", "\"0\""}, {"Seq", "12"}, {"In msg nelems", "4096"}};
  e.args = b.add_args(args);
  b.add_kernel(gpu, e, KernelDetail{});
  Expected<Trace> t = b.build();
  ASSERT_TRUE(t.ok()) << t.error().message;
  const std::vector<Collective> found = find_collectives(*t);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].seq, 12);
  EXPECT_EQ(found[0].group, "0");
  EXPECT_EQ(found[0].elements, 4096);
}

// Offsets +/- uncertainty from the collectives that end together: rank 1's all-reduce ends differ from rank 0's by
// 300, 302, 301, 305 and 299 us (median 301; deviations 1, 1, 0, 4, 2: uncertainty 4 us); the broadcast, which
// ends 5 ms apart, is not used.
TEST(CollectiveClock, OffsetsWithErrorBarsFromCollectivesThatEndTogether) {
  const std::vector<TimeNs> r1_ends_us{300, 302, 301, 305, 299};
  std::vector<std::vector<Collective>> per_rank(2);
  per_rank[0].push_back(c("Broadcast", 0));
  per_rank[1].push_back(c("Broadcast", 5000 * kUs));
  for (std::size_t k = 0; k < r1_ends_us.size(); ++k) {
    const TimeNs t = static_cast<TimeNs>(k + 1) * 1000 * kUs;
    per_rank[0].push_back(c("AllReduce", t));
    per_rank[1].push_back(c("AllReduce", t + r1_ends_us[k] * kUs));
  }
  const std::vector<std::string> names{"rank 0", "rank 1"};
  const ClockEstimate e = estimate_clocks(per_rank, match_collectives(per_rank, names));
  EXPECT_EQ(e.collectives, 5u);
  EXPECT_EQ(e.basis_words(), "5 all-reduces");
  ASSERT_EQ(e.ranks.size(), 2u);
  EXPECT_EQ(e.ranks[1].offset_ns, 301 * kUs);
  EXPECT_EQ(e.ranks[1].uncertainty_ns, 4 * kUs);
  EXPECT_EQ(e.residual_ns, 4 * kUs);
  EXPECT_EQ(e.misaligned_rank(), 1);  // 301 us against max(4 x 4 us, 100 us)
  const std::vector<TimeNs> shift{0, -301 * kUs};
  EXPECT_EQ(estimate_clocks(per_rank, match_collectives(per_rank, names), shift).misaligned_rank(), -1);
}

// Kineto's pseudo-processes ("Spans", "Traces", numbered from 10^12 by the reader) repeat in every rank's file:
// kept apart without a warning; a real pid that repeats is named.
TEST(RankMerge, ProfilerPseudoProcessesRepeatWithoutAWarning) {
  auto with_pseudo = [](std::int64_t rank, std::int64_t pid) {
    TraceBuilder b;
    b.metadata().origin_unix_ns = kOrigin;
    b.metadata().distributed = {rank, 2, "nccl"};
    add(b, b.lane(host_lane_key(pid, pid)), "cudaLaunchKernel", 10 * kUs, 5 * kUs, EventKind::Runtime, 1);
    add(b, b.lane(host_lane_key(1'000'000'000'000, 0)), "ProfilerStep#1", 0, 50 * kUs, EventKind::Annotation, 0);
    add(b, b.lane(gpu_lane_key(rank, 7)), "volta_sgemm_128x64_nn", 20 * kUs, 100 * kUs, EventKind::Kernel, 1);
    Expected<Trace> t = b.build();
    EXPECT_TRUE(t.ok()) << t.error().message;
    return std::move(t).value();
  };
  const Trace a = with_pseudo(0, 100), b = with_pseudo(1, 200);
  const Expected<RankMerge> m = merge(a, b);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_TRUE(m->warnings.empty()) << m->warnings.front();
  EXPECT_EQ(m->trace.metadata().ranks[1].pids.size(), 2u);  // its own pseudo-process, renumbered
  const Trace c2 = with_pseudo(1, 100);
  const Expected<RankMerge> repeated = merge(a, c2);
  ASSERT_TRUE(repeated.ok());
  ASSERT_EQ(repeated->warnings.size(), 1u);
  EXPECT_EQ(repeated->warnings[0],
            "host process ids repeat across ranks (ranks on several hosts or in containers): 1 renumbered (rank 1's "
            "100 as 10000100)");
}

}  // namespace
}  // namespace gtv

namespace gtv {

TEST(Collectives, CommunicationKernelsHaveNcclInTheirNameInAnyCase) {
  EXPECT_TRUE(is_communication_kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"));
  EXPECT_TRUE(is_communication_kernel("void ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclWorkElem)"));
  EXPECT_TRUE(is_communication_kernel("NCCL"));
  EXPECT_TRUE(is_communication_kernel("x_NcCl"));
  EXPECT_FALSE(is_communication_kernel("ncc"));
  EXPECT_FALSE(is_communication_kernel(""));
  EXPECT_FALSE(is_communication_kernel("nccx_l"));
  EXPECT_FALSE(is_communication_kernel("ampere_sgemm_128x64_nn"));
  // Bytes that differ from a letter only in bit 5 but are not letters ('\x0e' | 0x20 is '.', not 'n').
  EXPECT_FALSE(is_communication_kernel("\x0e\x03\x03\x0c"));
  EXPECT_FALSE(is_communication_kernel("N\x03\x03L"));
}

}  // namespace gtv
