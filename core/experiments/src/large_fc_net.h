#pragma once
// LargeFcNet, the seed's model: input -> hidden (ReLU), six hidden layers (Linear + ReLU + Dropout), -> output.
// With the seed's sizes (100, 10000, 100) it holds 602 M parameters (2.4 GB of float32), so one forward is a
// few milliseconds of GEMMs on an H200. Torch types appear here: include only from torch translation units.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <vector>

#include "engine.h"

namespace gtv::exp {

inline constexpr int kHiddenLayers = 6;

class LargeFcNet {
 public:
  // Parameters are created directly on device: building on the CPU and moving (the seed's way) costs seconds
  // per model and needs the whole model in host memory too.
  LargeFcNet(const NetShape& shape, const at::Device& device);

  // Inference as the seed ran it: no autograd, dropout in eval mode (it returns its input).
  [[nodiscard]] at::Tensor forward(const at::Tensor& x) const;
  [[nodiscard]] std::int64_t parameter_count() const;

 private:
  struct Layer {
    at::Tensor weight;
    at::Tensor bias;
  };
  static Layer make_layer(std::int64_t in, std::int64_t out, const at::TensorOptions& options);
  std::vector<Layer> layers_;  // input layer, kHiddenLayers hidden layers, output layer
  double dropout_;
};

}  // namespace gtv::exp
