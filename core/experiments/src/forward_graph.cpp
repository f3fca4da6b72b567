#include "forward_graph.h"

#include <c10/core/StreamGuard.h>

#include "engine.h"

#if GTV_TORCH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#endif

namespace gtv::exp {
namespace {

#if GTV_TORCH_CUDA
class CudaForwardGraph final : public ForwardGraph {
 public:
  const at::Tensor& replay() override {
    graph_.replay();
    return output_;
  }

  // Between capture_begin and capture_end every CUDA call on the stream is recorded instead of run, and tensors
  // come from the graph's private memory pool, so output_ (and the activations) stay valid for every replay.
  void capture(const LargeFcNet& net, const at::Tensor& input) {
    graph_.capture_begin();
    try {
      output_ = net.forward(input);
    } catch (...) {
      // End the capture so the stream is usable again; the forward's error is the one to report.
      try {
        graph_.capture_end();
      } catch (...) {
      }
      throw;
    }
    graph_.capture_end();
  }

 private:
  at::cuda::CUDAGraph graph_;
  at::Tensor output_;
};
#endif

}  // namespace

bool cuda_graphs_supported() {
#if GTV_TORCH_CUDA
  return true;
#else
  return false;
#endif
}

std::unique_ptr<ForwardGraph> capture_forward(const LargeFcNet& net, const at::Tensor& input,
                                              const c10::Stream& stream) {
#if GTV_TORCH_CUDA
  const c10::StreamGuard on_stream(stream);  // the capture stream becomes current on its device
  (void)net.forward(input);
  stream.synchronize();
  auto graph = std::make_unique<CudaForwardGraph>();
  graph->capture(net, input);
  return graph;
#else
  (void)net;
  (void)input;
  (void)stream;
  throw EngineError("this LibTorch has no CUDA graphs (at::cuda::CUDAGraph comes with LibTorch built with CUDA)");
#endif
}

}  // namespace gtv::exp
