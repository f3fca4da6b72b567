#pragma once
// Interned strings: each distinct name is stored once and referred to by a 32-bit id, so events stay small
// and comparing names is comparing integers. Id 0 is always the empty string.
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gtv {

using StringId = std::uint32_t;
inline constexpr StringId kEmptyString = 0;

class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) noexcept;
  StringPool& operator=(StringPool&&) noexcept;
  ~StringPool();

  StringId intern(std::string_view text);
  // The id of text if it was interned, else kEmptyString.
  [[nodiscard]] StringId find(std::string_view text) const;
  [[nodiscard]] std::string_view view(StringId id) const { return strings_[id]; }
  [[nodiscard]] std::size_t size() const { return strings_.size(); }
  [[nodiscard]] std::size_t bytes_used() const;

 private:
  // Interning hashes every name of a trace (kernel names of several hundred characters): a hash that takes 16
  // bytes per step is several times faster than std::hash here.
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const;
  };
  std::deque<std::string> strings_;  // deque: views into it stay valid as it grows
  std::unordered_map<std::string_view, StringId, Hash, std::equal_to<>> ids_;
};

}  // namespace gtv
