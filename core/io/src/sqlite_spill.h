#pragma once
// An SQLite database that arrives as a stream (inflated from gzip, or from a pipe or device) goes to a temporary
// file, never whole into memory: SQLite then reads the pages it needs from there. The database's own header bounds
// how much is copied (its size in pages), and GTV_MAX_STREAM_BYTES bounds that size, so a small gzip file that
// claims to be SQLite cannot make gtv inflate gigabytes.
#include <cstdint>
#include <string>

#include "gtv/base/expected.h"
#include "input_bytes.h"

namespace gtv::io {

// The database size the 100-byte header states (page size times page count), or 0 when the header does not state
// one (a header written before SQLite 3.7.0, or a damaged one).
[[nodiscard]] std::uint64_t sqlite_declared_bytes(std::string_view header);

// Copies the database from input into a new temporary file in $TMPDIR (else /tmp), registered for removal on
// SIGINT, SIGTERM and SIGHUP; returns its path. Errors name `name`.
[[nodiscard]] Expected<std::string> spill_sqlite_to_temp_file(InputBytes& input, const std::string& name,
                                                              std::uint64_t max_bytes);

}  // namespace gtv::io
