// ProcessGroup over c10d. GTV_C10D_NCCL and GTV_C10D_GLOO say which backends this build found headers for (the
// CMake file checks): pip's LibTorch with CUDA ships ProcessGroupNCCL and NCCL's header, Debian's CPU LibTorch
// has ProcessGroupGloo when gloo's headers (libgloo-dev) are installed.
#include "process_group.h"

#include <torch/version.h>

#include <thread>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#if GTV_C10D_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#if GTV_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace gtv::exp {
namespace {

// The key every rank adds itself to when it leaves; the rank that serves the store waits for all of them, so no
// rank loses the store (NCCL's watchdog polls it) while it still shuts down.
constexpr const char* kLeftKey = "gtv/ranks-left";

template <typename Group>
class ProcessGroupOf final : public ProcessGroup {
 public:
  ProcessGroupOf(ProcessGroupConfig config, c10::intrusive_ptr<c10d::Store> store, c10::intrusive_ptr<Group> group)
      : config_(std::move(config)), store_(std::move(store)), group_(std::move(group)) {}

  ~ProcessGroupOf() override {
    try {
      shut_down(*group_);
      group_.reset();
      store_->add(kLeftKey, 1);
      if (!config_.store_server) return;
      const auto deadline = std::chrono::steady_clock::now() + config_.timeout;
      while (store_->add(kLeftKey, 0) < config_.world_size && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } catch (const std::exception&) {
      // A peer that died took the store's connection with it; nothing is left to wait for.
    }
  }

  [[nodiscard]] const ProcessGroupConfig& config() const override { return config_; }

  PendingCollective all_reduce_sum(at::Tensor& tensor) override {
    std::vector<at::Tensor> tensors{tensor};
    return group_->allreduce(tensors);
  }

  PendingCollective broadcast(at::Tensor& tensor, int root_rank) override {
    std::vector<at::Tensor> tensors{tensor};
    c10d::BroadcastOptions options;
    options.rootRank = root_rank;
    return group_->broadcast(tensors, options);
  }

 private:
  template <typename G>
  static void shut_down(G& group) {
    if constexpr (requires { group.shutdown(); }) group.shutdown();  // NCCL in LibTorch 2.x: ends its watchdog
  }

  ProcessGroupConfig config_;
  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<Group> group_;
};

bool is_loopback(const std::string& address) {
  return address == "127.0.0.1" || address == "localhost" || address == "::1";
}

c10::intrusive_ptr<c10d::Store> connect_store(const ProcessGroupConfig& c) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(c.master_port);
  options.isServer = c.store_server;
  options.numWorkers = static_cast<std::size_t>(c.world_size);
  options.waitWorkers = true;  // every rank counts itself in; the server waits for all of them
  options.timeout = c.timeout;
  return c10::make_intrusive<c10d::TCPStore>(c.master_addr, options);
}

}  // namespace

std::vector<std::string> ProcessGroup::backends() {
  std::vector<std::string> names;
#if GTV_C10D_NCCL
  names.emplace_back("nccl");
#endif
#if GTV_C10D_GLOO
  names.emplace_back("gloo");
#endif
  return names;
}

std::unique_ptr<ProcessGroup> ProcessGroup::join(const ProcessGroupConfig& config) {
  const c10::intrusive_ptr<c10d::Store> store = connect_store(config);
  // The backend's keys under their own prefix, apart from kLeftKey.
  const auto group_store = c10::make_intrusive<c10d::PrefixStore>("gtv-ddp", store);
#if GTV_C10D_NCCL
  if (config.backend == "nccl") {
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = config.timeout;
    auto group = c10::make_intrusive<c10d::ProcessGroupNCCL>(group_store, config.rank, config.world_size, options);
    return std::make_unique<ProcessGroupOf<c10d::ProcessGroupNCCL>>(config, store, std::move(group));
  }
#endif
#if GTV_C10D_GLOO
  if (config.backend == "gloo") {
    auto options = c10d::ProcessGroupGloo::Options::create(config.timeout);
    options->devices.push_back(is_loopback(config.master_addr)
                                   ? c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                                   : c10d::ProcessGroupGloo::createDefaultDevice());
    auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(group_store, config.rank, config.world_size, options);
    return std::make_unique<ProcessGroupOf<c10d::ProcessGroupGloo>>(config, store, std::move(group));
  }
#endif
  std::string available;
  for (const std::string& name : backends()) available += (available.empty() ? "" : ", ") + name;
  throw EngineError("this LibTorch build cannot make a '" + config.backend + "' process group (it has " +
                    (available.empty() ? std::string("none") : available) + ")");
}

}  // namespace gtv::exp
