#pragma once
// The compute side of the experiments behind a torch-free interface: scenario code says what to run (build a
// model, forward, copy, synchronize) and the one torch implementation (torch_engine.cpp) does it. This keeps
// torch headers, which compile slowly, in a few translation units, and keeps scenario logic readable.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/base/time.h"

namespace gtv::exp {

// Anything the engine reports as failed (out of memory, bad device), with a one-line message.
class EngineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr int kCpuDevice = -1;

struct NetShape {
  int input = 100;
  int hidden = 10000;
  int output = 100;
  double dropout = 0.4;
  int batch = 100;
};

// LargeFcNet's layers: input -> hidden, kHiddenLayers hidden -> hidden, hidden -> output.
inline constexpr int kHiddenLayers = 6;

// Weights and biases of a LargeFcNet of this shape.
[[nodiscard]] constexpr std::int64_t parameter_count(const NetShape& s) {
  const std::int64_t in = s.input, hidden = s.hidden, out = s.output;
  return in * hidden + hidden + kHiddenLayers * (hidden * hidden + hidden) + hidden * out + out;
}

enum class CopyMode : std::uint8_t {
  None,
  Pageable,             // out.to(kCPU): a synchronous copy into fresh pageable memory
  PageableNonBlocking,  // copy_(out, non_blocking) into a pageable buffer: still synchronous
  Pinned,               // copy_(out, non_blocking) into a pinned buffer: asynchronous
};

struct ForwardOptions {
  bool redundant_to = false;  // input.to(device) before each call, as the seed's method 2 did
  bool keep_output = false;   // keep the output (method 3's list, copy-batched)
  bool use_stream = false;    // run on the model's own stream (create_model_streams first)
  bool replay_graph = false;  // replay the model's CUDA graph (capture_forward_graph first) instead of running it
  CopyMode copy = CopyMode::None;
};

// CUDA timing events recorded on every stream in use; elapsed_ns() waits for the end events.
class EventTimer {
 public:
  EventTimer() = default;
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  virtual ~EventTimer() = default;
  virtual void stop() = 0;
  // The longest start-to-end time over the streams.
  [[nodiscard]] virtual TimeNs elapsed_ns() = 0;
};

// How a data-parallel training step hands its gradients to the other ranks (the ddp scenarios).
enum class GradientSync : std::uint8_t {
  AfterBackward,  // one all-reduce of every gradient once backward has finished
  Bucketed,       // an all-reduce per bucket of layers, started as soon as backward has written the bucket, as
                  // DistributedDataParallel does: communication overlaps the rest of backward
};

// This process's place in a torch.distributed run: the rendezvous (a c10d TCPStore at master_addr:master_port)
// and the backend that carries the collectives.
struct ProcessGroupConfig {
  std::string backend;  // "nccl" or "gloo"
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;        // the rank's place on its machine, which picks its GPU
  bool store_server = true;  // this process serves the TCPStore (rank 0, unless a launcher such as torchrun does)
  std::chrono::milliseconds timeout{std::chrono::minutes(2)};  // rendezvous and each collective
};

// Runs body inside a host range called name (the scenario's recorder), so engine steps show on the timeline.
using RangeFn = std::function<void(std::string_view name, const std::function<void()>& body)>;

class Engine {
 public:
  Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  virtual ~Engine() = default;

  [[nodiscard]] virtual bool cuda_available() const = 0;
  [[nodiscard]] virtual int gpu_count() const = 0;
  [[nodiscard]] virtual std::string torch_version() const = 0;
  [[nodiscard]] virtual bool timing_events_supported() const = 0;

  // Builds a LargeFcNet and its input batch on device (kCpuDevice for the CPU); returns the model index.
  virtual int add_model(const NetShape& shape, int device) = 0;
  [[nodiscard]] virtual int model_count() const = 0;
  [[nodiscard]] virtual int device_of(int model) const = 0;
  // Gives each GPU model its own stream from the pool (CPU models keep none).
  virtual void create_model_streams() = 0;
  // Whether this LibTorch build can capture CUDA graphs (at::cuda::CUDAGraph needs LibTorch built with CUDA).
  [[nodiscard]] virtual bool cuda_graphs_supported() const = 0;
  // Captures one forward of a GPU model as a CUDA graph, once: on a pool stream of its device, after one forward
  // on that stream outside the capture (cuBLAS makes its handle and workspace there), from the model's input to a
  // static output that every replay rewrites. ForwardOptions::replay_graph then launches the whole forward with
  // one cudaGraphLaunch on the device's current stream. EngineError for CPU models and builds without graphs.
  virtual void capture_forward_graph(int model) = 0;
  // One inference pass. Calls for different models may run on different threads at once.
  virtual void forward(int model, const ForwardOptions& options) = 0;
  // Copies each model's kept outputs to the host in one copy per model, then forgets them.
  virtual void copy_kept_outputs() = 0;
  virtual void clear_kept_outputs() = 0;
  // Waits for every device in use; nothing to wait for on the CPU.
  virtual void synchronize() = 0;
  // Null when this build or machine has no CUDA timing events.
  [[nodiscard]] virtual std::unique_ptr<EventTimer> start_event_timer() = 0;

  // Joins the process group (blocks until every rank has arrived or the timeout passed) and seeds this rank's
  // random numbers with its rank, so each rank draws its own data. EngineError on failure.
  virtual void join_process_group(const ProcessGroupConfig& config) = 0;
  // DistributedDataParallel's start: every rank takes rank 0's parameters of model (one broadcast per tensor).
  virtual void broadcast_parameters(int model) = 0;
  // One data-parallel training step of model on this rank's own batch: forward, backward of a mean squared error,
  // gradients averaged over the ranks as sync says (buckets of about bucket_bytes), SGD update. Each part runs in
  // a host range through in_range ("forward", "backward", "all-reduce ...", "wait for all-reduces", "optimizer
  // step"). Without a process group the gradients stay local.
  virtual void train_step(int model, GradientSync sync, std::int64_t bucket_bytes, const RangeFn& in_range) = 0;
  // The sum of every parameter of model (ranks that averaged their gradients hold the same parameters).
  [[nodiscard]] virtual double parameter_sum(int model) = 0;

  // n x n matrix product on device; the operands are made on first use of (device, n), outside the product.
  virtual void prepare_matmul(int device, int n) = 0;
  virtual void matmul(int device, int n) = 0;
};

// The c10d backends this LibTorch build can create, preferred first ("nccl", "gloo"); asks no GPU anything.
[[nodiscard]] std::vector<std::string> process_group_backends();

// force_cpu: ignore GPUs even when present.
[[nodiscard]] std::unique_ptr<Engine> make_torch_engine(bool force_cpu);

[[nodiscard]] std::string device_label(int device);  // "cuda:1", "cpu"

// Whether this process has asked CUDA anything yet (an engine made without force_cpu): CUDA reads
// CUDA_LAUNCH_BLOCKING when it starts, and a CUDA the parent started is unusable in forked children.
[[nodiscard]] bool cuda_touched_in_this_process();

}  // namespace gtv::exp
