#pragma once
// PyTorch operator ranges (aten::linear, aten::addmm ...) on the host lanes: while an OpTracer lives, LibTorch's
// global RecordFunction callbacks report every operator to the HostRecorder as an EventKind::CpuOp event on the
// thread that ran it, and every record_function range (USER_SCOPE) as an EventKind::Annotation. Torch-free interface;
// the implementation is op_tracer.cpp.
#include "gtv/collect/host_recorder.h"

namespace gtv::exp {

class OpTracer {
 public:
  // Only one OpTracer may live at a time (the callbacks are process-wide).
  explicit OpTracer(collect::HostRecorder& host);
  ~OpTracer();
  OpTracer(const OpTracer&) = delete;
  OpTracer& operator=(const OpTracer&) = delete;

 private:
  std::uint64_t handle_ = 0;
};

}  // namespace gtv::exp
