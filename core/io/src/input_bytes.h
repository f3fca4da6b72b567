#pragma once
// The bytes of a trace file: plain files are memory-mapped (pages already parsed can be dropped again, so a large
// file does not stay resident), gzip files (detected by the magic bytes 1f 8b) are inflated into memory with a
// bound on the inflated size.
#include <cstdint>
#include <string>
#include <string_view>

#include "gtv/base/expected.h"

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
  // Tells the kernel that bytes before offset will not be read again (mapped files only).
  void release_before(std::size_t offset);

  [[nodiscard]] static Expected<InputBytes> load(const std::string& path, std::uint64_t max_inflated_bytes);
  // Wraps bytes owned by the caller; inflates them when they are gzip.
  [[nodiscard]] static Expected<InputBytes> from_memory(std::string_view bytes, const std::string& name,
                                                        std::uint64_t max_inflated_bytes);

 private:
  void reset();
  std::string inflated_;
  void* map_ = nullptr;
  std::size_t map_size_ = 0;
  std::size_t released_ = 0;
  std::string_view view_;
  bool was_gzip_ = false;
};

[[nodiscard]] inline bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Inflates all gzip members of bytes. Errors name `name`; the output may not exceed max_bytes.
[[nodiscard]] Expected<std::string> inflate_gzip(std::string_view bytes, const std::string& name,
                                                 std::uint64_t max_bytes);

}  // namespace gtv::io
