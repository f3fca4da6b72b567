#include "report/report_document.h"

namespace gtv::analysis::detail {

// Only traces with communication kernels have this section: in the others it would say nothing. One line per GPU
// (capped like every list of GPUs), then the basis.
Section communication_section(const Report& r, Listing listing) {
  const std::vector<std::string>& lines = r.communication.lines;
  if (lines.empty()) return {};
  const auto per_gpu_end = lines.begin() + static_cast<std::ptrdiff_t>(r.communication.devices.size());
  std::vector<std::string> out = listed_lines({lines.begin(), per_gpu_end}, 0, listing, "GPU", "GPUs");
  out.insert(out.end(), per_gpu_end, lines.end());
  return Section{"Communication and computation", std::move(out), {}};
}

void communication_json(JsonWriter& w, const Report& r) {
  w.key("communication").begin_object().key("devices").begin_array();
  const auto& devices = r.communication.devices;
  for (std::size_t i = 0; i < devices.size() && i < kMaxJsonRows; ++i) {
    const DeviceCommunication& d = devices[i];
    w.begin_object()
        .field("device", d.device)
        .field("communication_kernels", U(d.communication_kernels))
        .field("communication_ns", d.communication_ns)
        .field("computation_ns", d.computation_ns)
        .field("memory_ns", d.memory_ns)
        .field("overlap_ns", d.overlap_ns)
        .field("exposed_ns", d.exposed_ns)
        .field("overlap_ratio", d.overlap_ratio(), 4)
        .end_object();
  }
  w.end_array();
  json_strings(w, "lines", r.communication.lines);
  w.end_object();
}

}  // namespace gtv::analysis::detail
