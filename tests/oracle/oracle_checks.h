#pragma once
// Each headline number of `analyze --json` against the oracle's, one function per part of the report.
#include "analyze_json.h"
#include "oracle.h"

namespace gtv::oracle {

// busy.gpus[], busy.streams[]: per GPU and stream over the whole trace.
void check_busy(Checker& c, const Oracle& o, simdjson::dom::element report);
// summary: the trace's span and counts, and per GPU busy and kernel time (as info --json).
void check_summary(Checker& c, const Trace& trace, const Oracle& o, simdjson::dom::element report);
// concurrency (whole trace) and concurrency.region.
void check_concurrency(Checker& c, const Oracle& o, simdjson::dom::element report);
// timing.measurements[]: what each measurement really measured.
void check_timing(Checker& c, const Oracle& o, simdjson::dom::element report);
// idle.gpus[], idle_causes[], idle.intervals[]: idle time in the region and the causes that tile it.
void check_idle(Checker& c, const Oracle& o, simdjson::dom::element report);
// critical_path: its length is the region's, its segments tile the region, GPU segments lie on their GPU work.
void check_critical_path(Checker& c, const Trace& trace, const Oracle& o, simdjson::dom::element report);
// communication.devices[]: HTA's communication / computation overlap.
void check_communication(Checker& c, const Oracle& o, simdjson::dom::element report);
// Per-GPU stream overlap (time with 2+ streams busy, stream parallelism), copy/compute overlap and host threads
// launching at once, wherever the report has them, each on the window its JSON object names (window_start_ns /
// window_end_ns, region_start_ns / region_end_ns or start_ns / end_ns, its own or the nearest around it; else the whole
// trace). Returns how many such objects the report has: 0 when it has none.
std::size_t check_stream_overlap(Checker& c, const Oracle& o, simdjson::dom::element report);

// The numbers printed in the verdict sentences (concurrency, each measurement, communication), to their printed
// precision, where the sentence's wording is recognized.
void check_sentences(Checker& c, const Oracle& o, simdjson::dom::element report);

}  // namespace gtv::oracle
