#pragma once
// The compute side of the experiments behind a torch-free interface: scenario code says what to run (build a
// model, forward, copy, synchronize) and the one torch implementation (torch_engine.cpp) does it. This keeps
// torch headers, which compile slowly, in a few translation units, and keeps scenario logic readable.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

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

  // n x n matrix product on device; the operands are made on first use of (device, n), outside the product.
  virtual void prepare_matmul(int device, int n) = 0;
  virtual void matmul(int device, int n) = 0;
};

// force_cpu: ignore GPUs even when present.
[[nodiscard]] std::unique_ptr<Engine> make_torch_engine(bool force_cpu);

[[nodiscard]] std::string device_label(int device);

// Whether this process has asked CUDA anything yet (an engine made without force_cpu): CUDA reads
// CUDA_LAUNCH_BLOCKING when it starts, and a CUDA the parent started is unusable in forked children.
[[nodiscard]] bool cuda_touched_in_this_process();

// In a freshly forked worker: one CPU thread for LibTorch, because an OpenMP pool the parent started does not
// survive fork.
void prepare_forked_child();  // "cuda:1", "cpu"

}  // namespace gtv::exp
