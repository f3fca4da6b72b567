// The runner's checks before anything runs: device placement, bad sizes, unknown names; and that every scenario
// of the catalogue has something that runs it.
#include "gtv/experiments/runner.h"

#include <gtest/gtest.h>

namespace gtv::exp {
namespace {

TEST(AssignDevices, RoundRobinOverTheGpus) {
  auto placement = assign_devices(3, 2, {});
  ASSERT_TRUE(placement.ok());
  EXPECT_EQ(*placement, (std::vector<int>{0, 1, 0}));
}

TEST(AssignDevices, GivenDevicesAreCycled) {
  auto placement = assign_devices(5, 3, {2, 0});
  ASSERT_TRUE(placement.ok());
  EXPECT_EQ(*placement, (std::vector<int>{2, 0, 2, 0, 2}));
}

TEST(AssignDevices, AnIndexBeyondTheGpusIsAClearError) {
  auto placement = assign_devices(3, 2, {0, 1, 2});
  ASSERT_FALSE(placement.ok());
  EXPECT_EQ(placement.error().message, "device 2 does not exist: this machine has 2 CUDA GPU(s), numbered 0..1");
}

TEST(AssignDevices, NoGpuMeansTheCpuUnlessDevicesAreAskedFor) {
  auto placement = assign_devices(2, 0, {});
  ASSERT_TRUE(placement.ok());
  EXPECT_EQ(*placement, (std::vector<int>{-1, -1}));
  auto asked = assign_devices(2, 0, {0, 1});
  ASSERT_FALSE(asked.ok());
  EXPECT_EQ(asked.error().message, "devices 0,1 requested, but this run has no CUDA GPU");
}

TEST(RunErrors, UnknownScenarioListsTheValidNames) {
  RunConfig config;
  config.scenario = "bogus";
  auto result = run_scenario(config, {});
  ASSERT_FALSE(result.status.ok());
  EXPECT_FALSE(result.trace.has_value());
  std::string expected = "unknown scenario 'bogus'; valid scenarios:";
  const char* separator = " ";
  for (const auto& info : list_scenarios()) {
    expected += separator + info.name;
    separator = ", ";
  }
  EXPECT_EQ(result.status.error().message, expected);
}

TEST(RunErrors, BadSizesAreRejectedBeforeAnythingRuns) {
  RunConfig config;
  config.scenario = "sequential";
  config.models = 0;
  auto result = run_scenario(config, {});
  ASSERT_FALSE(result.status.ok());
  EXPECT_EQ(result.status.error().message, "models must be at least 1, got 0");
  config.models = 3;
  config.dropout = 1.5;
  EXPECT_EQ(run_scenario(config, {}).status.error().message, "dropout must be in [0, 1), got 1.500000");
}

// The catalogue lists what the torch-free programs offer; each name must reach a scenario function (an unknown
// one would fail as "unknown scenario" before the size check).
TEST(RunErrors, EveryCataloguedScenarioHasARunner) {
  for (const ScenarioInfo& info : list_scenarios()) {
    RunConfig config;
    config.scenario = info.name;
    config.models = 0;
    EXPECT_EQ(run_scenario(config, {}).status.error().message, "models must be at least 1, got 0") << info.name;
  }
}

}  // namespace
}  // namespace gtv::exp
