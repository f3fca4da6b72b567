#pragma once
// An enumeration's one table: each value beside its stable key (JSON, command line) and its words (reports,
// legends), in the enumeration's order. The code, the JSON writers and the window's legends all read the table,
// and the count that sizes other tables (colours) is the table's size.
#include <array>
#include <cstddef>
#include <string_view>

namespace gtv {

template <class Enum>
struct EnumEntry {
  Enum value;
  std::string_view key;    // stable, snake_case: "host_blocked"
  std::string_view words;  // for people: "host blocked"
};

// True when entry i holds value i for every i: the table follows the enumeration's order without gaps, so a value
// indexes its entry.
template <class Enum, std::size_t N>
constexpr bool in_enum_order(const std::array<EnumEntry<Enum>, N>& table) {
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(table[i].value) != i) return false;
  return true;
}

template <class Enum, std::size_t N>
constexpr const EnumEntry<Enum>& entry_of(const std::array<EnumEntry<Enum>, N>& table, Enum value) {
  return table[static_cast<std::size_t>(value)];
}

}  // namespace gtv
