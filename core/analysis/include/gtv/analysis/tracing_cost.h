#pragma once
// What tracing itself cost, read from the recording: the tracer's own overhead records (CUPTI buffer requests,
// flushes, instrumentation, resources), on the application's threads and on the tracer's, how much of that fell
// inside the region of interest, and records dropped. Only what the trace records: a tracer's costs without a
// record (callbacks, the profiler's own bookkeeping) are not in it.
#include <cstdint>
#include <string>
#include <string_view>

#include "gtv/analysis/region.h"
#include "gtv/model/trace.h"

namespace gtv::analysis {

struct TracingCost {
  bool known = false;  // the trace carries the tracer's own records (CUPTI overhead records)
  std::size_t overhead_records = 0;
  std::size_t buffer_flushes = 0;
  std::size_t tracer_threads = 0;    // threads with nothing but tracer records (CUPTI's buffer thread)
  TimeNs on_traced_threads_ns = 0;   // union of tracer overhead on threads that also did the application's work
  TimeNs on_tracer_threads_ns = 0;   // on threads with nothing but tracer records
  TimeNs inside_region_ns = 0;       // of the traced-thread overhead, the part inside the region of interest
  TimeNs on_unnamed_threads_ns = 0;  // on no named thread (Kineto writes CUPTI's overhead records under pid -1)
  bool dropped_known = false;        // the recorder reported its dropped records (gtv recordings do)
  std::int64_t dropped_records = 0;
  std::string line;  // one line for the report
};

// An overhead record of the tracer itself rather than of the driver: gtv's "CUPTI buffer flush", "CUPTI
// resource"..., Kineto's "Activity Buffer Request", "Buffer Flush", "Instrumentation", "Resource".
[[nodiscard]] bool is_tracer_record(std::string_view name);

[[nodiscard]] TracingCost analyze_tracing_cost(const Trace& trace, const Region& region);

}  // namespace gtv::analysis
