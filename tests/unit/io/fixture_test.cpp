// The real PyTorch profiler traces in tests/data/pytorch. Expected numbers come from
//   python3 tests/unit/io/fixture_counts.py tests/data/pytorch/*.json.gz
// (json module only), pasted here.
#include <gtest/gtest.h>

#include "gtv/io/trace_file.h"
#include "test_util.h"

namespace gtv::io {
namespace {

struct FixtureCounts {
  const char* file;
  std::size_t events, cpu_op, runtime, kernel, memcpy, annotation, overhead, instant, other;
  std::size_t host_lanes, gpu_lanes, flows;
};

constexpr FixtureCounts kFixtures[] = {
    {"one_gpu_basic.json.gz", 35, 12, 10, 8, 0, 0, 2, 2, 1, 5, 1, 8},
    {"two_gpus_schedule.json.gz", 232, 94, 39, 24, 4, 16, 0, 54, 1, 4, 3, 28},
    {"two_gpus_streams.json.gz", 266, 141, 58, 36, 6, 21, 1, 2, 1, 5, 3, 42},
};

class PytorchFixture : public ::testing::TestWithParam<FixtureCounts> {};

TEST_P(PytorchFixture, CountsMatchAnIndependentJsonParse) {
  const FixtureCounts& f = GetParam();
  ReadStats stats;
  ReadOptions options;
  options.stats = &stats;
  Expected<Trace> t = read_trace(std::string(GTV_TEST_DATA_DIR) + "/pytorch/" + f.file, options);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->event_count(), f.events);
  const auto kinds = test::count_kinds(*t);
  EXPECT_EQ(kinds[static_cast<int>(EventKind::CpuOp)], f.cpu_op);
  EXPECT_EQ(kinds[static_cast<int>(EventKind::Runtime)], f.runtime);
  EXPECT_EQ(kinds[static_cast<int>(EventKind::Kernel)], f.kernel);
  EXPECT_EQ(kinds[static_cast<int>(EventKind::Memcpy)], f.memcpy);
  EXPECT_EQ(kinds[static_cast<int>(EventKind::Annotation)], f.annotation);
  EXPECT_EQ(kinds[static_cast<int>(EventKind::Overhead)], f.overhead);
  EXPECT_EQ(kinds[static_cast<int>(EventKind::Instant)], f.instant);
  EXPECT_EQ(kinds[static_cast<int>(EventKind::Other)], f.other);
  EXPECT_EQ(test::count_lanes(*t, LaneKind::HostThread), f.host_lanes);
  EXPECT_EQ(test::count_lanes(*t, LaneKind::GpuStream), f.gpu_lanes);
  EXPECT_EQ(t->flows().size(), f.flows);
  EXPECT_EQ(t->metadata().source_tool, "PyTorch Profiler (Kineto)");
  EXPECT_EQ(t->metadata().origin_unix_ns, 1790857026000000000);
  ASSERT_EQ(t->devices().size(), 2u);
  EXPECT_EQ(t->devices()[1].index, 1);
  EXPECT_EQ(t->devices()[1].name, "NVIDIA H200");
  EXPECT_EQ(t->devices()[1].total_memory_bytes, 150109880320);
  EXPECT_EQ(t->devices()[1].compute_major, 9);
  EXPECT_EQ(t->devices()[1].sm_count, 132);
  EXPECT_TRUE(stats.gzip);
}

std::string fixture_name(const ::testing::TestParamInfo<FixtureCounts>& info) {
  std::string name = info.param.file;
  name = name.substr(0, name.find('.'));
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(All, PytorchFixture, ::testing::ValuesIn(kFixtures), fixture_name);

}  // namespace
}  // namespace gtv::io
