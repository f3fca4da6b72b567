#pragma once
// The words shown for one event: hover tooltip and the fields of the details panel. No Qt, unit tested.
#include <string>
#include <utility>
#include <vector>

#include "gtv/model/trace.h"

namespace gtv::ui {

using Field = std::pair<std::string, std::string>;

// "GPU 0 / stream 7" or "Process 12 / thread 34".
[[nodiscard]] std::string lane_location(const Trace& trace, LaneIndex lane);
// The name an event is labelled with: a kernel's kernel_display_name (demangled, its template arguments and
// parameters dropped while too long), any other event's name as recorded.
[[nodiscard]] std::string display_name(const Trace& trace, const Event& e);
// Every field of the event, in display order: name (a kernel's demangled in full; "symbol" keeps a mangled one), kind,
// start, duration, end, location, correlation, the event at the other end of its flow (other events by their
// display_name) ("launches" / "launched by"; a launch of several GPU activities, such as a CUDA graph launch, says how
// many and names the first), its dependency links ("waits for" the work a synchronization waited for, "waited for by"
// each waiter), the CUDA graph of a graph kernel or launch ("graph"), and the kind's details (launch configuration,
// bytes, copy kind, memory kinds). Times are shown relative to origin_ns (the UI passes the trace start, so every trace
// starts at 0).
[[nodiscard]] std::vector<Field> event_fields(const Trace& trace, EventRef ref, TimeNs origin_ns = 0);
// Tooltip text: one "key: value" per line, the name alone on the first.
[[nodiscard]] std::string tooltip_text(const Trace& trace, EventRef ref, TimeNs origin_ns = 0);
// "1,234,567" style byte count with a unit: "4.00 MB (4,000,000 bytes)".
[[nodiscard]] std::string format_bytes(std::int64_t bytes);
// Start time relative to the origin, exact: "12.345678 ms".
[[nodiscard]] std::string format_time_exact(TimeNs t_ns);

}  // namespace gtv::ui
