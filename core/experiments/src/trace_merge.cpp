#include "trace_merge.h"

#include "gtv/model/merge.h"

namespace gtv::exp {

Expected<Trace> merge_traces(const std::vector<MergePart>& parts, TraceMetadata metadata,
                             const std::vector<Range>& extra_ranges, TimeNs origin_unix_ns) {
  std::vector<gtv::MergePart> model_parts;
  model_parts.reserve(parts.size());
  for (const MergePart& part : parts)
    model_parts.push_back({.trace = part.trace,
                           .label = part.label,
                           .shift_ns = part.trace->metadata().origin_unix_ns - origin_unix_ns,
                           .pid_map = {},
                           .device_map = {},
                           .name_prefix = {}});
  metadata.origin_unix_ns = origin_unix_ns;
  return gtv::merge_traces(model_parts, std::move(metadata), extra_ranges);
}

}  // namespace gtv::exp
