#include "input_bytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace gtv::io {
namespace {

std::string gib_text(std::uint64_t bytes) {
  return std::to_string(bytes / (1024 * 1024)) + " MiB";
}

// Closes a file descriptor on every path out.
constexpr std::size_t kInflatePadding = 128;

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Expected<std::string> inflate_gzip(std::string_view bytes, const std::string& name, const ReadOptions& options) {
  const std::uint64_t max_bytes = options.max_inflated_bytes;
  // About twenty progress calls per stream, at least 64 KiB and at most 16 MiB of input apart.
  const std::size_t progress_step = std::clamp<std::size_t>(bytes.size() / 20, 64 << 10, 16 << 20);
  std::size_t next_progress = progress_step;
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return Error{name + ": cannot start zlib"};
  std::string out;
  out.resize(std::min<std::uint64_t>(max_bytes, std::max<std::uint64_t>(bytes.size() * 4, 1 << 16)));
  std::size_t produced = 0;
  std::size_t consumed = 0;
  int rc = Z_OK;
  while (true) {
    if (produced == out.size()) {
      if (out.size() >= max_bytes) {
        inflateEnd(&zs);
        return Error{name + ": gzip data inflates to more than " + gib_text(max_bytes) + " (limit)"};
      }
      out.resize(std::min<std::uint64_t>(max_bytes, out.size() * 2));
    }
    const std::size_t in_chunk = std::min<std::size_t>(bytes.size() - consumed, 1u << 30);
    const std::size_t out_chunk = std::min<std::size_t>(out.size() - produced, 1u << 30);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + consumed));
    zs.avail_in = static_cast<uInt>(in_chunk);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    zs.avail_out = static_cast<uInt>(out_chunk);
    rc = inflate(&zs, Z_NO_FLUSH);
    consumed += in_chunk - zs.avail_in;
    produced += out_chunk - zs.avail_out;
    if (options.progress != nullptr && consumed >= next_progress) {
      next_progress = consumed + progress_step;
      if (!options.progress(options.progress_context,
                            0.5 * static_cast<double>(consumed) / static_cast<double>(bytes.size()))) {
        inflateEnd(&zs);
        return Error{name + ": reading cancelled"};
      }
    }
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members are one stream (gzip -c a b > c); anything else after the end is an error.
      if (consumed < bytes.size() && is_gzip(bytes.substr(consumed))) {
        inflateReset(&zs);
        continue;
      }
      if (consumed < bytes.size()) {
        inflateEnd(&zs);
        return Error{name + ": byte " + std::to_string(consumed) + ": data after the end of the gzip stream"};
      }
      break;
    }
    if (rc == Z_BUF_ERROR && consumed == bytes.size() && zs.avail_out != 0) {
      inflateEnd(&zs);
      return Error{name + ": truncated gzip data (ends after " + std::to_string(bytes.size()) + " bytes)"};
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      std::string why = zs.msg ? zs.msg : "error " + std::to_string(rc);
      inflateEnd(&zs);
      return Error{name + ": corrupt gzip data near byte " + std::to_string(consumed) + ": " + why};
    }
  }
  inflateEnd(&zs);
  out.resize(produced + kInflatePadding);  // readable (and writable) bytes after the data for in-place parsing
  return out;
}

InputBytes::InputBytes(InputBytes&& other) noexcept { *this = std::move(other); }

InputBytes& InputBytes::operator=(InputBytes&& other) noexcept {
  if (this == &other) return *this;
  reset();
  const bool owns_inflated = other.view_.data() == other.inflated_.data() && !other.inflated_.empty();
  inflated_ = std::move(other.inflated_);
  fd_ = std::exchange(other.fd_, -1);
  map_ = std::exchange(other.map_, nullptr);
  map_size_ = std::exchange(other.map_size_, 0);
  released_ = std::exchange(other.released_, 0);
  view_ = owns_inflated ? std::string_view(inflated_.data(), other.view_.size()) : other.view_;
  writable_ = other.writable_ == nullptr ? nullptr : const_cast<char*>(view_.data());
  readable_after_ = std::exchange(other.readable_after_, 0);
  other.view_ = {};
  other.writable_ = nullptr;
  was_gzip_ = other.was_gzip_;
  return *this;
}

