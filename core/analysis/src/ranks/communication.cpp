#include "gtv/analysis/communication.h"

#include <map>

#include "gtv/analysis/format.h"
#include "gtv/analysis/intervals.h"
#include "gtv/model/collectives.h"
#include "gtv/model/ranks.h"
#include "report/record_names.h"

namespace gtv::analysis {
namespace {

struct DeviceIntervals {
  std::size_t communication_kernels = 0;
  std::vector<Interval> communication, computation, memory;
};

std::string device_label(const Trace& trace, std::int64_t device) {
  if (!trace.metadata().ranks.empty()) return gpu_label(trace, device);
  const DistributedInfo& d = trace.metadata().distributed;
  std::string label = "GPU " + std::to_string(device);
  if (d.rank >= 0)
    label += " (rank " + std::to_string(d.rank) + (d.world_size > 0 ? " of " + std::to_string(d.world_size) : "") + ")";
  return label;
}

// "GPU 0 (rank 1 of 2): communication kernels (5) ran 41.5 ms, 12.3 ms of it (30%) beside computation; 29.2 ms
// exposed. Computation kernels ran 120.0 ms, copies and sets 1.2 ms."
std::string device_line(const Trace& trace, const DeviceCommunication& d) {
  std::string out = device_label(trace, d.device) + ": communication kernels (" +
                    grouped_count(d.communication_kernels) + ") ran " + format_duration(d.communication_ns) + ", " +
                    format_duration(d.overlap_ns) + " of it (" + percent(d.overlap_ratio()) +
                    ") while computation kernels ran on the same GPU; " + format_duration(d.exposed_ns) +
                    " exposed (no computation beside it). Computation kernels ran " + format_duration(d.computation_ns);
  if (d.memory_ns > 0) out += ", copies and sets " + format_duration(d.memory_ns);
  return out + ".";
}

}  // namespace

double DeviceCommunication::overlap_ratio() const {
  return safe_ratio(static_cast<double>(overlap_ns), static_cast<double>(communication_ns));
}

Communication analyze_communication(const Trace& trace) {
  std::map<std::int64_t, DeviceIntervals> by_device;
  CommunicationNames is_communication(trace.strings());
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu()) continue;
    DeviceIntervals& d = by_device[lane.device()];
    for (const Event& e : lane.events) {
      if (!is_gpu_activity(e.kind)) continue;
      const Interval span{e.start_ns, e.end_ns()};
      if (e.kind != EventKind::Kernel) {
        d.memory.push_back(span);
      } else if (is_communication(e.name)) {
        d.communication.push_back(span);
        ++d.communication_kernels;
      } else {
        d.computation.push_back(span);
      }
    }
  }
  Communication out;
  for (auto& [device, d] : by_device) {
    if (d.communication_kernels == 0) continue;
    merge_in_place(d.communication);
    merge_in_place(d.computation);
    merge_in_place(d.memory);
    DeviceCommunication c;
    c.device = device;
    c.communication_kernels = d.communication_kernels;
    c.communication_ns = total_length_ns(d.communication);
    c.computation_ns = total_length_ns(d.computation);
    c.memory_ns = total_length_ns(d.memory);
    c.overlap_spans = intersection_of(d.communication, d.computation);
    c.exposed_spans = difference_of(d.communication, d.computation);
    c.overlap_ns = total_length_ns(c.overlap_spans);
    c.exposed_ns = c.communication_ns - c.overlap_ns;
    out.devices.push_back(c);
  }
  if (out.devices.empty()) return out;
  for (const DeviceCommunication& c : out.devices) out.lines.push_back(device_line(trace, c));
  out.lines.emplace_back(
      "Over the whole trace. Communication kernels have \"nccl\" in their name; copies and sets count as neither "
      "communication nor computation; the overlap is HolisticTraceAnalysis's get_comm_comp_overlap (the time both "
      "ran at once over the communication time).");
  if (trace.metadata().ranks.empty() && trace.metadata().distributed.world_size > 1)
    out.lines.emplace_back(
        "The other ranks' GPUs are in their own files: open them together (gtv-cli merge) to "
        "compare.");
  return out;
}

}  // namespace gtv::analysis
