#pragma once
// A model's forward captured once as a CUDA graph and replayed: the whole forward (every GEMM and ReLU) becomes one
// cudaGraphLaunch. Graphs need the CUDA half of LibTorch (libtorch_cuda: at::cuda::CUDAGraph); in builds without it
// (Debian's CPU-only LibTorch, which ships the header but not the library) capture fails with a one-line error.
// Torch types appear here: include only from torch translation units.
#include <ATen/ATen.h>
#include <c10/core/Stream.h>

#include <memory>

#include "large_fc_net.h"

namespace gtv::exp {

class ForwardGraph {
 public:
  ForwardGraph() = default;
  ForwardGraph(const ForwardGraph&) = delete;
  ForwardGraph& operator=(const ForwardGraph&) = delete;
  virtual ~ForwardGraph() = default;
  // Launches the captured forward on the current stream of the capture device and returns the static output it
  // rewrites (the same tensor every time).
  virtual const at::Tensor& replay() = 0;
};

// Whether this build can capture CUDA graphs at all (it still needs a CUDA GPU at run time).
[[nodiscard]] bool cuda_graphs_supported();

// Captures net.forward(input) on stream, a non-default stream of input's device: input is the static input every
// replay reads. One forward runs on stream before the capture, so cuBLAS makes its handle and workspace for that
// stream outside it. Throws EngineError where graphs are not supported, c10::Error when the capture fails.
[[nodiscard]] std::unique_ptr<ForwardGraph> capture_forward(const LargeFcNet& net, const at::Tensor& input,
                                                            const c10::Stream& stream);

}  // namespace gtv::exp
