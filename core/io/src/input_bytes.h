#pragma once
// The bytes of a trace file: plain files are memory-mapped (pages already parsed can be dropped again, so a large
// file does not stay resident), gzip files (detected by the magic bytes 1f 8b) are inflated into memory with a
// bound on the inflated size.
#include <cstdint>
#include <string>
#include <string_view>

#include "gtv/base/expected.h"
#include "gtv/io/trace_file.h"

namespace gtv::io {

class InputBytes {
 public:
  InputBytes() = default;
  InputBytes(InputBytes&& other) noexcept;
  InputBytes& operator=(InputBytes&& other) noexcept;
  InputBytes(const InputBytes&) = delete;
  InputBytes& operator=(const InputBytes&) = delete;
  ~InputBytes();

  [[nodiscard]] std::string_view view() const { return view_; }
  [[nodiscard]] bool was_gzip() const { return was_gzip_; }
  // Writable bytes of view() (a private mapping or our own inflated copy), or nullptr for caller-owned memory.
  [[nodiscard]] char* writable() const { return writable_; }
  // Bytes that may be read (not written) after the end of view().
  [[nodiscard]] std::size_t readable_after_end() const { return readable_after_; }
  // Tells the kernel that bytes before offset will not be read again (mapped files only).
  void release_before(std::size_t offset);
  // Copies view()[offset, offset + size) to out. From a mapped file this reads the file (pread) instead of the
  // mapping: cheaper than faulting the pages in and dropping them again, and safe from any thread. False when the
  // file could not be read (the caller then reads through view(), which reports what happened).
  [[nodiscard]] bool copy_out(std::size_t offset, std::size_t size, char* out) const;

  // options: max_inflated_bytes bounds gzip output and unmappable input; progress covers inflating (0..0.5).
  [[nodiscard]] static Expected<InputBytes> load(const std::string& path, const ReadOptions& options);
  // Wraps bytes owned by the caller; inflates them when they are gzip.
  [[nodiscard]] static Expected<InputBytes> from_memory(std::string_view bytes, const std::string& name,
                                                        const ReadOptions& options);

 private:
  void reset();
  void set_owned(std::string bytes, bool gzip);  // bytes end with padding that is not part of view()
  [[nodiscard]] static Expected<InputBytes> read_stream(int fd, const std::string& path, const ReadOptions& options);
  std::string inflated_;
  int fd_ = -1;  // the mapped file, kept open for copy_out
  void* map_ = nullptr;
  std::size_t map_size_ = 0;
  std::size_t released_ = 0;
  std::string_view view_;
  char* writable_ = nullptr;
  std::size_t readable_after_ = 0;
  bool was_gzip_ = false;
};

[[nodiscard]] inline bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Inflates all gzip members of bytes. Errors name `name`; the output may not exceed options.max_inflated_bytes. The result ends
// with a few padding bytes that are not part of the data (InputBytes keeps them out of view()).
[[nodiscard]] Expected<std::string> inflate_gzip(std::string_view bytes, const std::string& name,
                                                 const ReadOptions& options);

}  // namespace gtv::io
