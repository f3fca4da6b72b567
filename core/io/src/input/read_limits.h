#pragma once
// The reader's size limits: a ReadOptions field when set (non-zero), else an environment variable (a byte count,
// optionally with a K, M or G suffix for KiB, MiB, GiB), else the default. One convention for the command line and
// the GUI, which both pass default ReadOptions.
#include <cstdint>

#include "gtv/io/trace_file.h"

namespace gtv::io {

// Bound on one top-level value other than traceEvents ("gtv", "deviceProperties", ...) and on one string or row of
// an SQLite export: GTV_MAX_VALUE_BYTES.
[[nodiscard]] std::uint64_t max_value_bytes(const ReadOptions& options);
// Bound on all bytes read from a pipe or device (regular files are bounded by their size), and on an SQLite
// database held in memory whole (inflated from gzip or read from a stream): GTV_MAX_STREAM_BYTES.
[[nodiscard]] std::uint64_t max_stream_bytes(const ReadOptions& options);

}  // namespace gtv::io
