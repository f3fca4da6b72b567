#pragma once
// Truth from a GPU recording, computed here from the events (independently of core/analysis's reports).
#include <string_view>

#include "gtv/model/trace.h"

namespace gtv::exp::gpu_test {

// The first range of that kind and name; fails the test (returns a zero range) when missing.
[[nodiscard]] Range find_range(const Trace& trace, RangeKind kind, std::string_view name);
[[nodiscard]] const Measurement* find_measurement(const Trace& trace, std::string_view name, MeasurementMethod method);
// Kernels on GPU lanes of device.
[[nodiscard]] int kernels_on_device(const Trace& trace, int device);
// Sum of each GPU's busy time (union of its kernels, copies and memsets) over the union of all GPUs' busy time,
// both clipped to [start_ns, end_ns). 0 when nothing ran.
[[nodiscard]] double gpu_concurrency(const Trace& trace, TimeNs start_ns, TimeNs end_ns);
// First start to last end of GPU activity inside [start_ns, end_ns).
[[nodiscard]] TimeNs gpu_span_ns(const Trace& trace, TimeNs start_ns, TimeNs end_ns);
// CUDA GPUs, counted in a forked child: scenarios that fork their own ranks refuse a parent that touched CUDA.
[[nodiscard]] int gpu_count_in_child();

}  // namespace gtv::exp::gpu_test
