// The ddp scenarios on GPUs, default sizes (hidden 10000: 2.4 GB of gradients a step): NCCL all-reduces on every
// rank's GPU, the ranks merged into one run, and in ddp-overlap the buckets' all-reduces beside backward's GEMMs.
#include <gtest/gtest.h>

#include <iostream>
#include <set>
#include <string>

#include "gpu_checks.h"
#include "gtv/experiments/runner.h"
#include "gtv/model/collectives.h"

namespace gtv::exp {
namespace {

RunResult run_ddp(const std::string& scenario, int ranks) {
  RunConfig config;
  config.scenario = scenario;
  config.ranks = ranks;
  return run_scenario(config, [](std::string_view line) { std::cerr << "  [" << line << "]\n"; });
}

bool has_note(const Trace& trace, std::string_view text) {
  for (const auto& note : trace.metadata().notes)
    if (note.find(text) != std::string::npos) return true;
  return false;
}

// NCCL kernels of one GPU of the trace, by kind.
std::multiset<std::string> nccl_kernels(const Trace& trace, std::int32_t device) {
  std::multiset<std::string> kinds;
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu() || lane.device() != device) continue;
    for (const Event& e : lane.events)
      if (e.kind == EventKind::Kernel && is_communication_kernel(trace.name(e)))
        kinds.insert(collective_kind(trace.name(e)));
  }
  return kinds;
}

TEST(GpuDdp, OneRankRunsItsNcclGroupOnOneGpu) {
  if (gpu_test::gpu_count_in_child() < 1) GTEST_SKIP() << "needs a CUDA GPU";
  RunResult result = run_ddp("ddp", 1);
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  const Trace& trace = *result.trace;
  EXPECT_EQ(trace.metadata().dropped_records, 0);
  EXPECT_EQ(trace.metadata().distributed.rank, 0);
  EXPECT_EQ(trace.metadata().distributed.world_size, 1);
  EXPECT_EQ(trace.metadata().distributed.backend, "nccl");
  EXPECT_TRUE(result.rank_traces.empty());  // one rank: its file is the run
  EXPECT_GT(gpu_test::kernels_on_device(trace, 0), 0);
  // One rank has nobody to exchange with: NCCL launches no collective kernel (seen with NCCL 2.28).
  std::cerr << "ddp, 1 rank: NCCL kernels " << nccl_kernels(trace, 0).size() << "\n";
}

class TwoGpuDdp : public ::testing::TestWithParam<std::string> {};

TEST_P(TwoGpuDdp, EachRankAllReducesOnItsGpuAndTheRanksMergeIntoOneRun) {
  if (const int gpus = gpu_test::gpu_count_in_child(); gpus < 2) GTEST_SKIP() << "needs 2 CUDA GPUs, found " << gpus;
  RunResult result = run_ddp(GetParam(), 2);
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  const Trace& run = *result.trace;
  EXPECT_EQ(run.metadata().dropped_records, 0);
  ASSERT_EQ(run.metadata().ranks.size(), 2u);
  EXPECT_EQ(run.metadata().distributed.backend, "nccl");
  ASSERT_EQ(result.rank_traces.size(), 2u);
  EXPECT_TRUE(has_note(run, "every rank holds the same parameters"));
  for (std::int32_t device = 0; device < 2; ++device) {
    const auto kinds = nccl_kernels(run, device);
    std::cerr << GetParam() << ": GPU " << device << " all-reduce kernels " << kinds.count("AllReduce") << "\n";
    // Warm-up step and 10 timed steps, one all-reduce each at least (ddp-overlap: one per bucket).
    EXPECT_GE(kinds.count("AllReduce"), 11u);
    EXPECT_GE(kinds.count("Broadcast"), 16u);  // the parameters from rank 0
  }
  const auto per_rank = collectives_by_rank(run);
  ASSERT_EQ(per_rank.size(), 2u);
  EXPECT_EQ(per_rank[0].size(), per_rank[1].size());
  EXPECT_GE(run.metadata().clock.collectives_checked, 27);
}

TEST(GpuDdp, OverlapAllReducesBucketsWhileBackwardStillComputes) {
  if (const int gpus = gpu_test::gpu_count_in_child(); gpus < 2) GTEST_SKIP() << "needs 2 CUDA GPUs, found " << gpus;
  RunResult result = run_ddp("ddp-overlap", 2);
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  const Trace& run = *result.trace;
  // On each GPU some all-reduce kernel runs while a GEMM of the same GPU runs on another stream.
  for (std::int32_t device = 0; device < 2; ++device) {
    TimeNs overlap_ns = 0;
    for (const Lane& comm : run.lanes()) {
      if (!comm.is_gpu() || comm.device() != device) continue;
      for (const Event& c : comm.events) {
        if (c.kind != EventKind::Kernel || collective_kind(run.name(c)) != "AllReduce") continue;
        for (const Lane& compute : run.lanes()) {
          if (!compute.is_gpu() || compute.device() != device || &compute == &comm) continue;
          for (const Event& k : compute.events)
            if (k.kind == EventKind::Kernel && !is_communication_kernel(run.name(k)))
              overlap_ns += std::max<TimeNs>(0, std::min(c.end_ns(), k.end_ns()) - std::max(c.start_ns, k.start_ns));
        }
      }
    }
    std::cerr << "ddp-overlap: GPU " << device << " all-reduce beside compute " << overlap_ns / 1e6 << " ms\n";
    EXPECT_GT(overlap_ns, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, TwoGpuDdp, ::testing::Values("ddp", "ddp-overlap"));

}  // namespace
}  // namespace gtv::exp
