#include "trace_generator.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <string_view>
#include <vector>

namespace gtv::bench {
namespace {

constexpr std::int64_t kHostPid = 2834121;
constexpr std::int64_t kHostTidBase = 2834121;
constexpr std::int64_t kStreamIds[] = {7, 13, 17, 21, 25, 29, 33, 37};
constexpr std::int64_t kBaseTimeNs = 1'790'857'026'000'000'000;  // baseTimeNanoseconds (Unix ns)
constexpr std::int64_t kFirstTsUs = 5'149'158'474'000;           // as in real Kineto traces (us)

constexpr std::string_view kAllReduceKernel =
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

// A PyTorch op and the kernel it launches, with a plausible launch configuration.
struct OpKernel {
  std::string_view op;
  std::string_view kernel;
  int grid_x;
  int block_x;
  int registers;
  int shared_bytes;
};

constexpr std::array<OpKernel, 6> kOps = {{
    {"aten::addmm",
     "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
     "cublas",
     79, 128, 168, 98304},
    {"aten::relu",
     "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
     "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
     "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() "
     "const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous "
     "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
     "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() "
     "const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
     1954, 128, 26, 0},
    {"aten::native_dropout",
     "void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, unsigned int, 1, 4, "
     "bool>(at::cuda::detail::TensorInfo<float const, unsigned int>, at::cuda::detail::TensorInfo<float, unsigned "
     "int>, at::cuda::detail::TensorInfo<bool, unsigned int>, unsigned int, float, at::PhiloxCudaState)",
     264, 256, 40, 0},
    {"aten::fill_",
     "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> "
     ">(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
     1172, 128, 16, 0},
    {"aten::mm",
     "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize64x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
     "cublas",
     157, 128, 154, 65536},
    {"aten::add_",
     "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, "
     "3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
     3907, 128, 20, 0},
}};

// splitmix64: deterministic and fast.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
};

class Writer {
 public:
  explicit Writer(std::FILE* file) : file_(file) { buffer_.reserve(kFlushBytes + 4096); }
  void text(std::string_view s) { buffer_.append(s); }
  // Microseconds with three decimals from nanoseconds, as Kineto prints them.
  void time_us(std::int64_t ns) {
    char digits[32];
    const int n = std::snprintf(digits, sizeof digits, "%" PRId64 ".%03d", ns / 1000, static_cast<int>(ns % 1000));
    buffer_.append(digits, static_cast<std::size_t>(n));
  }
  void integer(std::int64_t value) {
    char digits[24];
    const int n = std::snprintf(digits, sizeof digits, "%" PRId64, value);
    buffer_.append(digits, static_cast<std::size_t>(n));
  }
  void maybe_flush() {
    if (buffer_.size() >= kFlushBytes) flush();
  }
  bool flush() {
    bytes_ += buffer_.size();
    const bool ok = std::fwrite(buffer_.data(), 1, buffer_.size(), file_) == buffer_.size();
    buffer_.clear();
    ok_ = ok_ && ok;
    return ok_;
  }
  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] std::uint64_t bytes() const { return bytes_; }

 private:
  static constexpr std::size_t kFlushBytes = 1 << 20;
  std::FILE* file_;
  std::string buffer_;
  std::uint64_t bytes_ = 0;
  bool ok_ = true;
};

// An "X" event's common head: ph, cat, name, pid, tid, ts, dur; the caller writes args and closes.
void event_head(Writer& w, std::string_view cat, std::string_view name, std::int64_t pid, std::int64_t tid,
                std::int64_t ts_ns, std::int64_t dur_ns) {
  w.text(",\n  {\n    \"ph\": \"X\", \"cat\": \"");
  w.text(cat);
  w.text("\", \"name\": \"");
  w.text(name);
  w.text("\", \"pid\": ");
  w.integer(pid);
  w.text(", \"tid\": ");
  w.integer(tid);
  w.text(",\n    \"ts\": ");
  w.time_us(ts_ns);
  w.text(", \"dur\": ");
  w.time_us(dur_ns);
}

