#pragma once
// The JSON text of a trace, read as a stream into a sliding window: plain files with read(), gzip files (detected
// by the magic bytes 1f 8b) inflated block by block, pipes and devices the same way. Only the part of the text the
// reader still needs is in memory, so memory follows the largest piece parsed at once (a chunk of events, one
// event, one top-level value), never the size of the file or of its blanks; and since the file is never mapped,
// a file that shrinks while it is read gives an error instead of SIGBUS.
//
// Positions are offsets in the whole text. Errors of the input (I/O, gzip, a shrinking file, a stream over its
// limit) end the text where they happen and are kept in error(); the reader reports them before any JSON error.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "gtv/base/expected.h"
#include "gtv/io/trace_file.h"

namespace gtv::io {

class ByteSource;

class InputBytes {
 public:
  InputBytes();
  InputBytes(InputBytes&& other) noexcept;
  InputBytes& operator=(InputBytes&& other) noexcept;
  InputBytes(const InputBytes&) = delete;
  InputBytes& operator=(const InputBytes&) = delete;
  ~InputBytes();

  // Opens path; reads nothing yet. Errors: cannot open, a directory, an empty regular file.
  [[nodiscard]] static Expected<InputBytes> open(const std::string& path, const ReadOptions& options);
  // Bytes owned by the caller: used in place when plain, inflated block by block when gzip.
  [[nodiscard]] static InputBytes from_memory(std::string_view bytes, const std::string& name,
                                              const ReadOptions& options);

  [[nodiscard]] std::size_t begin() const { return begin_; }
  [[nodiscard]] std::size_t end() const { return begin_ + size_; }
  [[nodiscard]] bool at_eof() const { return eof_; }  // end() is the end of the text (or of what could be read)
  [[nodiscard]] std::string_view view() const { return {data_, size_}; }  // the text [begin(), end())
  // view() as writable bytes (our own buffer), or nullptr for caller-owned memory.
  [[nodiscard]] char* writable() const { return owned_ ? data_ : nullptr; }
  // Bytes after end() that may be read and written (zeroed padding of our buffer).
  [[nodiscard]] std::size_t readable_after_end() const { return owned_ ? kPaddingBytes : 0; }
  [[nodiscard]] bool was_gzip() const { return gzip_; }
  [[nodiscard]] const std::optional<Error>& error() const { return error_; }
  // The size of the whole text when known before reading it (plain files and memory), else 0. Reads the first bytes.
  [[nodiscard]] std::size_t size_hint();
  [[nodiscard]] std::size_t peak_buffered_bytes() const { return peak_bytes_; }
  // Fraction of the file consumed (0 when its size is not known); safe to call from any thread.
  [[nodiscard]] double progress() const { return progress_.load(std::memory_order_relaxed); }

  // Plain regular files (known after the first fill_to): read_at() reads [pos, pos + size) straight from the file,
  // from any thread (the prefetcher's workers; the bytes may run past the end of the text: the count says), and
  // seek() restarts the window at pos.
  [[nodiscard]] bool random_access() const;
  [[nodiscard]] Expected<std::size_t> read_at(std::size_t pos, char* out, std::size_t size) const;
  void seek(std::size_t pos);
  // Reads until end() >= pos or the text ended (or failed: see error()).
  void fill_to(std::size_t pos);
  // The text before pos is not needed any more (one byte before pos is kept for in-place parsing).
  void drop_before(std::size_t pos);

  static constexpr std::size_t kPaddingBytes = 128;

 private:
  void reserve(std::size_t bytes);
  void fail(Error error);
  std::unique_ptr<ByteSource> source_;
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_ = 0;  // of buffer_, padding excluded
  char* data_ = nullptr;      // the text at begin_
  std::size_t begin_ = 0;
  std::size_t size_ = 0;
  std::size_t peak_bytes_ = 0;
  std::size_t file_bytes_ = 0;  // a regular file's size
  std::size_t first_window_bytes_ = 0;
  bool owned_ = false;
  bool eof_ = false;
  bool gzip_ = false;
  std::optional<Error> error_;
  std::atomic<double> progress_{0.0};
};

[[nodiscard]] inline bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

}  // namespace gtv::io
