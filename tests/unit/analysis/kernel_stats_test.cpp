#include "gtv/analysis/kernel_stats.h"

#include <gtest/gtest.h>

#include "gtv/io/trace_file.h"
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

// Names from the bundled PyTorch recordings (pytorch-h200x1/cnn.json.gz and transformer-amp.json.gz).
TEST(KernelDisplayName, KeepsWhatFitsOfTheQualifiedName) {
  // Short enough: whole, less the return type.
  EXPECT_EQ(
      kernel_display_name("void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float "
                          "const*, long, long, long, int, int, int, int, int, int, int, int, int, int, float*, "
                          "long*)"),
      "at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>");
  // Kernels that differ in a template argument stay apart: the parameters go, the arguments stay.
  const std::string bn_params =
      "(float, float, float, float, cudnnTensorStruct, float const*, cudnnTensorStruct, "
      "float const*, cudnnTensorStruct, float*, float const*, float*, float*, float const*, "
      "float const*, float)";
  EXPECT_EQ(kernel_display_name("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true, 1>" + bn_params),
            "cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true, 1>");
  EXPECT_EQ(kernel_display_name("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>" + bn_params),
            "cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>");
  // Nested arguments collapse first, the outer list while it fits; then every argument list.
  EXPECT_EQ(
      kernel_display_name("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
                          "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4, 4> "
                          ">(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned "
                          "int, float, 4, 4>)"),
      "at::native::reduce_kernel<512, 1, at::native::ReduceOp<\u2026> >");
  const std::string clamp =
      "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar("
      "at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()()"
      " const::{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::("
      "anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::"
      "detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, "
      "std::array<char*, 2ul>)";
  EXPECT_EQ(kernel_display_name(clamp), "at::native::vectorized_elementwise_kernel<\u2026>");
  // A budget smaller than the qualified name: its start and its end.
  EXPECT_EQ(kernel_display_name(clamp, 16), "at::nati\u2026rnel<\u2026>");
  // A generated name longer than the budget keeps its start and its end.
  const std::string sm90 =
      "sm90_xmma_wgrad_indexed_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x32_"
      "warpgroupsize1x1x1_g1_execute_segment_k_on_kernel__5x_cudnn";
  const std::string shown = kernel_display_name(sm90);
  EXPECT_EQ(shown,
            "sm90_xmma_wgrad_indexed_implicit_gemm_f3\u2026"
            "1_execute_segment_k_on_kernel__5x_cudnn");
  EXPECT_EQ(shown.size(), kKernelLabelChars - 1 + 3);  // the ellipsis: 3 bytes, 1 character
  // Mangled: demangled first.
  EXPECT_EQ(kernel_display_name("_Z6kernelPfi"), "kernel(float*, int)");
  EXPECT_EQ(kernel_display_name(""), "");
  EXPECT_EQ(kernel_display_name("relu"), "relu");
}

// The CUTLASS kernels cuDNN ran in the convolution fixture are mangled symbols of 1,645 and 1,684 characters, past
// what libstdc++'s demangler reads: they are named by the qualified name they start with, never as the symbol.
TEST(KernelDisplayName, MangledSymbolsPastTheDemanglerShowTheirQualifiedName) {
  const Expected<Trace> trace = io::read_trace(GTV_TEST_DATA_DIR "/pytorch/conv_training.json.gz");
  ASSERT_TRUE(trace) << trace.error().message;
  std::size_t long_symbols = 0;
  for (StringId id = 0; id < trace->strings().size(); ++id) {
    const std::string_view name = trace->strings().view(id);
    if (name.substr(0, 2) != "_Z" || name.size() < 1024) continue;
    ++long_symbols;
    EXPECT_EQ(demangle(name), name);  // the demangler refuses it
    EXPECT_EQ(kernel_display_name(name), "cutlass__5x_cudnn::Kernel<\u2026>");
    EXPECT_EQ(shorten_kernel_name(name), "cutlass__5x_cudnn::Kernel<...>");  // the report's tables, in ASCII
  }
  EXPECT_EQ(long_symbols, 2u);
  // A symbol that is not a nested name stays as the demangler left it, cut to the budget.
  EXPECT_EQ(kernel_display_name("_Zgarbage"), "_Zgarbage");
  EXPECT_EQ(kernel_display_name("_ZN12_GLOBAL__N_16kernelIiEEvT_" + std::string(1100, 'x')),
            "(anonymous namespace)::kernel<\u2026>");
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