void flow(Writer& w, char phase, std::uint64_t id, std::int64_t pid, std::int64_t tid, std::int64_t ts_ns) {
  w.text(",\n  {\n    \"ph\": \"");
  w.text(std::string_view(&phase, 1));
  w.text("\", \"id\": ");
  w.integer(static_cast<std::int64_t>(id));
  w.text(", \"pid\": ");
  w.integer(pid);
  w.text(", \"tid\": ");
  w.integer(tid);
  w.text(", \"ts\": ");
  w.time_us(ts_ns);
  w.text(phase == 'f' ? ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }"
                      : ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  }");
}

void metadata_event(Writer& w, std::string_view what, std::int64_t pid, std::int64_t tid, std::string_view key,
                    std::string_view value, bool quoted) {
  w.text(",\n  {\n    \"name\": \"");
  w.text(what);
  w.text("\", \"ph\": \"M\", \"ts\": ");
  w.integer(kFirstTsUs);
  w.text(", \"pid\": ");
  w.integer(pid);
  w.text(", \"tid\": ");
  w.integer(tid);
  w.text(",\n    \"args\": {\"");
  w.text(key);
  w.text(quoted ? "\": \"" : "\": ");
  w.text(value);
  w.text(quoted ? "\"}\n  }" : "}\n  }");
}

// One host op and the GPU work it launches. Emits at most `budget` X events so the total is exact.
class GroupEmitter {
 public:
  GroupEmitter(const GeneratorConfig& config, Writer& writer, GeneratorStats& stats)
      : config_(config),
        w_(writer),
        stats_(stats),
        rng_{config.seed},
        host_ns_(static_cast<std::size_t>(config.host_threads), std::int64_t{kFirstTsUs} * 1000),
        stream_free_ns_(static_cast<std::size_t>(config.gpus * config.streams_per_gpu), 0) {}

  void emit(std::uint64_t group, std::uint64_t budget) {
    const int thread = static_cast<int>(group % static_cast<std::uint64_t>(config_.host_threads));
    const int gpu = thread % config_.gpus;
    const int stream_slot = static_cast<int>((group / static_cast<std::uint64_t>(config_.host_threads)) %
                                             static_cast<std::uint64_t>(config_.streams_per_gpu));
    const bool copy = rng_.next() % 16 == 0;
    const OpKernel& op = kOps[rng_.next() % kOps.size()];
    const std::int64_t tid = kHostTidBase + std::int64_t{thread} * 37;
    std::int64_t& host = host_ns_[static_cast<std::size_t>(thread)];

    const std::int64_t op_start = host;
    const std::int64_t launch_start = op_start + rng_.between(1500, 6000);
    const std::int64_t launch_dur = rng_.between(2500, 8000);
    const std::int64_t op_end = launch_start + launch_dur + rng_.between(800, 3000);
    host = op_end + rng_.between(300, 2000);
    const std::uint64_t correlation = ++correlation_;
    const std::uint64_t external = ++external_;

    cpu_op(copy ? std::string_view("aten::copy_") : op.op, tid, op_start, op_end - op_start, external);
    if (budget < 2) return;
    runtime(copy ? "cudaMemcpyAsync" : "cudaLaunchKernel", copy ? 41 : 211, tid, launch_start, launch_dur, correlation,
            external);
    if (budget < 3) return;
    const std::size_t slot = static_cast<std::size_t>(gpu) * static_cast<std::size_t>(config_.streams_per_gpu) +
                             static_cast<std::size_t>(stream_slot);
    const std::int64_t stream = kStreamIds[slot % std::size(kStreamIds)];
    const std::int64_t gpu_start =
        std::max(launch_start + launch_dur / 2 + rng_.between(3000, 9000), stream_free_ns_[slot]);
    const std::int64_t gpu_dur = copy ? rng_.between(4000, 60000) : rng_.between(2000, 45000);
    stream_free_ns_[slot] = gpu_start + gpu_dur + rng_.between(500, 2000);
    if (copy)
      memcpy_event(gpu, stream, gpu_start, gpu_dur, correlation, external);
    else
      kernel(op, gpu, stream, gpu_start, gpu_dur, correlation, external);
    flow(w_, 's', correlation, kHostPid, tid, launch_start);
    flow(w_, 'f', correlation, gpu, stream, gpu_start);
    ++stats_.flows;
  }

