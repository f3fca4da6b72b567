#pragma once
// A small streaming JSON writer: keys in the order written (so output is deterministic), commas managed here.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gtv::analysis::detail {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);
  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(std::int64_t number);
  JsonWriter& value(std::uint64_t number);
  JsonWriter& value(int number) { return value(static_cast<std::int64_t>(number)); }
  JsonWriter& value(bool flag);
  // Fixed decimals so the same input always prints the same text.
  JsonWriter& value(double number, int decimals = 4);
  JsonWriter& null();

  template <typename T>
  JsonWriter& field(std::string_view name, T v) {
    key(name);
    return value(v);
  }
  JsonWriter& field(std::string_view name, double v, int decimals) {
    key(name);
    return value(v, decimals);
  }

  [[nodiscard]] std::string take();

 private:
  void before_value();
  JsonWriter& close(char bracket);
  void newline();
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written yet
  bool after_key_ = false;
};

[[nodiscard]] std::string json_escape(std::string_view text);

}  // namespace gtv::analysis::detail
