#include "nsys/sqlite_spill.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <utility>

#include "nsys/nsys_schema.h"
#include "output/temp_files.h"

namespace gtv::io {
namespace {

constexpr std::size_t kHeaderBytes = 100;
constexpr std::size_t kCopyBytes = std::size_t{4} << 20;

std::uint32_t big_endian(std::string_view bytes, std::size_t at, std::size_t size) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < size; ++i) value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

std::string size_text(std::uint64_t bytes) {
  if (bytes % (std::uint64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

std::string temp_folder() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

Status write_all(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error{path + ": cannot write the SQLite data: " + std::strerror(n < 0 ? errno : EIO)};
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return ok_status();
}

// Writes bytes at the file's current end, runs of zeros (whole blocks) as holes that take no space.
Status write_sparse(int fd, std::string_view bytes, const std::string& path) {
  constexpr std::size_t kBlock = 4096;
  while (!bytes.empty()) {
    const std::string_view block = bytes.substr(0, kBlock);
    if (block.size() == kBlock && block.find_first_not_of('\0') == std::string_view::npos) {
      if (::lseek(fd, static_cast<off_t>(kBlock), SEEK_CUR) < 0)
        return Error{path + ": cannot write the SQLite data: " + std::strerror(errno)};
    } else if (Status s = write_all(fd, block, path); !s) {
      return s;
    }
    bytes.remove_prefix(block.size());
  }
  return ok_status();
}

std::uint32_t be16(std::string_view page, std::size_t at) { return big_endian(page, at, 2); }

// An SQLite varint at page[at] (1 to 9 bytes); false when it runs past `end`.
bool read_varint(std::string_view page, std::size_t& at, std::size_t end, std::uint64_t& value) {
  value = 0;
  for (int i = 0; i < 9; ++i) {
    if (at >= end) return false;
    const auto byte = static_cast<unsigned char>(page[at++]);
    if (i == 8) {
      value = (value << 8) | byte;
      return true;
    }
    value = (value << 7) | (byte & 0x7f);
    if ((byte & 0x80) == 0) return true;
  }
  return true;
}

bool equals_lower(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// The type and name (the first two columns) of the sqlite_schema row in the cell at `cell`; false when the cell
// does not hold them on this page.
bool schema_row(std::string_view page, std::size_t cell, std::size_t usable, std::string_view& type,
                std::string_view& name) {
  std::uint64_t payload = 0, rowid = 0, header = 0;
  std::size_t at = cell;
  if (!read_varint(page, at, usable, payload) || !read_varint(page, at, usable, rowid)) return false;
  const std::size_t end = static_cast<std::size_t>(std::min<std::uint64_t>(usable, at + payload));
  const std::size_t record = at;
  if (!read_varint(page, at, end, header) || header > end - record) return false;
  const std::size_t header_end = record + static_cast<std::size_t>(header);
  std::size_t value = header_end;
  std::string_view* columns[] = {&type, &name};
  for (std::string_view* column : columns) {
    std::uint64_t serial = 0;
    if (!read_varint(page, at, header_end, serial) || serial < 13 || serial % 2 == 0) return false;  // not text
    const std::uint64_t bytes = (serial - 13) / 2;
    if (bytes > end - value) return false;
    *column = page.substr(value, static_cast<std::size_t>(bytes));
    value += static_cast<std::size_t>(bytes);
  }
  return true;
}

}  // namespace

std::uint64_t sqlite_declared_bytes(std::string_view header) {
  if (header.size() < kHeaderBytes) return 0;
  std::uint64_t page_bytes = big_endian(header, 16, 2);
  if (page_bytes == 1) page_bytes = 65536;
  if (page_bytes < 512 || (page_bytes & (page_bytes - 1)) != 0) return 0;
  const std::uint32_t pages = big_endian(header, 28, 4);
  // The page count is valid only when the change counter matches "version-valid-for" (SQLite file format 1.3.0).
  if (pages == 0 || big_endian(header, 24, 4) != big_endian(header, 92, 4)) return 0;
  return page_bytes * pages;
}

std::string first_page_problem(std::string_view page) {
  constexpr std::size_t kBtreeHeader = kHeaderBytes;
  if (page.size() < kBtreeHeader + 8) return {};
  const auto type = static_cast<unsigned char>(page[kBtreeHeader]);
  constexpr unsigned char kInteriorTable = 0x05, kLeafTable = 0x0d;
  if (type != kInteriorTable && type != kLeafTable)
    return "page 1, which holds the schema, is not a table b-tree page (type byte " + std::to_string(type) +
           "): not an SQLite database gtv can read";
  if (type == kInteriorTable) return {};  // the schema spreads over pages further on
  const std::size_t reserved = static_cast<unsigned char>(page[20]);
  const std::size_t usable = page.size() > reserved ? page.size() - reserved : 0;
  const std::size_t cells = be16(page, kBtreeHeader + 3);
  if (cells == 0) return "page 1, which holds the schema, names no table: not an Nsight Systems export";
  bool strings = false, known = false;
  for (std::size_t i = 0; i < cells; ++i) {
    const std::size_t pointer = kBtreeHeader + 8 + 2 * i;
    if (pointer + 2 > usable) return {};
    std::string_view kind, name;
    if (!schema_row(page, be16(page, pointer), usable, kind, name)) return {};
    if (kind != "table") continue;
    strings = strings || equals_lower(name, nsys::kStringIds);
    known = known || equals_lower(name, nsys::kExportInfo) || equals_lower(name, nsys::kGpus) ||
            std::any_of(std::begin(nsys::kEventTables), std::end(nsys::kEventTables),
                        [&](std::string_view t) { return equals_lower(name, t); });
  }
  if (strings && known) return {};
  return "the schema on page 1 lacks the StringIds table or all of META_DATA_EXPORT, TARGET_INFO_GPU, "
         "CUPTI_ACTIVITY_KIND_* and NVTX_EVENTS: not an Nsight Systems export";
}

SpilledDatabase::SpilledDatabase(SpilledDatabase&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), name_(std::exchange(other.name_, std::string())) {}

SpilledDatabase& SpilledDatabase::operator=(SpilledDatabase&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    remove_name();
    fd_ = std::exchange(other.fd_, -1);
    name_ = std::exchange(other.name_, std::string());
  }
  return *this;
}

SpilledDatabase::~SpilledDatabase() {
  if (fd_ >= 0) ::close(fd_);
  remove_name();
}

void SpilledDatabase::remove_name() {
  if (name_.empty()) return;
  ::unlink(name_.c_str());
  unregister_temp_file(name_);
  name_.clear();
}

namespace {

// A file with no name in `dir` (O_TMPFILE), when the system has it and /proc can give it a name later; else -1.
int unnamed_file(const std::string& dir) {
  if (::access("/proc/self/fd", X_OK) != 0) return -1;
  return ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}

// Gives the unnamed file `fd` a fresh name in dir (linkat through /proc/self/fd), registered for removal.
Expected<std::string> name_file(int fd, const std::string& dir, const std::string& name) {
  const std::string source = "/proc/self/fd/" + std::to_string(fd);
  const std::string prefix = dir + "/gtv-sqlite-" + std::to_string(::getpid()) + "-";
  const std::string cannot = name + ": cannot name the temporary file for the SQLite data in " + dir + ": ";
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string path = prefix + std::to_string(counter++);
    const CleanupSignalsHeld held;  // until the name is registered
    if (::linkat(AT_FDCWD, source.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      register_temp_file(path);
      return path;
    }
    if (errno != EEXIST) return Error{cannot + std::strerror(errno)};
  }
  return Error{cannot + "every name is taken"};
}

}  // namespace

Expected<SpilledDatabase> spill_sqlite_to_temp_file(InputBytes& input, const std::string& name,
                                                    std::uint64_t max_bytes) {
  input.fill_to(kHeaderBytes);
  if (input.error()) return *input.error();
  const std::uint64_t declared = sqlite_declared_bytes(input.view());
  if (declared == 0)
    return Error{name +
                 ": the SQLite header does not state the database size; gtv reads such a database only from "
                 "a plain file"};
  if (declared > max_bytes)
    return Error{name + ": the SQLite header states " + std::to_string(declared) + " bytes, more than " +
                 size_text(max_bytes) + " (limit: see GTV_MAX_STREAM_BYTES)"};
  // The first page only, to see whether the rest is worth inflating.
  std::uint64_t page_bytes = big_endian(input.view(), 16, 2);
  if (page_bytes == 1) page_bytes = 65536;
  input.fill_to(static_cast<std::size_t>(page_bytes));
  if (input.error()) return *input.error();
  if (const std::string problem = first_page_problem(input.view().substr(0, static_cast<std::size_t>(page_bytes)));
      !problem.empty())
    return Error{name + ": " + problem};
  const std::string dir = temp_folder();
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) == 0) {
    const std::uint64_t free_bytes = std::uint64_t{fs.f_bavail} * fs.f_frsize;
    if (declared > free_bytes)
      return Error{name + ": the SQLite header states " + std::to_string(declared) + " bytes; the temporary folder " +
                   dir + " has " + std::to_string(free_bytes) + " bytes free (TMPDIR picks another)"};
  }
  // Unnamed while the data is copied (which may take long), so that no kill leaves it behind; named only for the
  // instant SQLite takes to open it (it opens files by name), then unnamed again (SpilledDatabase::remove_name).
  SpilledDatabase file;
  file.fd_ = unnamed_file(dir);
  if (file.fd_ < 0) {
    std::string pattern = dir + "/gtv-sqlite-XXXXXX";
    const CleanupSignalsHeld held;  // until the file is registered
    file.fd_ = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (file.fd_ < 0)
      return Error{name + ": cannot create a temporary file for the SQLite data in " + pattern + ": " +
                   std::strerror(errno)};
    file.name_ = pattern;
    register_temp_file(file.name_);
  }
  std::uint64_t copied = 0;
  while (copied < declared) {
    input.fill_to(static_cast<std::size_t>(std::min<std::uint64_t>(declared, copied + kCopyBytes)));
    if (input.error()) return *input.error();
    const std::uint64_t end = std::min<std::uint64_t>(input.end(), declared);
    if (end <= copied) break;  // the data ended early: SQLite reports the missing pages
    const std::string_view bytes = input.view().substr(copied - input.begin(), end - copied);
    if (Status s = write_sparse(file.fd_, bytes, name); !s) return s.error();
    copied = end;
    input.drop_before(copied);
  }
  // Holes at the end are the file's too.
  if (::ftruncate(file.fd_, static_cast<off_t>(copied)) != 0)
    return Error{name + ": cannot write the SQLite data: " + std::strerror(errno)};
  if (file.name_.empty()) {
    Expected<std::string> named = name_file(file.fd_, dir, name);
    if (!named) return named.error();
    file.name_ = std::move(*named);
  }
  return file;
}

}  // namespace gtv::io