 private:
  void cpu_op(std::string_view name, std::int64_t tid, std::int64_t start, std::int64_t dur, std::uint64_t ext) {
    event_head(w_, "cpu_op", name, kHostPid, tid, start, dur);
    w_.text(",\n    \"args\": {\n      \"External id\": ");
    w_.integer(static_cast<std::int64_t>(ext));
    w_.text(",\"Record function id\": 0, \"Ev Idx\": ");
    w_.integer(static_cast<std::int64_t>(ext - 1));
    w_.text("\n    }\n  }");
    ++stats_.cpu_ops;
    ++stats_.events;
  }

  void runtime(std::string_view name, int cbid, std::int64_t tid, std::int64_t start, std::int64_t dur,
               std::uint64_t correlation, std::uint64_t ext) {
    event_head(w_, "cuda_runtime", name, kHostPid, tid, start, dur);
    w_.text(",\n    \"args\": {\n      \"External id\": ");
    w_.integer(static_cast<std::int64_t>(ext));
    w_.text(",\n      \"cbid\": ");
    w_.integer(cbid);
    w_.text(", \"correlation\": ");
    w_.integer(static_cast<std::int64_t>(correlation));
    w_.text("\n    }\n  }");
    ++stats_.runtime_calls;
    ++stats_.events;
  }

  void gpu_args(int gpu, std::int64_t stream, std::uint64_t correlation, std::uint64_t ext) {
    w_.text(",\n    \"args\": {\n      \"External id\": ");
    w_.integer(static_cast<std::int64_t>(ext));
    w_.text(",\n      \"queued\": 0, \"device\": ");
    w_.integer(gpu);
    w_.text(", \"context\": 1,\n      \"stream\": ");
    w_.integer(stream);
    w_.text(", \"correlation\": ");
    w_.integer(static_cast<std::int64_t>(correlation));
  }

  void kernel(const OpKernel& op, int gpu, std::int64_t stream, std::int64_t start, std::int64_t dur,
              std::uint64_t correlation, std::uint64_t ext) {
    const bool collective = config_.collective_every > 0 && stats_.kernels % config_.collective_every == 0;
    event_head(w_, "kernel", collective ? std::string_view(kAllReduceKernel) : op.kernel, gpu, stream, start, dur);
    gpu_args(gpu, stream, correlation, ext);
    if (collective) {
      w_.text(",\n      \"Process Group Name\": \"0\", \"Seq\": ");
      w_.integer(static_cast<std::int64_t>(stats_.kernels / config_.collective_every));
    }
    w_.text(",\n      \"registers per thread\": ");
    w_.integer(op.registers);
    w_.text(",\n      \"shared memory\": ");
    w_.integer(op.shared_bytes);
    w_.text(",\n      \"blocks per SM\": 0.598485,\n      \"warps per SM\": 2.393939,\n      \"grid\": [");
    w_.integer(op.grid_x);
    w_.text(", 1, 1],\n      \"block\": [");
    w_.integer(op.block_x);
    w_.text(", 1, 1],\n      \"est. achieved occupancy %\": 4\n    }\n  }");
    ++stats_.kernels;
    ++stats_.events;
  }

  void memcpy_event(int gpu, std::int64_t stream, std::int64_t start, std::int64_t dur, std::uint64_t correlation,
                    std::uint64_t ext) {
    const bool to_device = correlation % 2 == 0;
    event_head(w_, "gpu_memcpy", to_device ? "Memcpy HtoD (Pageable -> Device)" : "Memcpy DtoH (Device -> Pinned)", gpu,
               stream, start, dur);
    gpu_args(gpu, stream, correlation, ext);
    const std::int64_t bytes = 40000 * (1 + static_cast<std::int64_t>(correlation % 64));
    w_.text(",\n      \"bytes\": ");
    w_.integer(bytes);
    w_.text(", \"memory bandwidth (GB/s)\": ");
    w_.integer(std::max<std::int64_t>(1, bytes / std::max<std::int64_t>(dur, 1)));
    w_.text("\n    }\n  }");
    ++stats_.memcpys;
    ++stats_.events;
  }

  const GeneratorConfig& config_;
  Writer& w_;
  GeneratorStats& stats_;
  Rng rng_;
  std::vector<std::int64_t> host_ns_;
  std::vector<std::int64_t> stream_free_ns_;
  std::uint64_t correlation_ = 0;
  std::uint64_t external_ = 0;
};

