#pragma once
// The recorder that `gtv-cli record` injects into a program. CUDA loads libgtv-inject.so (CUDA_INJECTION64_PATH) in
// every process that initialises CUDA and calls its InitializeInjection(), which lands in initialize(): it reads
// the settings the command left in the environment (gtv/collect/record_settings.h), starts CUPTI behind a capture
// range and an event limit, and registers finish() to run at exit, where the process's trace is written to
// <GTV_RECORD_DIR>/gtv-<pid>.json. A process that cannot be traced says why on stderr and in
// <GTV_RECORD_DIR>/gtv-<pid>.refused; a process forked from a traced one after CUDA was initialised leaves
// <GTV_RECORD_DIR>/gtv-<pid>.forked (CUDA cannot be used in it, and it is not traced).
#include <string>

#include "gtv/collect/record_settings.h"

namespace gtv::collect::injection {

// True when this process is now recorded (or already was). Never aborts, never waits for anything.
bool initialize(const EnvLookup& lookup);
// Stops CUPTI (a forced flush), builds the trace and writes it. Does nothing in a forked child or when not started.
void finish();

// The file names in the record folder.
[[nodiscard]] std::string trace_file_name(long pid);    // "gtv-<pid>.json"
[[nodiscard]] std::string refused_file_name(long pid);  // "gtv-<pid>.refused": one line, why
[[nodiscard]] std::string forked_file_name(long pid);   // "gtv-<pid>.forked": the traced parent's pid

}  // namespace gtv::collect::injection
