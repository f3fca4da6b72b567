// The ddp scenarios on the CPU: the hand-written backward against autograd, the torchrun environment, and real
// runs of two ranks that rendezvous through a TCPStore and all-reduce over Gloo.
#include <gtest/gtest.h>
#include <torch/csrc/autograd/autograd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "gtv/experiments/runner.h"
#include "gtv/model/collectives.h"
#include "large_fc_net.h"
#include "scenario.h"
#include "trace_checks.h"

namespace gtv::exp {
namespace {

using test::has_note_containing;

TEST(LargeFcNetTraining, HandWrittenGradientsMatchAutograd) {
  const NetShape shape{.input = 5, .hidden = 7, .output = 3, .dropout = 0.0, .batch = 4};
  at::manual_seed(3);
  LargeFcNet net(shape, at::Device(at::kCPU));
  const at::Tensor x = at::randn({shape.batch, shape.input});
  const at::Tensor target = at::randn({shape.batch, shape.output});

  LargeFcNet::Activations saved;
  LargeFcNet::Gradients grads = net.make_gradients();
  std::vector<std::size_t> order;
  const at::Tensor y = net.train_forward(x, saved);
  net.backward(y, target, saved, grads, [&](std::size_t layer) { order.push_back(layer); });
  EXPECT_EQ(order, (std::vector<std::size_t>{7, 6, 5, 4, 3, 2, 1, 0}));

  // The same net through autograd.
  std::vector<at::Tensor> params;
  for (const auto& layer : net.layers()) {
    params.push_back(layer.weight.detach().clone().set_requires_grad(true));
    params.push_back(layer.bias.detach().clone().set_requires_grad(true));
  }
  at::Tensor h = x;
  for (std::size_t i = 0; i < net.layers().size(); ++i) {
    h = at::linear(h, params[2 * i], params[2 * i + 1]);
    if (i + 1 < net.layers().size()) h = at::relu(h);
  }
  const at::Tensor loss = (h - target).pow(2).mean();
  const auto expected = torch::autograd::grad({loss}, params);
  for (std::size_t i = 0; i < net.layers().size(); ++i) {
    EXPECT_TRUE(at::allclose(grads.layers[i].weight, expected[2 * i], 1e-5, 1e-6)) << "weight of layer " << i;
    EXPECT_TRUE(at::allclose(grads.layers[i].bias, expected[2 * i + 1], 1e-5, 1e-6)) << "bias of layer " << i;
  }
  // Backward order in the flat buffer: the output layer's gradients first.
  EXPECT_EQ(grads.offset_elements[7], 0);
  EXPECT_EQ(grads.flat.numel(), parameter_count(shape));
  EXPECT_EQ(net.parameter_count(), parameter_count(shape));
}

// Sets the variables for one test and restores the environment after it.
class Environment {
 public:
  explicit Environment(const std::map<std::string, std::string>& values) {
    for (const char* name :
         {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_USE_AGENT_STORE"}) {
      if (const char* old = std::getenv(name)) saved_[name] = old;
      ::unsetenv(name);
    }
    for (const auto& [name, value] : values) ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~Environment() {
    for (const char* name :
         {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_USE_AGENT_STORE"})
      ::unsetenv(name);
    for (const auto& [name, value] : saved_) ::setenv(name.c_str(), value.c_str(), 1);
  }
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

 private:
  std::map<std::string, std::string> saved_;
};

TEST(RankEnvironment, WithoutRankGtvStartsTheRanksItself) {
  const Environment env({});
  auto rank = rank_from_environment();
  ASSERT_TRUE(rank.ok());
  EXPECT_FALSE(rank->has_value());
}

TEST(RankEnvironment, ReadsWhatTorchrunSets) {
  const Environment env(
      {{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}, {"MASTER_ADDR", "node7"}, {"MASTER_PORT", "29400"}});
  auto rank = rank_from_environment();
  ASSERT_TRUE(rank.ok()) << rank.error().message;
  ASSERT_TRUE(rank->has_value());
  const ProcessGroupConfig& c = **rank;
  EXPECT_EQ(c.rank, 3);
  EXPECT_EQ(c.world_size, 4);
  EXPECT_EQ(c.local_rank, 1);
  EXPECT_EQ(c.master_addr, "node7");
  EXPECT_EQ(c.master_port, 29400);
  EXPECT_FALSE(c.store_server);  // only rank 0 serves the store
  // Its GPU: LOCAL_RANK, or the LOCAL_RANK-th of the devices asked for.
  EXPECT_EQ(*rank_device(c, 2, {}), 1);
  EXPECT_EQ(*rank_device(c, 8, {5, 6}), 6);
  EXPECT_EQ(*rank_device(c, 0, {}), kCpuDevice);
  EXPECT_FALSE(rank_device(c, 2, {0, 4}).ok());
}

TEST(RankEnvironment, RankZeroLeavesTheStoreToTorchrunsAgent) {
  const Environment env({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29400"}});
  EXPECT_TRUE((*rank_from_environment())->store_server);
  const Environment agent({{"RANK", "0"},
                           {"WORLD_SIZE", "2"},
                           {"MASTER_ADDR", "127.0.0.1"},
                           {"MASTER_PORT", "29400"},
                           {"TORCHELASTIC_USE_AGENT_STORE", "True"}});
  EXPECT_FALSE((*rank_from_environment())->store_server);
}

TEST(RankEnvironment, BadOrMissingVariablesAreNamed) {
  {
    const Environment env({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}});
    auto rank = rank_from_environment();
    ASSERT_FALSE(rank.ok());
    EXPECT_EQ(rank.error().message, "RANK='2' is not a number in 0..1");
  }
  {
    const Environment env({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}});
    auto rank = rank_from_environment();
    ASSERT_FALSE(rank.ok());
    EXPECT_EQ(rank.error().message, "the torchrun environment has RANK but no MASTER_PORT");
  }
  {
    const Environment env({{"RANK", "0"}, {"WORLD_SIZE", "two"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}});
    auto rank = rank_from_environment();
    ASSERT_FALSE(rank.ok());
    EXPECT_EQ(rank.error().message, "WORLD_SIZE='two' is not a number in 1..64");
  }
}

bool has_gloo() {
  const auto backends = process_group_backends();
  return std::find(backends.begin(), backends.end(), "gloo") != backends.end();
}

RunConfig two_cpu_ranks(const std::string& scenario, int hidden) {
  RunConfig config;
  config.scenario = scenario;
  config.hidden = hidden;
  config.batch = 8;
  config.iters = 2;
  config.force_cpu = true;
  config.ranks = 2;
  return config;
}

// Gloo's all-reduces (c10d's "gloo:all_reduce" ranges) on a rank's host lanes.
int all_reduces(const Trace& trace) { return test::count_events(trace, EventKind::Annotation, "gloo:all_reduce"); }

TEST(Ddp, TwoRanksOnTheCpuRendezvousAllReduceAndEndWithTheSameParameters) {
  if (!has_gloo()) GTEST_SKIP() << "this LibTorch build has no Gloo process group (gloo's headers missing)";
  const Environment env({});
  RunResult result = run_scenario(two_cpu_ranks("ddp", 64), {});
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  ASSERT_TRUE(result.trace.has_value());
  const Trace& run = *result.trace;
  ASSERT_EQ(run.metadata().ranks.size(), 2u);
  EXPECT_EQ(run.metadata().distributed.world_size, 2);
  EXPECT_EQ(run.metadata().distributed.backend, "gloo");
  EXPECT_EQ(run.metadata().clock.method, "wall clock");
  EXPECT_FALSE(run.metadata().config.contains("rank"));  // differs between the ranks
  EXPECT_TRUE(has_note_containing(run, "every rank holds the same parameters"));

  ASSERT_EQ(result.rank_traces.size(), 2u);
  std::vector<std::string> sums;
  for (std::size_t r = 0; r < 2; ++r) {
    const Trace& rank = result.rank_traces[r];
    EXPECT_EQ(rank.metadata().distributed.rank, static_cast<std::int64_t>(r));
    EXPECT_EQ(rank.metadata().distributed.world_size, 2);
    sums.push_back(rank.metadata().config.at("parameter_sum"));
    // One all-reduce of every gradient per step: the warm-up step and two timed ones.
    EXPECT_EQ(all_reduces(rank), 3) << "rank " << r;
    EXPECT_EQ(test::count_ranges_named(rank, RangeKind::User, "all-reduce gradients (0.2 MB)"), 3) << "rank " << r;
    EXPECT_EQ(test::count_ranges_named(rank, RangeKind::Iteration, "iteration 1"), 1);
  }
  EXPECT_EQ(sums[0], sums[1]);
  // The ranks' collectives match one to one in the merged run.
  const auto per_rank = collectives_by_rank(run);
  ASSERT_EQ(per_rank.size(), 2u);
  EXPECT_EQ(per_rank[0].size(), per_rank[1].size());
  EXPECT_GE(per_rank[0].size(), 3u + 16u);  // all-reduces and the 16 parameter broadcasts
}

// An injected straggler: rank 1 sleeps 5 ms before each step (the warm-up step and two timed ones), so it arrives
// last at every step's all-reduce. By how much depends on the scheduler too (the ranks run the same work, well
// under a millisecond at hidden 64, but a loaded machine can hold rank 0 back for milliseconds): the test asks for
// the order, and for every delay to have lasted its 5 ms.
TEST(Ddp, AnInjectedStragglerArrivesLateAtEveryStep) {
  if (!has_gloo()) GTEST_SKIP() << "this LibTorch build has no Gloo process group (gloo's headers missing)";
  const Environment env({});
  RunConfig config = two_cpu_ranks("ddp", 64);
  config.straggler_rank = 1;
  config.straggler_us = 5000;
  RunResult result = run_scenario(config, {});
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  ASSERT_EQ(result.rank_traces.size(), 2u);
  EXPECT_EQ(test::count_ranges_named(result.rank_traces[0], RangeKind::User, "injected delay"), 0);
  EXPECT_EQ(test::count_ranges_named(result.rank_traces[1], RangeKind::User, "injected delay"), 3);
  for (const Range& r : result.rank_traces[1].ranges())
    if (r.name == "injected delay") {
      EXPECT_GE(r.end_ns - r.start_ns, 5'000'000);
    }
  EXPECT_EQ(result.trace->metadata().config.count("straggler_delay_us"), 0u);  // rank 1's own setting
  EXPECT_EQ(result.rank_traces[1].metadata().config.at("straggler_delay_us"), "5000");
  const auto per_rank = collectives_by_rank(*result.trace);
  const std::vector<std::string> names{"rank 0", "rank 1"};
  const CollectiveMatch match = match_collectives(per_rank, names);
  int late = 0;
  for (const MatchedCollective& m : match.matched)
    if (m.kind == "AllReduce") {
      EXPECT_GT(per_rank[1][m.index[1]].start_ns, per_rank[0][m.index[0]].start_ns) << m.ordinal;
      ++late;
    }
  EXPECT_EQ(late, 3);
  RunConfig outside = two_cpu_ranks("ddp", 64);
  outside.straggler_rank = 2;
  outside.straggler_us = 1000;
  const RunResult refused = run_scenario(outside, {});
  ASSERT_FALSE(refused.status.ok());
  EXPECT_NE(refused.status.error().message.find("--straggler names rank 2, but the run has 2 ranks"), std::string::npos)
      << refused.status.error().message;
}

TEST(Ddp, OverlapStartsBucketAllReducesWhileBackwardRuns) {
  if (!has_gloo()) GTEST_SKIP() << "this LibTorch build has no Gloo process group (gloo's headers missing)";
  const Environment env({});
  // hidden 1200: 35.6 MB of gradients; at DDP's 25 MiB a bucket, layers 7-2 (29.3 MB) and 1-0 (6.2 MB).
  RunResult result = run_scenario(two_cpu_ranks("ddp-overlap", 1200), {});
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  ASSERT_EQ(result.rank_traces.size(), 2u);
  for (const Trace& rank : result.rank_traces) {
    EXPECT_EQ(all_reduces(rank), 2 * 3);
    std::vector<Range> backward, buckets;
    for (const Range& r : rank.ranges()) {
      if (r.name == "backward") backward.push_back(r);
      if (r.name.rfind("all-reduce bucket ", 0) == 0) buckets.push_back(r);
    }
    ASSERT_EQ(backward.size(), 3u);
    ASSERT_EQ(buckets.size(), 6u);
    // Bucket 0 (the last layers) starts inside backward, before its end: communication beside computation.
    EXPECT_EQ(buckets[0].name, "all-reduce bucket 0 (layers 7-2, 29.3 MB)");
    EXPECT_GT(buckets[0].start_ns, backward[0].start_ns);
    EXPECT_LT(buckets[0].end_ns, backward[0].end_ns);
  }
}

TEST(Ddp, BackendsTheRunCannotHaveAreClearErrors) {
  const Environment env({});
  RunConfig negative = two_cpu_ranks("ddp", 64);
  negative.ranks = -1;
  EXPECT_EQ(run_scenario(negative, {}).status.error().message,
            "ranks must be at least 1 (or 0 for one per GPU), got -1");
  RunConfig config = two_cpu_ranks("ddp", 64);
  config.backend = "nccl";
  RunResult result = run_scenario(config, {});
  ASSERT_FALSE(result.status.ok());
  EXPECT_FALSE(result.trace.has_value());
  const std::string& message = result.status.error().message;
  EXPECT_TRUE(message == "backend nccl needs CUDA GPUs and this run has none (use gloo)" ||
              message.rfind("backend 'nccl' is not in this LibTorch build", 0) == 0)
      << message;
}

}  // namespace
}  // namespace gtv::exp
