#pragma once
// LargeFcNet, the seed's model: input -> hidden (ReLU), six hidden layers (Linear + ReLU + Dropout), -> output.
// With the seed's sizes (100, 10000, 100) it holds 602 M parameters (2.4 GB of float32), so one forward is a
// few milliseconds of GEMMs on an H200. Torch types appear here: include only from torch translation units.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <functional>
#include <vector>

#include "engine.h"

namespace gtv::exp {

class LargeFcNet {
 public:
  // Parameters are created directly on device: building on the CPU and moving (the seed's way) costs seconds
  // per model and needs the whole model in host memory too.
  LargeFcNet(const NetShape& shape, const at::Device& device);

  // Inference as the seed ran it: no autograd, dropout in eval mode (it returns its input).
  [[nodiscard]] at::Tensor forward(const at::Tensor& x) const;
  [[nodiscard]] std::int64_t parameter_count() const;

  struct Layer {
    at::Tensor weight;  // out x in, as at::linear takes it
    at::Tensor bias;
  };
  [[nodiscard]] const std::vector<Layer>& layers() const { return layers_; }

  // Training, written out by hand (no autograd) so that each layer's gradients exist as soon as backward has
  // passed it, which is when DistributedDataParallel starts sending them.
  //
  // Gradients live in one flat buffer laid out in backward order (output layer first), as DDP's buckets are, so
  // the gradients of consecutive layers of backward are one contiguous slice; `layers[i]` views layer i's part.
  struct Gradients {
    at::Tensor flat;
    std::vector<Layer> layers;                  // same order as LargeFcNet::layers()
    std::vector<std::int64_t> offset_elements;  // where layer i starts in flat
  };
  [[nodiscard]] Gradients make_gradients() const;
  // What backward needs from forward: each layer's input, the ReLU outputs and the dropout masks.
  struct Activations {
    std::vector<at::Tensor> inputs;  // per layer
    std::vector<at::Tensor> relu;    // per layer but the last
    std::vector<at::Tensor> keep;    // per hidden layer: dropout's scaled mask (1/(1-p) or 0)
  };
  // Forward in training mode (dropout active), keeping the activations.
  [[nodiscard]] at::Tensor train_forward(const at::Tensor& x, Activations& saved) const;
  // Backward of the mean squared error between output and target; writes every gradient into grads and calls
  // layer_done(i) right after layer i's gradients are written (i from the last layer down to 0).
  void backward(const at::Tensor& output, const at::Tensor& target, const Activations& saved, Gradients& grads,
                const std::function<void(std::size_t)>& layer_done) const;
  // Plain SGD: parameter -= learning_rate * gradient.
  void sgd_step(const Gradients& grads, double learning_rate);

 private:
  static Layer make_layer(std::int64_t in, std::int64_t out, const at::TensorOptions& options);
  std::vector<Layer> layers_;  // input layer, kHiddenLayers hidden layers, output layer
  double dropout_;
};

}  // namespace gtv::exp