InputBytes::~InputBytes() { reset(); }

void InputBytes::set_owned(std::string bytes, bool gzip) {
  inflated_ = std::move(bytes);
  const std::size_t size = inflated_.size() - kInflatePadding;
  view_ = std::string_view(inflated_.data(), size);
  writable_ = inflated_.data();
  readable_after_ = kInflatePadding;
  was_gzip_ = gzip;
}

void InputBytes::reset() {
  if (map_ != nullptr) ::munmap(map_, map_size_);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  map_ = nullptr;
  map_size_ = 0;
  inflated_.clear();
  view_ = {};
  writable_ = nullptr;
  readable_after_ = 0;
}

void InputBytes::release_before(std::size_t offset) {
  if (map_ == nullptr) return;
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t end = offset / page * page;
  if (end <= released_ + (8u << 20)) return;  // in steps of 8 MiB: fewer system calls
  ::madvise(static_cast<char*>(map_) + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

bool InputBytes::copy_out(std::size_t offset, std::size_t size, char* out) const {
  if (offset > view_.size() || size > view_.size() - offset) return false;
  if (fd_ < 0) {
    std::memcpy(out, view_.data() + offset, size);
    return true;
  }
  while (size > 0) {
    const ssize_t n = ::pread(fd_, out, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // an error, or the file shrank while we read it
    out += n;
    offset += static_cast<std::size_t>(n);
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

Expected<InputBytes> InputBytes::from_memory(std::string_view bytes, const std::string& name,
                                             const ReadOptions& options) {
  InputBytes in;
  if (is_gzip(bytes)) {
    Expected<std::string> inflated = inflate_gzip(bytes, name, options);
    if (!inflated) return inflated.error();
    in.set_owned(std::move(inflated).value(), true);
  } else {
    in.view_ = bytes;
  }
  return in;
}

// Pipes, character devices and file systems that cannot map: read everything, bounded like inflated data.
Expected<InputBytes> InputBytes::read_stream(int fd, const std::string& path, const ReadOptions& options) {
  const std::uint64_t max_bytes = options.max_inflated_bytes;
  std::string bytes;
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{path + ": read failed: " + std::strerror(errno)};
    if (n == 0) break;
    if (bytes.size() + static_cast<std::size_t>(n) > max_bytes)
      return Error{path + ": more than " + gib_text(max_bytes) + " (limit)"};
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
  if (bytes.empty()) return Error{path + ": file is empty"};
  InputBytes in;
  if (is_gzip(bytes)) {
    Expected<std::string> inflated = inflate_gzip(bytes, path, options);
    if (!inflated) return inflated.error();
    in.set_owned(std::move(inflated).value(), true);
  } else {
    bytes.append(kInflatePadding, '\0');
    in.set_owned(std::move(bytes), false);
  }
  return in;
}

Expected<InputBytes> InputBytes::load(const std::string& path, const ReadOptions& options) {
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) return Error{path + ": cannot open: " + std::strerror(errno)};
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) return Error{path + ": cannot stat: " + std::strerror(errno)};
  if (S_ISDIR(st.st_mode)) return Error{path + ": is a directory, not a trace file"};
  if (!S_ISREG(st.st_mode)) return read_stream(file.fd, path, options);
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size == 0) return Error{path + ": file is empty"};
  // Private and writable: the parser puts two bytes of its own around each chunk and restores them (copy on
  // write touches only those pages); the file itself never changes.
  void* map = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, file.fd, 0);
  if (map == MAP_FAILED) return read_stream(file.fd, path, options);
  ::madvise(map, size, MADV_SEQUENTIAL);
  InputBytes in;
  in.fd_ = std::exchange(file.fd, -1);
  in.map_ = map;
  in.map_size_ = size;
  in.view_ = std::string_view(static_cast<const char*>(map), size);
  in.writable_ = static_cast<char*>(map);
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  in.readable_after_ = (page - size % page) % page;  // the rest of the last mapped page
  if (is_gzip(in.view_)) {
    Expected<std::string> inflated = inflate_gzip(in.view_, path, options);
    if (!inflated) return inflated.error();
    InputBytes gz;
    gz.set_owned(std::move(inflated).value(), true);
    return gz;
  }
  return in;
}

}  // namespace gtv::io
