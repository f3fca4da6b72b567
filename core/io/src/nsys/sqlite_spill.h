#pragma once
// An SQLite database that arrives as a stream (inflated from gzip, or from a pipe or device) goes to a temporary
// file, never whole into memory: SQLite then reads the pages it needs from there. The database's own header bounds
// how much is copied (its size in pages), and GTV_MAX_STREAM_BYTES bounds that size, so a small gzip file that
// claims to be SQLite cannot make gtv inflate gigabytes.
#include <cstdint>
#include <string>

#include "gtv/base/expected.h"
#include "input/input_bytes.h"

namespace gtv::io {

// The database size the 100-byte header states (page size times page count), or 0 when the header does not state
// one (a header written before SQLite 3.7.0, or a damaged one).
[[nodiscard]] std::uint64_t sqlite_declared_bytes(std::string_view header);

// The temporary copy: a file with no name (O_TMPFILE) while the data is copied, so that no kill, not even SIGKILL,
// leaves it behind; then named in $TMPDIR (registered for removal on SIGINT, SIGTERM and SIGHUP) for SQLite to open
// it, and remove_name() once SQLite holds it open. Without O_TMPFILE or /proc, named from the start. Closed and its
// name removed when destroyed.
class SpilledDatabase {
 public:
  SpilledDatabase() = default;
  SpilledDatabase(SpilledDatabase&& other) noexcept;
  SpilledDatabase& operator=(SpilledDatabase&& other) noexcept;
  SpilledDatabase(const SpilledDatabase&) = delete;
  SpilledDatabase& operator=(const SpilledDatabase&) = delete;
  ~SpilledDatabase();

  [[nodiscard]] const std::string& path() const { return name_; }
  void remove_name();

 private:
  friend Expected<SpilledDatabase> spill_sqlite_to_temp_file(InputBytes&, const std::string&, std::uint64_t);
  int fd_ = -1;
  std::string name_;  // the file's name in $TMPDIR while it has one
};

// Copies the database from input into a temporary file in $TMPDIR (else /tmp). Before anything is inflated past
// its first page, the database is refused when that page shows it cannot be an Nsight Systems export (the schema
// on it is not a table b-tree, is empty, or names none of the tables gtv reads) or when its stated size exceeds
// max_bytes or the space free in the temporary folder. Pages of zeros are left as holes (a sparse file), so they
// take no space. Errors name `name`.
[[nodiscard]] Expected<SpilledDatabase> spill_sqlite_to_temp_file(InputBytes& input, const std::string& name,
                                                                  std::uint64_t max_bytes);

// Why the first page of a database (the bytes given, at most its page size) shows it is no Nsight Systems export,
// or empty when it may be one (or the page cannot tell: a schema spread over several pages).
[[nodiscard]] std::string first_page_problem(std::string_view page);

}  // namespace gtv::io
