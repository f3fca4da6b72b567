#pragma once
// Between the straggler computation and its sentences.
#include "gtv/analysis/stragglers.h"

namespace gtv::analysis::detail {

// Fills s.headline and s.lines from its collectives, waits and clock estimate.
void write_straggler_lines(const Trace& trace, Stragglers& s);

}  // namespace gtv::analysis::detail
