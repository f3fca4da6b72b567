#pragma once
// The shape of a trace that writing and reading it back must keep, and the model's own invariants, for the fuzz
// targets' oracles.
#include <string>

#include "gtv/model/trace.h"

namespace gtv::fuzz {

// Breaks (invariant_broken) when lanes, depths or counts of trace contradict each other.
void check_model(const Trace& trace);

// Breaks when reread does not have the event count and the lanes (key, event count) of original; `how` names the
// step in the message.
void check_same_shape(const Trace& original, const Trace& reread, const std::string& how);

}  // namespace gtv::fuzz
