// merge_traces: the traces of the `processes` workers into one.
#include "trace_merge.h"

#include <gtest/gtest.h>

#include "gtv/model/trace_builder.h"

namespace gtv::exp {
namespace {

Trace with_counter(TimeNs origin_ns, std::int64_t pid, const std::vector<CounterSample>& samples) {
  TraceBuilder b;
  b.metadata().origin_unix_ns = origin_ns;
  for (const CounterSample& s : samples) b.add_counter_sample(pid, "device memory allocated since start (bytes)", s);
  Expected<Trace> t = b.build();
  EXPECT_TRUE(t.ok());
  return std::move(t).value();
}

// Two workers both count memory on GPU 0, each from its own start: the merged series is what GPU 0 held, their
// sum, not the two series interleaved.
TEST(TraceMerge, CountersOfOneGpuInSeveralProcessesAreSummed) {
  const Trace a = with_counter(1000, 0, {{10, 100.0}, {30, 300.0}});  // at 1010 and 1030 on the shared clock
  const Trace b = with_counter(1005, 0, {{10, 5.0}, {40, 0.0}});      // at 1015 and 1045
  const Trace c = with_counter(1000, 1, {{20, 7.0}});                 // another GPU: kept as it is
  auto merged = merge_traces({{&a, "worker 0"}, {&b, "worker 1"}, {&c, "worker 2"}}, {}, {}, 1000);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  ASSERT_EQ(merged->counters().size(), 2u);
  const CounterSeries& gpu0 = merged->counters()[0];
  EXPECT_EQ(gpu0.pid, 0);
  EXPECT_EQ(gpu0.samples, (std::vector<CounterSample>{{10, 100.0}, {15, 105.0}, {30, 305.0}, {45, 300.0}}));
  EXPECT_EQ(merged->counters()[1].samples, (std::vector<CounterSample>{{20, 7.0}}));
}

}  // namespace
}  // namespace gtv::exp
