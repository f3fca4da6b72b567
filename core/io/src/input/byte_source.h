#pragma once
// Where the text of a trace comes from, read front to back in blocks: a file descriptor (regular file, pipe,
// device), caller-owned memory, and on top of either an inflating gzip stream. Nothing here holds more than one
// block of compressed input, so inflating costs the same memory whatever the inflated size.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "gtv/base/expected.h"

namespace gtv::io {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to size (> 0) bytes into out: the count, 0 at the end of the data, or an error that names the file.
  [[nodiscard]] virtual Expected<std::size_t> read(char* out, std::size_t size) = 0;
  // Fraction of the underlying file consumed, or 0 when its size is not known.
  [[nodiscard]] virtual double progress() const { return 0.0; }
  // The size of the underlying file or memory, or 0 when it is not known.
  [[nodiscard]] virtual std::uint64_t size_bytes() const { return 0; }
  // Regular files only (random_access()): reads [offset, offset + size) or up to the end of the file, from any
  // thread; seek() makes read() go on at offset.
  [[nodiscard]] virtual bool random_access() const { return false; }
  [[nodiscard]] virtual Expected<std::size_t> read_at(std::uint64_t offset, char* out, std::size_t size) const;
  virtual void seek(std::uint64_t /*offset*/) {}
};

// Reads fd (and closes it). expected_bytes: the size of a regular file when opened (reading ends there; a file that
// ends earlier shrank and gives an error), or 0 for a stream, which may give at most max_stream_bytes.
[[nodiscard]] std::unique_ptr<ByteSource> fd_source(int fd, std::string name, std::uint64_t expected_bytes,
                                                    std::uint64_t max_stream_bytes);
[[nodiscard]] std::unique_ptr<ByteSource> memory_source(std::string_view bytes);
// The bytes of raw, inflated when they start with the gzip magic (all members of a multi-member file), else as
// they are. gzip() tells which, once the first read returned.
class TextSource final : public ByteSource {
 public:
  TextSource(std::unique_ptr<ByteSource> raw, std::string name);
  ~TextSource() override;
  [[nodiscard]] Expected<std::size_t> read(char* out, std::size_t size) override;
  // Of gzip data, the share inflated so far (the raw source reads a block ahead).
  [[nodiscard]] double progress() const override;
  [[nodiscard]] bool gzip() const { return mode_ == Mode::Gzip; }
  // Plain text of a regular file (known once the first read returned).
  [[nodiscard]] bool random_access() const override { return mode_ == Mode::Plain && raw_->random_access(); }
  [[nodiscard]] Expected<std::size_t> read_at(std::uint64_t offset, char* out, std::size_t size) const override {
    return raw_->read_at(offset, out, size);
  }
  void seek(std::uint64_t offset) override;

 private:
  enum class Mode : unsigned char { Unknown, Plain, Gzip };
  [[nodiscard]] Status refill();
  [[nodiscard]] Expected<std::size_t> inflate_into(char* out, std::size_t size);
  std::unique_ptr<ByteSource> raw_;
  std::string name_;
  Mode mode_ = Mode::Unknown;
  std::unique_ptr<char[]> in_;  // a block of raw bytes
  std::size_t in_pos_ = 0;      // next unread byte of in_
  std::size_t in_size_ = 0;
  std::uint64_t raw_consumed_ = 0;  // raw bytes before in_[in_pos_], for error messages
  bool raw_ended_ = false;
  struct Zlib;
  std::unique_ptr<Zlib> z_;
};

}  // namespace gtv::io
