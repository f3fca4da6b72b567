#include "gtv/analysis/kernel_stats.h"

#include <gtest/gtest.h>

#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

TEST(KernelNames, ShortensTemplatesParametersAndNamespaces) {
  EXPECT_EQ(shorten_kernel_name("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
                                "namespace)::launch_clamp_scalar(at::TensorIteratorBase&)::{lambda()#1}>(int, "
                                "at::native::FillFunctor<float>, std::array<char*, 2ul>)"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(shorten_kernel_name("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x64x8"),
            "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x64x8");
  EXPECT_EQ(shorten_kernel_name("void at::native::(anonymous namespace)::softmax_warp_forward<float, 10>(float*)"),
            "softmax_warp_forward");
  EXPECT_EQ(shorten_kernel_name("_Z6kernelPfi"), "kernel");  // mangled: void kernel(float*, int)
  EXPECT_EQ(demangle("_Z6kernelPfi"), "kernel(float*, int)");
  EXPECT_EQ(demangle("not_mangled"), "not_mangled");
  EXPECT_EQ(shorten_kernel_name(""), "");
  EXPECT_EQ(shorten_kernel_name("void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_tn_align1>(cutlass_80_simt_"
                                "sgemm_256x128_8x4_tn_align1::Params)"),
            "Kernel2<cutlass_80_simt_sgemm_256x128_8x4_tn_align1>");
  EXPECT_EQ(shorten_kernel_name("void kernel<int, 3>(int)"), "kernel");  // argument is no kernel name: left out
  EXPECT_EQ(shorten_kernel_name(std::string(100, 'k')), std::string(77, 'k') + "...");
}

TEST(KernelStats, PerKernelAndPerDevice) {
  TraceBuilder b;
  kernel(b, 0, 7, "void ns::gemm<1>(int)", 0, 30);
  kernel(b, 0, 8, "void ns::gemm<1>(int)", 10, 10);
  kernel(b, 1, 7, "void ns::gemm<1>(int)", 0, 20);
  kernel(b, 1, 7, "void ns::gemm<2>(int)", 50, 20);  // same short name, another kernel
  kernel(b, 0, 7, "relu", 100, 20);
  memcpy_event(b, 0, 7, 200, 1000);  // copies are not kernels
  const Trace t = build(b);
  const KernelStats s = analyze_kernels(t);
  EXPECT_EQ(s.total_kernel_ns, 100);
  EXPECT_EQ(s.kernel_count, 5u);
  ASSERT_EQ(s.kernels.size(), 3u);
  EXPECT_EQ(s.kernels[0].name, "gemm");
  EXPECT_EQ(s.kernels[0].full_name, "void ns::gemm<1>(int)");
  EXPECT_EQ(s.kernels[0].device, -1);
  EXPECT_EQ(s.kernels[0].count, 3u);
  EXPECT_EQ(s.kernels[0].total_ns, 60);
  EXPECT_EQ(s.kernels[0].mean_ns, 20);
  EXPECT_EQ(s.kernels[0].min_ns, 10);
  EXPECT_EQ(s.kernels[0].max_ns, 30);
  EXPECT_DOUBLE_EQ(s.kernels[0].share, 0.6);
  // Equal totals (20): ordered by full name, "relu" < "void ns::gemm<2>(int)".
  EXPECT_EQ(s.kernels[1].name, "relu");
  EXPECT_EQ(s.kernels[2].name, "gemm [2]");
  EXPECT_EQ(s.kernels[2].full_name, "void ns::gemm<2>(int)");

  ASSERT_EQ(s.per_device.size(), 4u);
  EXPECT_EQ(s.per_device[0].device, 0);
  EXPECT_EQ(s.per_device[0].total_ns, 40);
  EXPECT_DOUBLE_EQ(s.per_device[0].share, 40.0 / 60.0);
  EXPECT_EQ(s.per_device[1].name, "relu");
  EXPECT_EQ(s.per_device[2].device, 1);
  EXPECT_DOUBLE_EQ(s.per_device[2].share, 0.5);
}

TEST(KernelStats, NoKernels) {
  TraceBuilder b;
  memset_event(b, 0, 1, 0, 5);
  const Trace t = build(b);
  const KernelStats s = analyze_kernels(t);
  EXPECT_TRUE(s.kernels.empty());
  EXPECT_EQ(s.total_kernel_ns, 0);
}
}  // namespace gtv::analysis
