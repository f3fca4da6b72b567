#include "gtv/analysis/compare.h"

#include <gtest/gtest.h>

#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

namespace {
constexpr TimeNs ms = kNsPerMs;
}

TEST(Compare, SpeedupOverlapAndKernelDiffs) {
  TraceBuilder ba;
  kernel(ba, 0, 7, "void ns::gemm<1>(int)", 0, 40 * ms);
  kernel(ba, 1, 7, "void ns::gemm<1>(int)", 40 * ms, 40 * ms);
  kernel(ba, 0, 7, "relu", 80 * ms, 10 * ms);
  const Trace a = build(ba);
  TraceBuilder bb;
  kernel(bb, 0, 7, "void ns::gemm<1>(int)", 0, 40 * ms);
  kernel(bb, 1, 7, "void ns::gemm<1>(int)", 0, 40 * ms);
  kernel(bb, 0, 7, "relu", 40 * ms, 5 * ms);
  kernel(bb, 1, 7, "new_k", 45 * ms, 5 * ms);
  const Trace b = build(bb);

  const Comparison c = compare(a, b, "serial", "overlapped");
  EXPECT_EQ(c.a.wall_ns, 90 * ms);
  EXPECT_EQ(c.b.wall_ns, 50 * ms);
  EXPECT_EQ(c.a.overlap_ns, 0);
  EXPECT_EQ(c.b.overlap_ns, 40 * ms);
  EXPECT_EQ(c.b.gpu_busy_sum_ns, 90 * ms);
  EXPECT_DOUBLE_EQ(c.b.effective_parallelism, 1.8);
  EXPECT_DOUBLE_EQ(c.speedup, 1.8);
  EXPECT_EQ(c.a.kernel_ns, 90 * ms);
  EXPECT_EQ(c.b.kernel_count, 4u);
  EXPECT_EQ(c.verdict,
            "overlapped is 1.80x faster than serial (50.0 ms vs 90.0 ms wall); GPU overlap 0 ns -> 40.0 ms; "
            "effective parallelism 1.00 -> 1.80.");
  ASSERT_EQ(c.kernels.size(), 3u);
  EXPECT_EQ(c.kernels[0].name, "new_k");
  EXPECT_EQ(c.kernels[0].count_a, 0u);
  EXPECT_EQ(c.kernels[0].delta_ns, 5 * ms);
  EXPECT_EQ(c.kernels[1].name, "relu");
  EXPECT_EQ(c.kernels[1].delta_ns, -5 * ms);
  EXPECT_EQ(c.kernels[2].name, "gemm");
  EXPECT_EQ(c.kernels[2].delta_ns, 0);

  const std::string text = format_comparison(c, Format::Text);
  EXPECT_EQ(text.rfind("Comparison: serial vs overlapped\n", 0), 0u) << text;
  EXPECT_NE(text.find("wall time"), std::string::npos);
  EXPECT_NE(text.find("-44.4%"), std::string::npos) << text;  // 90 -> 50 ms
  EXPECT_NE(format_comparison(c, Format::Markdown).find("| kernel | count serial |"), std::string::npos);
  EXPECT_NE(format_comparison(c, Format::Json).find("\"speedup\": 1.8000"), std::string::npos);
}

TEST(Compare, EmptyTraces) {
  TraceBuilder ba, bb;
  const Trace a = build(ba);
  const Trace b = build(bb);
  const Comparison c = compare(a, b);
  EXPECT_EQ(c.speedup, 0.0);
  EXPECT_EQ(c.verdict, "Cannot compare wall times: A is empty.");
  EXPECT_NE(format_comparison(c, Format::Text).find("No kernels in either trace."), std::string::npos);
}
}  // namespace gtv::analysis
