#pragma once
// PyTorch's CUDA caching allocator as counter rows. While an AllocatorCounters lives, every range boundary the
// HostRecorder records (scenario, phase, warm-up, iteration, model forward: start and end) samples, for each GPU
// of the run, the allocator's aggregate current bytes: what its tensors hold ("allocated by PyTorch (bytes)") and
// what it holds from the driver ("reserved by PyTorch (bytes)"), as counter samples with the device as pid.
// Torch-free interface; the implementation is allocator_counters.cpp. Does nothing in LibTorch builds without
// CUDA, and for runs without GPUs (an empty device list).
#include <vector>

#include "gtv/collect/host_recorder.h"

namespace gtv::exp {

class AllocatorCounters {
 public:
  // Only one may live per HostRecorder (it owns the recorder's boundary hook); destroy it after the threads that
  // record ranges have ended.
  AllocatorCounters(collect::HostRecorder& host, const std::vector<int>& devices);
  ~AllocatorCounters();
  AllocatorCounters(const AllocatorCounters&) = delete;
  AllocatorCounters& operator=(const AllocatorCounters&) = delete;

 private:
  collect::HostRecorder& host_;
  bool hooked_ = false;
};

}  // namespace gtv::exp