void write_header(const GeneratorConfig& config, Writer& w) {
  w.text("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
  for (int gpu = 0; gpu < config.gpus; ++gpu) {
    w.text(gpu == 0 ? "\n    {\n      \"id\": " : ",\n    {\n      \"id\": ");
    w.integer(gpu);
    w.text(
        ", \"name\": \"NVIDIA H200\", \"totalGlobalMem\": 150110011392,\n"
        "      \"computeMajor\": 9, \"computeMinor\": 0,\n      \"maxThreadsPerBlock\": 1024, "
        "\"maxThreadsPerMultiprocessor\": 2048,\n      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
        "      \"sharedMemPerBlock\": 49152, \"numSms\": 132\n    }");
  }
  w.text("\n  ],\n  \"traceEvents\": [\n  {\n    \"name\": \"process_labels\", \"ph\": \"M\", \"ts\": ");
  w.integer(kFirstTsUs);
  w.text(", \"pid\": ");
  w.integer(kHostPid);
  w.text(", \"tid\": 0,\n    \"args\": {\"labels\": \"CPU\"}\n  }");
}

void write_metadata(const GeneratorConfig& config, Writer& w) {
  metadata_event(w, "process_name", kHostPid, 0, "name", "python", true);
  for (int thread = 0; thread < config.host_threads; ++thread) {
    const std::int64_t tid = kHostTidBase + std::int64_t{thread} * 37;
    metadata_event(w, "thread_name", kHostPid, tid, "name", "thread " + std::to_string(tid) + " (python)", true);
  }
  for (int gpu = 0; gpu < config.gpus; ++gpu) {
    metadata_event(w, "process_name", gpu, 0, "name", "python", true);
    metadata_event(w, "process_labels", gpu, 0, "labels", "GPU " + std::to_string(gpu), true);
    metadata_event(w, "process_sort_index", gpu, 0, "sort_index", std::to_string(gpu + 0x1000000), false);
    for (int slot = 0; slot < config.streams_per_gpu; ++slot) {
      const std::int64_t stream =
          kStreamIds[static_cast<std::size_t>(gpu * config.streams_per_gpu + slot) % std::size(kStreamIds)];
      metadata_event(w, "thread_name", gpu, stream, "name", "stream " + std::to_string(stream), true);
    }
  }
}

}  // namespace

bool generate_trace(const GeneratorConfig& config, std::FILE* file, GeneratorStats& stats) {
  stats = {};
  Writer writer(file);
  write_header(config, writer);
  write_metadata(config, writer);
  GroupEmitter emitter(config, writer, stats);
  for (std::uint64_t group = 0; stats.events < config.event_count; ++group) {
    emitter.emit(group, config.event_count - stats.events);
    writer.maybe_flush();
  }
  writer.text(
      "\n  ],\n  \"traceName\": \"gtv-trace-gen\",\n  \"displayTimeUnit\": \"ms\",\n"
      "  \"baseTimeNanoseconds\": ");
  writer.integer(kBaseTimeNs);
  if (config.rank >= 0) {
    writer.text(",\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ");
    writer.integer(config.rank);
    writer.text(", \"world_size\": ");
    writer.integer(config.world_size);
    writer.text("}");
  }
  writer.text("\n}\n");
  const bool ok = writer.flush();
  stats.bytes = writer.bytes();
  return ok;
}

std::string generate_trace_file(const GeneratorConfig& config, const std::string& path, GeneratorStats& stats) {
  const std::string temp_path = path + ".tmp";
  std::FILE* file = std::fopen(temp_path.c_str(), "wb");
  if (file == nullptr) return path + ": cannot open for writing";
  const bool written = generate_trace(config, file, stats);
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) {
    std::remove(temp_path.c_str());
    return path + ": write failed (disk full?)";
  }
  if (std::rename(temp_path.c_str(), path.c_str()) != 0) {
    std::remove(temp_path.c_str());
    return path + ": cannot rename the temporary file into place";
  }
  return {};
}

std::string generate_temp_trace(std::uint64_t events, std::string& path, GeneratorStats& stats) {
  path = (std::filesystem::temp_directory_path() / ("gtv-bench-" + std::to_string(events) + ".json")).string();
  GeneratorConfig config;
  config.event_count = events;
  return generate_trace_file(config, path, stats);
}

}  // namespace gtv::bench
