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

LargeFcNet::Gradients LargeFcNet::make_gradients() const {
  Gradients grads;
  grads.layers.resize(layers_.size());
  grads.offset_elements.resize(layers_.size());
  grads.flat = at::zeros({parameter_count()}, layers_.front().weight.options());
  std::int64_t offset = 0;
  for (std::size_t k = layers_.size(); k-- > 0;) {
    const Layer& layer = layers_[k];
    grads.offset_elements[k] = offset;
    grads.layers[k].weight = grads.flat.narrow(0, offset, layer.weight.numel()).view(layer.weight.sizes());
    offset += layer.weight.numel();
    grads.layers[k].bias = grads.flat.narrow(0, offset, layer.bias.numel()).view(layer.bias.sizes());
    offset += layer.bias.numel();
  }
  return grads;
}

at::Tensor LargeFcNet::train_forward(const at::Tensor& x, Activations& saved) const {
  const c10::NoGradGuard no_grad;
  saved.inputs.clear();
  saved.relu.clear();
  saved.keep.clear();
  at::Tensor h = x;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    saved.inputs.push_back(h);
    at::Tensor z = at::linear(h, layers_[i].weight, layers_[i].bias);
    if (i + 1 == layers_.size()) return z;
    h = at::relu(z);
    saved.relu.push_back(h);
    if (i > 0) {  // hidden layers: dropout after the ReLU
      at::Tensor keep = at::empty_like(h).bernoulli_(1.0 - dropout_).div_(1.0 - dropout_);
      h = h * keep;
      saved.keep.push_back(std::move(keep));
    }
  }
  return h;
}

void LargeFcNet::backward(const at::Tensor& output, const at::Tensor& target, const Activations& saved,
                          Gradients& grads, const std::function<void(std::size_t)>& layer_done) const {
  const c10::NoGradGuard no_grad;
  // d/dy of mean((y - t)^2)
  at::Tensor g = (output - target).mul_(2.0 / static_cast<double>(output.numel()));
  for (std::size_t i = layers_.size(); i-- > 0;) {
    if (i + 1 < layers_.size()) {
      if (i > 0) g = g * saved.keep[i - 1];
      g = g * saved.relu[i].gt(0);
    }
    at::mm_out(grads.layers[i].weight, g.t(), saved.inputs[i]);
    at::sum_out(grads.layers[i].bias, g, {0});
    if (i > 0) g = at::mm(g, layers_[i].weight);
    layer_done(i);
  }
}

void LargeFcNet::sgd_step(const Gradients& grads, double learning_rate) {
  const c10::NoGradGuard no_grad;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    layers_[i].weight.sub_(grads.layers[i].weight, learning_rate);
    layers_[i].bias.sub_(grads.layers[i].bias, learning_rate);
  }
}

std::int64_t LargeFcNet::parameter_count() const {
  std::int64_t count = 0;
  for (const auto& layer : layers_) count += layer.weight.numel() + layer.bias.numel();
  return count;
}

}  // namespace gtv::exp
