#pragma once
// A c10d process group (ProcessGroupNCCL or ProcessGroupGloo, whichever this LibTorch build can make) behind one
// small interface, so the training step does not depend on the backend that carries its collectives. Torch types
// appear here: include only from torch translation units.
#include <ATen/ATen.h>

#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <vector>

#include "engine.h"

namespace gtv::exp {

using PendingCollective = c10::intrusive_ptr<c10d::Work>;

class ProcessGroup {
 public:
  ProcessGroup() = default;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;
  virtual ~ProcessGroup() = default;

  // The backends this build can create, in order of preference on GPUs ("nccl", then "gloo").
  [[nodiscard]] static std::vector<std::string> backends();
  // Rendezvous through a TCPStore and the backend's own connection set-up; blocks until every rank has joined.
  // EngineError for a backend this build lacks; c10::Error from c10d (timeouts, refused connections).
  [[nodiscard]] static std::unique_ptr<ProcessGroup> join(const ProcessGroupConfig& config);

  [[nodiscard]] virtual const ProcessGroupConfig& config() const = 0;
  // Starts a sum over the ranks of tensor, in place; wait() on the result makes the caller's stream (NCCL) or
  // thread (Gloo) wait for it.
  [[nodiscard]] virtual PendingCollective all_reduce_sum(at::Tensor& tensor) = 0;
  [[nodiscard]] virtual PendingCollective broadcast(at::Tensor& tensor, int root_rank) = 0;
};

}  // namespace gtv::exp
