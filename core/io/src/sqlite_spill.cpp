#include "sqlite_spill.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "temp_files.h"

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

struct TempFile {
  std::string path;
  int fd = -1;
  ~TempFile() {
    if (fd >= 0) ::close(fd);
    if (!path.empty()) {
      ::unlink(path.c_str());
      unregister_temp_file(path);
    }
  }
};

Status create(TempFile& file, const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/gtv-sqlite-XXXXXX";
  const CleanupSignalsHeld held;  // until the file is registered
  file.fd = ::mkostemp(pattern.data(), O_CLOEXEC);
  if (file.fd < 0)
    return Error{name + ": cannot create a temporary file for the SQLite data in " + pattern + ": " +
                 std::strerror(errno)};
  file.path = pattern;
  register_temp_file(file.path);
  return ok_status();
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

Expected<std::string> spill_sqlite_to_temp_file(InputBytes& input, const std::string& name, std::uint64_t max_bytes) {
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
  TempFile file;
  if (Status s = create(file, name); !s) return s.error();
  std::uint64_t copied = 0;
  while (copied < declared) {
    input.fill_to(static_cast<std::size_t>(std::min<std::uint64_t>(declared, copied + kCopyBytes)));
    if (input.error()) return *input.error();
    const std::uint64_t end = std::min<std::uint64_t>(input.end(), declared);
    if (end <= copied) break;  // the data ended early: SQLite reports the missing pages
    const std::string_view bytes = input.view().substr(copied - input.begin(), end - copied);
    if (Status s = write_all(file.fd, bytes, file.path); !s) return s.error();
    copied = end;
    input.drop_before(copied);
  }
  if (::close(file.fd) != 0) return Error{file.path + ": cannot write the SQLite data: " + std::strerror(errno)};
  file.fd = -1;
  return std::exchange(file.path, std::string());  // registered still: the database removes it when closed
}

}  // namespace gtv::io
