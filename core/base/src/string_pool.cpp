#include "gtv/base/string_pool.h"

namespace gtv {

StringPool::StringPool() { intern(""); }
StringPool::StringPool(StringPool&&) noexcept = default;
StringPool& StringPool::operator=(StringPool&&) noexcept = default;
StringPool::~StringPool() = default;

StringId StringPool::intern(std::string_view text) {
  if (auto it = ids_.find(text); it != ids_.end()) return it->second;
  const auto id = static_cast<StringId>(strings_.size());
  const std::string& stored = strings_.emplace_back(text);
  ids_.emplace(std::string_view(stored), id);
  return id;
}

StringId StringPool::find(std::string_view text) const {
  auto it = ids_.find(text);
  return it == ids_.end() ? kEmptyString : it->second;
}

std::size_t StringPool::bytes_used() const {
  std::size_t bytes = 0;
  for (const auto& s : strings_) bytes += s.capacity() + sizeof(std::string) + 32;  // 32: map node estimate
  return bytes;
}

}  // namespace gtv
