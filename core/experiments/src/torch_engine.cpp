// The one Engine implementation: LibTorch (1.13 CPU from Debian or 2.x CUDA from pip), using only the API that
// both have (see shared/gpu-facts.md). Every torch exception leaves here as an EngineError with one line.
#include <ATen/Parallel.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "child_process.h"
#include "engine.h"
#include "forward_graph.h"
#include "large_fc_net.h"
#include "process_group.h"

namespace gtv::exp {
namespace {

std::string first_line(const char* text) {
  std::string line(text);
  if (auto pos = line.find('\n'); pos != std::string::npos) line.resize(pos);
  return line;
}

// Runs f, turning torch's exceptions into EngineError.
template <typename F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const c10::Error& e) {
    throw EngineError(first_line(e.what_without_backtrace()));
  } catch (const std::bad_alloc&) {
    throw EngineError("out of host memory");
  }
}

at::Device to_device(int device) {
  if (device == kCpuDevice) return at::Device(at::kCPU);
  return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(device));
}

// The state of data-parallel training that outlives one step: gradients (one flat buffer), what backward needs,
// the fixed target, and the buckets the gradients are sent in.
struct Training {
  struct Bucket {
    std::int64_t begin_element = 0;
    std::int64_t elements = 0;
    std::size_t closing_layer = 0;  // the bucket is complete once backward has written this layer
    std::string name;               // "all-reduce bucket 1 (layers 7-6, 404.0 MB)"
  };
  LargeFcNet::Gradients grads;
  LargeFcNet::Activations saved;
  at::Tensor target;
  std::vector<Bucket> buckets;
};

constexpr double kLearningRate = 1e-3;

