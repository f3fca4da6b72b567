// Each rank's steps and its GPUs' work in them, worked out by hand on a small trace, and kept per rank in a merged
// run.
#include <gtest/gtest.h>

#include "../analysis/trace_helpers.h"
#include "gtv/io/trace_file.h"
#include "gtv/model/rank_merge.h"
#include "gtv/ranks/summary_file.h"

namespace gtv::ranks {
namespace {

using analysis::testing::build;
using analysis::testing::host_call;
using analysis::testing::kernel;
using analysis::testing::memcpy_event;

constexpr const char* kAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

Trace two_steps() {
  TraceBuilder b;
  b.metadata().distributed = {0, 2, "nccl"};
  host_call(b, 10, 1, "ProfilerStep#1", 0, 1000, EventKind::Annotation);
  host_call(b, 10, 1, "ProfilerStep#2", 1000, 2000, EventKind::Annotation);
  host_call(b, 10, 1, "ProfilerStep#7", 1100, 100, EventKind::Annotation);  // nested: not a step of its own
  host_call(b, 10, 2, "ProfilerStep#9", 0, 3000, EventKind::Annotation);    // a thread with fewer: not taken
  kernel(b, 0, 7, "gemm", 100, 300);                                        // [100, 400)
  kernel(b, 0, 8, "gemm", 300, 300);                                        // [300, 600): union [100, 600)
  kernel(b, 0, 9, kAllReduce, 800, 400);                                    // [800, 1200) across the boundary
  memcpy_event(b, 0, 7, 2000, 500);                                         // [2000, 2500)
  return build(b);
}

TEST(Steps, WorkOfTheRanksGpusInEachStep) {
  const std::vector<RankSummary> s = summarize(two_steps(), "rank0.json");
  ASSERT_EQ(s.size(), 1u);
  ASSERT_EQ(s[0].steps.size(), 2u);
  const StepWork &a = s[0].steps[0], &b = s[0].steps[1];
  EXPECT_EQ(a.name, "ProfilerStep#1");
  EXPECT_EQ(a.start_ns, 0);
  EXPECT_EQ(a.end_ns, 1000);
  EXPECT_EQ(a.gpu_busy_ns, 500 + 200);  // [100, 600) and [800, 1000)
  EXPECT_EQ(a.communication_ns, 200);
  EXPECT_EQ(b.name, "ProfilerStep#2");
  EXPECT_EQ(b.gpu_busy_ns, 200 + 500);  // [1000, 1200) and [2000, 2500)
  EXPECT_EQ(b.communication_ns, 200);
  const Expected<std::vector<RankSummary>> back = read_summary_bytes(summary_file_bytes(s), "s.gtvsum");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ((*back)[0].steps.size(), 2u);
  EXPECT_EQ((*back)[0].steps[1].name, "ProfilerStep#2");
  EXPECT_EQ((*back)[0].steps[1].gpu_busy_ns, 700);
  EXPECT_EQ((*back)[0].steps[0].communication_ns, 200);
}

// A merged run: each rank's steps from its own lanes.
TEST(Steps, EachRankOfAMergedRun) {
  const auto load = [](const std::string& name) {
    Expected<Trace> t = io::read_trace(std::string(GTV_TEST_DATA_DIR) + "/pytorch/" + name);
    if (!t) throw std::runtime_error(t.error().message);
    return std::move(t).value();
  };
  const Trace r0 = load("ddp_gloo_rank0.json.gz"), r1 = load("ddp_gloo_rank1.json.gz");
  const std::vector<RankFile> files{{&r0, "rank0"}, {&r1, "rank1"}};
  const Expected<RankMerge> m = merge_ranks(files);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Trace& merged = m->trace;
  const std::vector<RankSummary> own0 = summarize(r0, "rank0");
  const std::vector<RankSummary> s = summarize(merged, "merged.json");
  ASSERT_EQ(s.size(), 2u);
  for (const RankSummary& r : s) {
    SCOPED_TRACE("rank " + std::to_string(r.distributed.rank));
    // The recording profiles steps on every rank: each rank's own, inside the run, in order.
    ASSERT_FALSE(r.steps.empty());
    for (std::size_t i = 0; i < r.steps.size(); ++i) {
      EXPECT_GE(r.steps[i].start_ns, merged.start_ns());
      EXPECT_LE(r.steps[i].end_ns, merged.end_ns());
      EXPECT_LE(r.steps[i].gpu_busy_ns, r.steps[i].end_ns - r.steps[i].start_ns);
      if (i > 0) {
        EXPECT_GE(r.steps[i].start_ns, r.steps[i - 1].end_ns);
      }
    }
  }
  // Rank 0's steps in the merged run are its own file's, moved by its shift, with the same work.
  ASSERT_EQ(s[0].steps.size(), own0[0].steps.size());
  for (std::size_t i = 0; i < s[0].steps.size(); ++i) {
    EXPECT_EQ(s[0].steps[i].name, own0[0].steps[i].name);
    EXPECT_EQ(s[0].steps[i].start_ns, own0[0].steps[i].start_ns + merged.metadata().ranks[0].shift_ns);
    EXPECT_EQ(s[0].steps[i].gpu_busy_ns, own0[0].steps[i].gpu_busy_ns);
  }
}

}  // namespace
}  // namespace gtv::ranks
