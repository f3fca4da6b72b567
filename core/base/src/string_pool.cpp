#include "gtv/base/string_pool.h"

#include <cstdint>
#include <cstring>

namespace gtv {
namespace {

__extension__ typedef unsigned __int128 Uint128;  // __extension__: a GNU extension, fine under -Wpedantic

// The two halves of a 64 x 64 -> 128-bit product folded together (the mixing step of wyhash).
std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  const Uint128 product = static_cast<Uint128>(a) * b;
  return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
}

std::uint64_t load64(const char* p) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::uint64_t load_tail(const char* p, std::size_t n) {  // n < 8
  std::uint64_t v = 0;
  std::memcpy(&v, p, n);
  return v;
}

constexpr std::uint64_t kSeed0 = 0xa0761d6478bd642full;
constexpr std::uint64_t kSeed1 = 0xe7037ed1a0b428dbull;
constexpr std::uint64_t kSeed2 = 0x8ebc6af09c88c6e3ull;

}  // namespace

std::size_t StringPool::Hash::operator()(std::string_view s) const {
  const char* p = s.data();
  std::size_t n = s.size();
  std::uint64_t h = kSeed0 ^ mix(n ^ kSeed1, kSeed2);
  for (; n > 16; p += 16, n -= 16) h = mix(load64(p) ^ kSeed1, load64(p + 8) ^ h);
  std::uint64_t a = 0, b = 0;
  if (n >= 8) {  // the last 16 bytes, overlapping what the loop took (s had more than 16) or not
    a = load64(p);
    b = load64(p + n - 8);
  } else if (n > 0) {
    a = load_tail(p, n);
  }
  return static_cast<std::size_t>(mix(a ^ kSeed1, b ^ h ^ kSeed2));
}

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