std::string megabytes(std::int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

// Layers taken in backward order until a bucket holds at least bucket_bytes (a layer larger than that is a bucket
// of its own), as DistributedDataParallel forms its buckets.
std::vector<Training::Bucket> plan_buckets(const LargeFcNet& net, const LargeFcNet::Gradients& grads,
                                           std::int64_t bucket_bytes) {
  std::vector<Training::Bucket> buckets;
  const auto& layers = net.layers();
  std::size_t first_layer = layers.size() - 1;
  std::int64_t begin = 0;
  for (std::size_t k = layers.size(); k-- > 0;) {
    const std::int64_t end = grads.offset_elements[k] + layers[k].weight.numel() + layers[k].bias.numel();
    const std::int64_t bytes = (end - begin) * static_cast<std::int64_t>(sizeof(float));
    if (bytes < bucket_bytes && k > 0) continue;
    Training::Bucket bucket;
    bucket.begin_element = begin;
    bucket.elements = end - begin;
    bucket.closing_layer = k;
    const std::string span =
        first_layer == k ? std::to_string(k) : std::to_string(first_layer) + "-" + std::to_string(k);
    bucket.name = "all-reduce bucket " + std::to_string(buckets.size()) + " (layer" + (first_layer == k ? " " : "s ") +
                  span + ", " + megabytes(bytes) + ")";
    buckets.push_back(std::move(bucket));
    begin = end;
    if (k > 0) first_layer = k - 1;
  }
  return buckets;
}

struct Model {
  std::unique_ptr<LargeFcNet> net;
  at::Device device{at::kCPU};
  at::Tensor input;
  std::optional<c10::Stream> stream;
  std::unique_ptr<ForwardGraph> graph;  // capture_forward_graph; replays read `input` and rewrite its output
  at::Tensor host_pageable;             // preallocated copy targets, so the loop times the copy and not the allocation
  at::Tensor host_pinned;               // only for GPU models: pinned memory needs CUDA
  std::vector<at::Tensor> kept;
  std::unique_ptr<Training> training;  // made by the first train_step
};

// Where one forward of a model runs, for as long as it lives: on the model's own stream when asked and it has one,
// else on its device's current stream. A thread that calls cuBLAS must have its device set (gpu-facts), so one of
// the two guards is always there.
class ForwardPlacement {
 public:
  ForwardPlacement(const Model& model, bool use_stream) {
    if (use_stream && model.stream)
      stream_.emplace(*model.stream);
    else
      device_.emplace(model.device);
  }

 private:
  std::optional<c10::StreamGuard> stream_;
  std::optional<c10::DeviceGuard> device_;
};

std::atomic<bool> g_cuda_touched{false};

#if TORCH_VERSION_MAJOR >= 2
// c10::Event::elapsedTime exists from LibTorch 2 on; 1.13 (Debian) is CPU-only anyway.
class TorchEventTimer final : public EventTimer {
 public:
  explicit TorchEventTimer(std::vector<c10::Stream> streams) : streams_(std::move(streams)) { starts_ = record_all(); }
  void stop() override {
    guarded([&] { ends_ = record_all(); });
  }
  [[nodiscard]] TimeNs elapsed_ns() override {
    return guarded([&] {
      double longest_ms = 0;
      for (std::size_t i = 0; i < starts_.size() && i < ends_.size(); ++i) {
        ends_[i]->synchronize();
        longest_ms = std::max(longest_ms, starts_[i]->elapsedTime(*ends_[i]));
      }
      return static_cast<TimeNs>(longest_ms * 1e6);
    });
  }

 private:
  std::vector<std::unique_ptr<c10::Event>> record_all() {
    std::vector<std::unique_ptr<c10::Event>> events;
    for (const auto& stream : streams_) {
      events.push_back(std::make_unique<c10::Event>(c10::DeviceType::CUDA, c10::EventFlag::BACKEND_DEFAULT));
      events.back()->record(stream);
    }
    return events;
  }
  std::vector<c10::Stream> streams_;
  std::vector<std::unique_ptr<c10::Event>> starts_;
  std::vector<std::unique_ptr<c10::Event>> ends_;
};
constexpr bool kTimingEvents = true;
#else
constexpr bool kTimingEvents = false;
#endif

class TorchEngine final : public Engine {
 public:
  explicit TorchEngine(bool force_cpu) {
    if (!force_cpu) g_cuda_touched.store(true);
    cuda_ = !force_cpu && guarded([] { return torch::cuda::is_available(); });
    gpu_count_ = cuda_ ? static_cast<int>(guarded([] { return torch::cuda::device_count(); })) : 0;
  }

  [[nodiscard]] bool cuda_available() const override { return cuda_; }
  [[nodiscard]] int gpu_count() const override { return gpu_count_; }
  [[nodiscard]] std::string torch_version() const override { return TORCH_VERSION; }
  [[nodiscard]] bool timing_events_supported() const override { return cuda_ && kTimingEvents; }

  int add_model(const NetShape& shape, int device) override {
    check_device(device);
    const bool first_gpu_model = device != kCpuDevice && used_devices_.empty();
    const int index = add_model_on(shape, device);
    if (first_gpu_model) {
      // Make a GPU of this run the thread's current device (after the model's DeviceGuard has restored the old
      // one): torch's event record restores the current device with a checked cudaSetDevice, which creates a
      // context on a GPU the run never uses (seen on 2x H200: a `processes` worker on cuda:1 stalled 204 ms
      // creating one on cuda:0 when its timed loop began).
      guarded([&] { c10::impl::VirtualGuardImpl(c10::DeviceType::CUDA).setDevice(to_device(device)); });
    }
    return index;
  }

  int add_model_on(const NetShape& shape, int device) {
    return guarded([&] {
      Model model;
      model.device = to_device(device);
      const c10::DeviceGuard device_guard(model.device);
      model.net = std::make_unique<LargeFcNet>(shape, model.device);
      const auto options = at::TensorOptions().dtype(at::kFloat);
      model.input = at::randn({shape.batch, shape.input}, options.device(model.device));
      model.host_pageable = at::empty({shape.batch, shape.output}, options);
      if (model.device.is_cuda())
        model.host_pinned = at::empty({shape.batch, shape.output}, options.pinned_memory(true));
      if (device != kCpuDevice) used_devices_.insert(device);
      models_.push_back(std::move(model));
      return static_cast<int>(models_.size()) - 1;
    });
  }

  [[nodiscard]] int model_count() const override { return static_cast<int>(models_.size()); }
  [[nodiscard]] int device_of(int model) const override {
    const auto& d = models_.at(static_cast<std::size_t>(model)).device;
    return d.is_cuda() ? static_cast<int>(d.index()) : kCpuDevice;
  }

  void create_model_streams() override {
    if (!cuda_) return;
    guarded([&] {
      const c10::impl::VirtualGuardImpl impl(c10::DeviceType::CUDA);
      for (auto& model : models_)
        if (model.device.is_cuda() && !model.stream) model.stream = impl.getStreamFromGlobalPool(model.device, false);
    });
  }

  [[nodiscard]] bool cuda_graphs_supported() const override { return gtv::exp::cuda_graphs_supported(); }

  void capture_forward_graph(int index) override {
    Model& model = models_.at(static_cast<std::size_t>(index));
    if (!model.device.is_cuda())
      throw EngineError("model " + std::to_string(index) + " is on the CPU: CUDA graphs capture GPU work only");
    if (model.graph) return;
    guarded([&] {
      const c10::DeviceGuard device_guard(model.device);
      // The input was made on the default stream; the capture stream must see it finished.
      torch::cuda::synchronize(model.device.index());
      // The legacy default stream cannot be captured: a pool stream, as torch.cuda.graph uses.
      const c10::impl::VirtualGuardImpl impl(c10::DeviceType::CUDA);
      model.graph = capture_forward(*model.net, model.input, impl.getStreamFromGlobalPool(model.device, false));
    });
  }

  void forward(int index, const ForwardOptions& options) override {
    guarded([&] {
      Model& model = models_.at(static_cast<std::size_t>(index));
      if (options.replay_graph) {
        replay(index, model, options);
        return;
      }
      const ForwardPlacement placement(model, options.use_stream);
      const at::Tensor x = options.redundant_to ? model.input.to(model.device) : model.input;
      at::Tensor out = model.net->forward(x);
      copy_to_host(model, out, options.copy);
      if (options.keep_output) model.kept.push_back(std::move(out));
    });
  }

  void copy_kept_outputs() override {
    guarded([&] {
      for (auto& model : models_) {
        if (model.kept.empty()) continue;
        const c10::DeviceGuard device_guard(model.device);
        const at::Tensor all = at::cat(model.kept);
        const at::Tensor host = all.to(at::TensorOptions().device(at::kCPU));
        model.kept.clear();
      }
    });
  }

  void clear_kept_outputs() override {
    for (auto& model : models_) model.kept.clear();
  }

  void synchronize() override {
    if (!cuda_) return;
    guarded([&] {
      for (int device : used_devices_) torch::cuda::synchronize(device);
    });
  }

  [[nodiscard]] std::unique_ptr<EventTimer> start_event_timer() override {
#if TORCH_VERSION_MAJOR >= 2
    if (!cuda_) return nullptr;
    return guarded([&]() -> std::unique_ptr<EventTimer> {
      std::vector<c10::Stream> streams = streams_in_use();
      if (streams.empty()) return nullptr;  // no GPU in use yet: nothing an event could time
      return std::make_unique<TorchEventTimer>(std::move(streams));
    });
#else
    return nullptr;
#endif
  }

  void join_process_group(const ProcessGroupConfig& config) override {
    guarded([&] {
      group_ = ProcessGroup::join(config);
      at::manual_seed(static_cast<std::uint64_t>(config.rank) + 1);
    });
  }

  void broadcast_parameters(int index) override {
    if (!group_) return;
    guarded([&] {
      Model& model = models_.at(static_cast<std::size_t>(index));
      const c10::DeviceGuard device_guard(model.device);
      std::vector<PendingCollective> pending;
      for (auto layer : model.net->layers()) {  // copies share the tensors' storage
        pending.push_back(group_->broadcast(layer.weight, 0));
        pending.push_back(group_->broadcast(layer.bias, 0));
      }
      for (auto& work : pending) work->wait();
    });
  }

  void train_step(int index, GradientSync sync, std::int64_t bucket_bytes, const RangeFn& in_range) override {
    guarded([&] {
      Model& model = models_.at(static_cast<std::size_t>(index));
      const c10::DeviceGuard device_guard(model.device);
      Training& t = training_of(model, bucket_bytes);
      at::Tensor out;
      in_range("forward", [&] { out = model.net->train_forward(model.input, t.saved); });
      std::vector<PendingCollective> pending;
      auto all_reduce = [&](std::int64_t begin, std::int64_t elements, const std::string& name) {
        in_range(name, [&] {
          at::Tensor slice = t.grads.flat.narrow(0, begin, elements);
          slice.div_(group_->config().world_size);  // the sum of the ranks' shares is their mean
          pending.push_back(group_->all_reduce_sum(slice));
        });
      };
      std::size_t next_bucket = 0;
      in_range("backward", [&] {
        model.net->backward(out, t.target, t.saved, t.grads, [&](std::size_t layer) {
          if (!group_ || sync != GradientSync::Bucketed || next_bucket >= t.buckets.size()) return;
          const Training::Bucket& bucket = t.buckets[next_bucket];
          if (bucket.closing_layer != layer) return;
          ++next_bucket;
          all_reduce(bucket.begin_element, bucket.elements, bucket.name);
        });
      });
      if (group_ && sync == GradientSync::AfterBackward)
        all_reduce(0, t.grads.flat.numel(),
                   "all-reduce gradients (" + megabytes(t.grads.flat.numel() * std::int64_t{sizeof(float)}) + ")");
      if (!pending.empty())
        in_range("wait for all-reduces", [&] {
          for (auto& work : pending) work->wait();
        });
      in_range("optimizer step", [&] { model.net->sgd_step(t.grads, kLearningRate); });
    });
  }

  [[nodiscard]] double parameter_sum(int index) override {
    return guarded([&] {
      const Model& model = models_.at(static_cast<std::size_t>(index));
      const c10::DeviceGuard device_guard(model.device);
      double sum = 0;
      for (const auto& layer : model.net->layers())
        sum += layer.weight.to(at::kDouble).sum().item<double>() + layer.bias.to(at::kDouble).sum().item<double>();
      return sum;
    });
  }

  void prepare_matmul(int device, int n) override {
    check_device(device);
    guarded([&] {
      auto& operands = matrices_[{device, n}];
      if (operands.first.defined()) return;
      const auto options = at::TensorOptions().dtype(at::kFloat).device(to_device(device));
      const c10::DeviceGuard device_guard(to_device(device));
      operands = {at::randn({n, n}, options), at::randn({n, n}, options)};
      if (device != kCpuDevice) used_devices_.insert(device);
    });
  }

  void matmul(int device, int n) override {
    prepare_matmul(device, n);
    guarded([&] {
      const auto& operands = matrices_.at({device, n});
      const c10::DeviceGuard device_guard(to_device(device));
      const at::Tensor product = at::mm(operands.first, operands.second);
    });
  }

 private:
  void check_device(int device) const {
    if (device == kCpuDevice) return;
    if (!cuda_) throw EngineError("device " + std::to_string(device) + " needs a CUDA GPU and this run has none");
    if (device < 0 || device >= gpu_count_)
      throw EngineError("device " + std::to_string(device) + " does not exist: this machine has " +
                        std::to_string(gpu_count_) + " CUDA GPU(s), 0.." + std::to_string(gpu_count_ - 1));
  }

  // One launch of the model's graph on the device's current stream (its default stream unless use_stream), so
  // the GPU runs the same kernels in the same order as an ordinary forward there.
  static void replay(int index, Model& model, const ForwardOptions& options) {
    if (!model.graph)
      throw EngineError("model " + std::to_string(index) + " has no CUDA graph to replay (capture it first)");
    const ForwardPlacement placement(model, options.use_stream);
    const at::Tensor& out = model.graph->replay();
    copy_to_host(model, out, options.copy);
    if (options.keep_output) model.kept.push_back(out.clone());  // the next replay rewrites `out`
  }

  static void copy_to_host(Model& model, const at::Tensor& out, CopyMode mode) {
    switch (mode) {
      case CopyMode::None:
        return;
      case CopyMode::Pageable: {
        const at::Tensor host = out.to(at::TensorOptions().device(at::kCPU));
        return;
      }
      case CopyMode::PageableNonBlocking:
        model.host_pageable.copy_(out, /*non_blocking=*/true);
        return;
      case CopyMode::Pinned:
        (model.host_pinned.defined() ? model.host_pinned : model.host_pageable).copy_(out, /*non_blocking=*/true);
        return;
    }
  }

  // The current stream of every device in use plus the models' own streams.
  [[nodiscard]] std::vector<c10::Stream> streams_in_use() const {
    std::vector<c10::Stream> streams;
    const c10::impl::VirtualGuardImpl impl(c10::DeviceType::CUDA);
    auto add = [&](const c10::Stream& s) {
      if (std::find(streams.begin(), streams.end(), s) == streams.end()) streams.push_back(s);
    };
    for (int device : used_devices_) add(impl.getStream(to_device(device)));
    for (const auto& model : models_)
      if (model.stream) add(*model.stream);
    return streams;
  }

  static Training& training_of(Model& model, std::int64_t bucket_bytes) {
    if (!model.training) {
      auto t = std::make_unique<Training>();
      t->grads = model.net->make_gradients();
      t->target = at::randn({model.input.size(0), model.net->layers().back().weight.size(0)}, model.input.options());
      t->buckets = plan_buckets(*model.net, t->grads, bucket_bytes);
      model.training = std::move(t);
    }
    return *model.training;
  }

  bool cuda_ = false;
  int gpu_count_ = 0;
  // Declared before the models: destroyed after them, so no collective outlives its group.
  std::unique_ptr<ProcessGroup> group_;
  std::vector<Model> models_;
  std::set<int> used_devices_;
  std::map<std::pair<int, int>, std::pair<at::Tensor, at::Tensor>> matrices_;
};

}  // namespace

bool cuda_touched_in_this_process() { return g_cuda_touched.load(); }

// One CPU thread for LibTorch: an OpenMP pool the parent started does not survive fork.
void prepare_forked_child() { at::set_num_threads(1); }

std::vector<std::string> process_group_backends() { return ProcessGroup::backends(); }

std::unique_ptr<Engine> make_torch_engine(bool force_cpu) { return std::make_unique<TorchEngine>(force_cpu); }

}  // namespace gtv::exp
