#pragma once
// Communication against computation on each GPU, as HolisticTraceAnalysis's get_comm_comp_overlap defines it:
// kernels are communication (NCCL collectives and peer copies, "nccl" in the name), memory (copies and sets) or
// computation (every other kernel); per GPU, the union of each kind's time, the time communication and computation
// ran at once (overlap), and the communication time with no computation beside it (exposed). The overlap ratio is
// overlap over communication time. Over the whole trace, like HTA.
#include <cstdint>
#include <string>
#include <vector>

#include "gtv/analysis/intervals.h"
#include "gtv/model/trace.h"

namespace gtv::analysis {

struct DeviceCommunication {
  std::int64_t device = 0;
  std::size_t communication_kernels = 0;
  TimeNs communication_ns = 0;                 // union of the communication kernels' time
  TimeNs computation_ns = 0;                   // union of the computation kernels' time
  TimeNs memory_ns = 0;                        // union of copies and sets
  TimeNs overlap_ns = 0;                       // communication and computation at once
  TimeNs exposed_ns = 0;                       // communication_ns - overlap_ns
  std::vector<Interval> overlap_spans;         // when communication ran beside computation (sorted, disjoint)
  std::vector<Interval> exposed_spans;         // when it ran alone: the timeline's communication row
  [[nodiscard]] double overlap_ratio() const;  // overlap over communication, 0 without communication
};

struct Communication {
  std::vector<DeviceCommunication> devices;  // GPUs that ran communication kernels, by device
  std::vector<std::string> lines;            // empty when no GPU ran communication kernels
};

[[nodiscard]] Communication analyze_communication(const Trace& trace);

}  // namespace gtv::analysis
