#pragma once
// Between the straggler computation and its sentences.
#include "gtv/analysis/stragglers.h"

namespace gtv::analysis::detail {

// Fills s.headline and s.lines from its collectives, waits and clock estimate; clock_method names how the ranks'
// clocks were aligned (ClockAlignment::method).
void write_straggler_lines(const std::string& clock_method, Stragglers& s);

}  // namespace gtv::analysis::detail
