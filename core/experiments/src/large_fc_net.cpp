#include "large_fc_net.h"

#include <cmath>

namespace gtv::exp {

LargeFcNet::LargeFcNet(const NetShape& shape, const at::Device& device) : dropout_(shape.dropout) {
  const auto options = at::TensorOptions().dtype(at::kFloat).device(device);
  layers_.push_back(make_layer(shape.input, shape.hidden, options));
  for (int i = 0; i < kHiddenLayers; ++i) layers_.push_back(make_layer(shape.hidden, shape.hidden, options));
  layers_.push_back(make_layer(shape.hidden, shape.output, options));
}

// torch::nn::Linear's default initialisation (kaiming_uniform with a = sqrt(5)): U(-1/sqrt(in), 1/sqrt(in)).
LargeFcNet::Layer LargeFcNet::make_layer(std::int64_t in, std::int64_t out, const at::TensorOptions& options) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  Layer layer;
  layer.weight = at::empty({out, in}, options).uniform_(-bound, bound);
  layer.bias = at::empty({out}, options).uniform_(-bound, bound);
  return layer;
}

at::Tensor LargeFcNet::forward(const at::Tensor& x) const {
  const c10::NoGradGuard no_grad;
  at::Tensor h = at::relu(at::linear(x, layers_.front().weight, layers_.front().bias));
  for (std::size_t i = 1; i + 1 < layers_.size(); ++i) {
    h = at::relu(at::linear(h, layers_[i].weight, layers_[i].bias));
    h = at::dropout(h, dropout_, /*train=*/false);
  }
  return at::linear(h, layers_.back().weight, layers_.back().bias);
}

std::int64_t LargeFcNet::parameter_count() const {
  std::int64_t count = 0;
  for (const auto& layer : layers_) count += layer.weight.numel() + layer.bias.numel();
  return count;
}

}  // namespace gtv::exp
