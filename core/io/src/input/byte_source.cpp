#include "input/byte_source.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "input/input_bytes.h"

namespace gtv::io {
namespace {

constexpr std::size_t kRawBlockBytes = std::size_t{256} << 10;

std::string size_text(std::uint64_t bytes) {
  if (bytes % (std::uint64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes % (std::uint64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

class FdSource final : public ByteSource {
 public:
  FdSource(int fd, std::string name, std::uint64_t expected_bytes, std::uint64_t max_stream_bytes)
      : fd_(fd), name_(std::move(name)), expected_(expected_bytes), max_stream_(max_stream_bytes) {}
  ~FdSource() override { ::close(fd_); }

  Expected<std::size_t> read(char* out, std::size_t size) override {
    if (expected_ > 0) {
      Expected<std::size_t> n = read_at(consumed_, out, std::min<std::uint64_t>(size, kRawBlockBytes * 16));
      if (n) consumed_ += *n;
      return n;
    }
    ssize_t n = 0;
    do {
      n = ::read(fd_, out, size);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return Error{name_ + ": read failed at byte " + std::to_string(consumed_) + ": " + std::strerror(errno)};
    consumed_ += static_cast<std::uint64_t>(n);
    if (consumed_ > max_stream_)
      return Error{name_ + ": input is larger than " + size_text(max_stream_) +
                   " (limit for pipes and devices; see GTV_MAX_STREAM_BYTES)"};
    return static_cast<std::size_t>(n);
  }

  bool random_access() const override { return expected_ > 0; }

  // Reading ends at the size the file had when it was opened; a file that ends before it shrank.
  Expected<std::size_t> read_at(std::uint64_t offset, char* out, std::size_t size) const override {
    if (offset >= expected_) return std::size_t{0};
    size = static_cast<std::size_t>(std::min<std::uint64_t>(size, expected_ - offset));
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = ::pread(fd_, out + done, size - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0)
        return Error{name_ + ": read failed at byte " + std::to_string(offset + done) + ": " + std::strerror(errno)};
      if (n == 0)
        return Error{name_ + ": the file shrank while it was read (it ends at byte " + std::to_string(offset + done) +
                     " of " + std::to_string(expected_) + "): was it still being written?"};
      done += static_cast<std::size_t>(n);
    }
    return done;
  }

  void seek(std::uint64_t offset) override { consumed_ = offset; }

  std::uint64_t size_bytes() const override { return expected_; }
  double progress() const override {
    return expected_ == 0 ? 0.0 : static_cast<double>(consumed_) / static_cast<double>(expected_);
  }

 private:
  int fd_;
  std::string name_;
  std::uint64_t expected_;
  std::uint64_t max_stream_;
  std::uint64_t consumed_ = 0;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  Expected<std::size_t> read(char* out, std::size_t size) override {
    const std::size_t n = std::min(size, bytes_.size() - pos_);
    std::memcpy(out, bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  std::uint64_t size_bytes() const override { return bytes_.size(); }
  double progress() const override {
    return bytes_.empty() ? 0.0 : static_cast<double>(pos_) / static_cast<double>(bytes_.size());
  }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

}  // namespace

Expected<std::size_t> ByteSource::read_at(std::uint64_t /*offset*/, char* /*out*/, std::size_t /*size*/) const {
  return Error{"internal: this input has no random access"};
}

std::unique_ptr<ByteSource> fd_source(int fd, std::string name, std::uint64_t expected_bytes,
                                      std::uint64_t max_stream_bytes) {
  return std::make_unique<FdSource>(fd, std::move(name), expected_bytes, max_stream_bytes);
}

std::unique_ptr<ByteSource> memory_source(std::string_view bytes) { return std::make_unique<MemorySource>(bytes); }

struct TextSource::Zlib {
  z_stream zs{};
  bool started = false;
  bool done = false;  // the last member ended with nothing after it
  ~Zlib() {
    if (started) inflateEnd(&zs);
  }
};

TextSource::TextSource(std::unique_ptr<ByteSource> raw, std::string name)
    : raw_(std::move(raw)), name_(std::move(name)), in_(std::make_unique_for_overwrite<char[]>(kRawBlockBytes)) {}

TextSource::~TextSource() = default;

void TextSource::seek(std::uint64_t offset) {
  in_pos_ = 0;
  in_size_ = 0;
  raw_consumed_ = offset;
  raw_->seek(offset);
}

double TextSource::progress() const {
  const std::uint64_t total = raw_->size_bytes();
  if (mode_ != Mode::Gzip || total == 0) return raw_->progress();
  return static_cast<double>(raw_consumed_ + in_pos_) / static_cast<double>(total);
}

// Moves the unread raw bytes to the front and reads more after them.
Status TextSource::refill() {
  if (raw_ended_) return ok_status();
  std::memmove(in_.get(), in_.get() + in_pos_, in_size_ - in_pos_);
  raw_consumed_ += in_pos_;
  in_size_ -= in_pos_;
  in_pos_ = 0;
  Expected<std::size_t> n = raw_->read(in_.get() + in_size_, kRawBlockBytes - in_size_);
  if (!n) return n.error();
  if (*n == 0) raw_ended_ = true;
  in_size_ += *n;
  return ok_status();
}

Expected<std::size_t> TextSource::read(char* out, std::size_t size) {
  if (mode_ == Mode::Unknown) {
    while (in_size_ < 2 && !raw_ended_)
      if (Status st = refill(); !st) return st.error();
    mode_ = is_gzip(std::string_view(in_.get(), in_size_)) ? Mode::Gzip : Mode::Plain;
  }
  if (mode_ == Mode::Gzip) return inflate_into(out, size);
  if (in_pos_ < in_size_) {
    const std::size_t n = std::min(size, in_size_ - in_pos_);
    std::memcpy(out, in_.get() + in_pos_, n);
    in_pos_ += n;
    return n;
  }
  return raw_->read(out, size);
}

Expected<std::size_t> TextSource::inflate_into(char* out, std::size_t size) {
  if (!z_) {
    z_ = std::make_unique<Zlib>();
    if (inflateInit2(&z_->zs, 15 + 32) != Z_OK) return Error{name_ + ": cannot start zlib"};
    z_->started = true;
  }
  z_stream& zs = z_->zs;
  while (!z_->done) {
    if (in_pos_ == in_size_ && !raw_ended_)
      if (Status st = refill(); !st) return st.error();
    const std::size_t in_before = in_size_ - in_pos_;
    zs.next_in = reinterpret_cast<Bytef*>(in_.get() + in_pos_);
    zs.avail_in = static_cast<uInt>(in_before);
    zs.next_out = reinterpret_cast<Bytef*>(out);
    zs.avail_out = static_cast<uInt>(std::min<std::size_t>(size, 1u << 30));
    const uInt out_before = zs.avail_out;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    in_pos_ += in_before - zs.avail_in;
    const std::size_t produced = out_before - zs.avail_out;
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members are one stream (gzip -c a b > c); anything else after the end is an error.
      while (in_size_ - in_pos_ < 2 && !raw_ended_)
        if (Status st = refill(); !st) return st.error();
      const std::string_view rest(in_.get() + in_pos_, in_size_ - in_pos_);
      if (rest.empty()) {
        z_->done = true;
      } else if (is_gzip(rest)) {
        inflateReset(&zs);
      } else {
        return Error{name_ + ": byte " + std::to_string(raw_consumed_ + in_pos_) +
                     ": data after the end of the gzip stream"};
      }
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      const std::string why = zs.msg != nullptr ? zs.msg : "error " + std::to_string(rc);
      return Error{name_ + ": corrupt gzip data near byte " + std::to_string(raw_consumed_ + in_pos_) + ": " + why};
    } else if (produced == 0 && in_pos_ == in_size_ && raw_ended_) {
      return Error{name_ + ": truncated gzip data (ends after " + std::to_string(raw_consumed_ + in_size_) + " bytes)"};
    }
    if (produced > 0) return produced;
  }
  return std::size_t{0};
}

}  // namespace gtv::io
