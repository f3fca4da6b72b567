#pragma once
// Counting helpers over a recorded trace, shared by the experiment tests.
#include <string_view>

#include "gtv/model/trace.h"

namespace gtv::exp::test {

[[nodiscard]] int count_ranges(const Trace& trace, RangeKind kind);
[[nodiscard]] int count_ranges_named(const Trace& trace, RangeKind kind, std::string_view name);
[[nodiscard]] int count_measurements(const Trace& trace, MeasurementMethod method);
[[nodiscard]] int count_events(const Trace& trace, EventKind kind, std::string_view name = {});
[[nodiscard]] bool has_note_containing(const Trace& trace, std::string_view text);
// Whether range lies within some range of kind outer_kind.
[[nodiscard]] bool inside_some(const Trace& trace, const Range& range, RangeKind outer_kind);

}  // namespace gtv::exp::test
