#include "input/input_bytes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <utility>

#include "input/byte_source.h"
#include "input/read_limits.h"

namespace gtv::io {
namespace {

// Reads are at least this large (fewer system calls and inflate calls), or a quarter of a smaller first window.
constexpr std::size_t kMinReadBytes = std::size_t{1} << 20;
// The first window: the text kept (a few chunks parsed ahead) moves to the front when the window is full, and
// a window several times larger than what is kept makes those moves a small share of the copying. A source of
// known size (a file, bytes in memory) starts at four times that size, at least 64 KiB, so a small gzip file
// does not map 16 MiB; the window doubles whenever the text needs more.
constexpr std::size_t kMaxFirstWindowBytes = std::size_t{16} << 20;
constexpr std::size_t kMinFirstWindowBytes = std::size_t{64} << 10;

std::size_t first_window_bytes(std::size_t source_bytes) {
  if (source_bytes == 0 || source_bytes >= kMaxFirstWindowBytes / 4) return kMaxFirstWindowBytes;
  return std::max(kMinFirstWindowBytes, std::bit_ceil(source_bytes * 4));
}

}  // namespace

InputBytes::InputBytes() : first_window_bytes_(kMaxFirstWindowBytes) {}
InputBytes::~InputBytes() = default;
InputBytes::InputBytes(InputBytes&& other) noexcept { *this = std::move(other); }

InputBytes& InputBytes::operator=(InputBytes&& other) noexcept {
  if (this == &other) return *this;
  source_ = std::move(other.source_);
  buffer_ = std::move(other.buffer_);
  capacity_ = std::exchange(other.capacity_, 0);
  data_ = std::exchange(other.data_, nullptr);
  begin_ = other.begin_;
  size_ = std::exchange(other.size_, 0);
  peak_bytes_ = other.peak_bytes_;
  file_bytes_ = other.file_bytes_;
  first_window_bytes_ = other.first_window_bytes_;
  owned_ = other.owned_;
  eof_ = other.eof_;
  gzip_ = other.gzip_;
  error_ = std::move(other.error_);
  progress_.store(other.progress_.load());
  return *this;
}

Expected<InputBytes> InputBytes::open(const std::string& path, const ReadOptions& options) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{path + ": cannot open: " + std::strerror(errno)};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Error{path + ": cannot stat: " + std::strerror(err)};
  }
  std::string why;
  if (S_ISDIR(st.st_mode)) why = "is a directory, not a trace file";
  if (S_ISREG(st.st_mode) && st.st_size == 0) why = "file is empty";
  if (!why.empty()) {
    ::close(fd);
    return Error{path + ": " + why};
  }
  const std::uint64_t expected = S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_size) : 0;
  if (S_ISREG(st.st_mode)) ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  InputBytes in;
  in.source_ = std::make_unique<TextSource>(fd_source(fd, path, expected, max_stream_bytes(options)), path);
  in.owned_ = true;
  in.file_bytes_ = static_cast<std::size_t>(expected);
  in.first_window_bytes_ = first_window_bytes(in.file_bytes_);
  return in;
}

std::size_t InputBytes::size_hint() {
  if (!owned_) return size_;
  fill_to(begin_ + 2);
  return gzip_ ? 0 : file_bytes_;
}

InputBytes InputBytes::from_memory(std::string_view bytes, const std::string& name, const ReadOptions& /*options*/) {
  InputBytes in;
  if (is_gzip(bytes)) {
    in.source_ = std::make_unique<TextSource>(memory_source(bytes), name);
    in.owned_ = true;
    in.first_window_bytes_ = first_window_bytes(bytes.size());
  } else {
    in.data_ = const_cast<char*>(bytes.data());  // never written: writable() is nullptr for borrowed bytes
    in.size_ = bytes.size();
    in.eof_ = true;
  }
  return in;
}

void InputBytes::fail(Error error) {
  error_ = std::move(error);
  eof_ = true;
}

// Room for `bytes` of text from begin() plus one read: moves the text to the front of the buffer or grows it.
void InputBytes::reserve(std::size_t bytes) {
  const std::size_t needed = bytes + std::min(kMinReadBytes, first_window_bytes_ / 4);
  const std::size_t offset = buffer_ ? static_cast<std::size_t>(data_ - buffer_.get()) : 0;
  if (buffer_ && offset + needed <= capacity_) return;
  if (buffer_ && needed <= capacity_) {
    std::memmove(buffer_.get(), data_, size_);
    data_ = buffer_.get();
    return;
  }
  const std::size_t capacity = std::max(needed, std::max(capacity_ * 2, first_window_bytes_));
  auto bigger = std::make_unique_for_overwrite<char[]>(capacity + kPaddingBytes);
  if (size_ > 0) std::memcpy(bigger.get(), data_, size_);
  std::memset(bigger.get() + capacity, 0, kPaddingBytes);
  buffer_ = std::move(bigger);
  capacity_ = capacity;
  data_ = buffer_.get();
  peak_bytes_ = std::max(peak_bytes_, capacity_);
}

void InputBytes::fill_to(std::size_t pos) {
  if (eof_ || pos <= end()) return;
  reserve(pos - begin_);
  auto* text = static_cast<TextSource*>(source_.get());
  while (end() < pos) {
    char* tail = data_ + size_;
    const std::size_t room = capacity_ - static_cast<std::size_t>(tail - buffer_.get());
    Expected<std::size_t> n = text->read(tail, room);
    gzip_ = text->gzip();
    if (!n) return fail(n.error());
    if (*n == 0) {
      eof_ = true;
      break;
    }
    size_ += *n;
  }
  progress_.store(text->progress(), std::memory_order_relaxed);
}

bool InputBytes::random_access() const { return source_ != nullptr && source_->random_access() && !error_; }

Expected<std::size_t> InputBytes::read_at(std::size_t pos, char* out, std::size_t size) const {
  return source_->read_at(pos, out, size);
}

void InputBytes::seek(std::size_t pos) {
  if (pos >= begin_ && pos <= end()) return drop_before(pos);
  begin_ = pos > 0 ? pos - 1 : 0;  // one byte before pos, as drop_before keeps
  size_ = 0;
  data_ = buffer_.get();
  eof_ = false;
  source_->seek(begin_);
}

void InputBytes::drop_before(std::size_t pos) {
  if (pos <= begin_ + 1) return;
  const std::size_t drop = std::min(pos - 1, end()) - begin_;
  data_ += drop;
  begin_ += drop;
  size_ -= drop;
}

}  // namespace gtv::io
