#pragma once
// The regions PyTorch's profiler marks on the host. Its steps ("ProfilerStep#N" annotations, each from one call of
// profiler.step() to the next, at the top level of the thread that steps) are the iterations of a training loop;
// each step's numbers are computed on its own window, that annotation's span. record_function ranges (every other
// host annotation) are named regions: per thread and name, the host time inside them and the GPU work launched
// from inside them. GPU work counts for the window it was launched in, wherever it ran: a kernel launched at the
// end of a step and run after it is that step's work.
#include <cstdint>
#include <string>
#include <vector>

#include "gtv/model/trace.h"

namespace gtv::analysis {

// One profiler step: its window and the GPU work launched inside it by any thread of its process (PyTorch's
// autograd engine launches the backward from its own thread, inside the step of the thread that called it).
struct StepWindow {
  std::string name;  // "ProfilerStep#3"
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  TimeNs gpu_ns = 0;         // busy time of that work on each GPU (its overlaps counted once), summed over GPUs
  TimeNs gpu_end_ns = 0;     // the end of that work; 0 when none
  std::size_t launches = 0;  // kernels, copies and memsets launched inside the window
  [[nodiscard]] TimeNs length_ns() const { return end_ns - start_ns; }
};

// The profiler steps of one process, from the host thread with the most of them.
struct ProcessSteps {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::vector<StepWindow> steps;  // in start order
};

// The record_function ranges of one name on one thread.
struct AnnotatedRanges {
  std::string name;
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::size_t count = 0;
  TimeNs host_ns = 0;  // the union of their spans
  TimeNs gpu_ns = 0;   // busy time of the GPU work this thread launched inside them, per GPU, summed over GPUs
  std::size_t launches = 0;
};

struct ProfilerSteps {
  std::vector<ProcessSteps> processes;  // by pid; only processes with profiler steps
  std::vector<AnnotatedRanges> ranges;  // most host time first
  std::size_t range_count = 0;          // record_function ranges (annotations other than profiler steps)
  std::vector<std::string> lines;       // sentences, each naming the window its numbers are on
  [[nodiscard]] std::size_t step_count() const {
    std::size_t n = 0;
    for (const ProcessSteps& p : processes) n += p.steps.size();
    return n;
  }
};

[[nodiscard]] ProfilerSteps analyze_profiler_steps(const Trace& trace);

}  // namespace gtv::analysis
