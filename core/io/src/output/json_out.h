#pragma once
// Streaming JSON output: text is appended to a buffer that is handed to a sink every ~1 MiB, so writing a large
// trace never holds the whole document. Sinks: a string here, a file in file_sink.h.
#include <cstdint>
#include <string>
#include <string_view>

#include "gtv/base/expected.h"

namespace gtv::io {

class Sink {
 public:
  virtual ~Sink() = default;
  [[nodiscard]] virtual bool write(std::string_view bytes) = 0;
};

class JsonOut {
 public:
  explicit JsonOut(Sink& sink) : sink_(sink) { buffer_.reserve(kFlushBytes + 4096); }
  JsonOut& raw(std::string_view text) {
    buffer_.append(text);
    return *this;
  }
  JsonOut& str(std::string_view text);  // quoted and escaped
  JsonOut& num(std::int64_t value);
  JsonOut& real(double value);   // shortest text that reads back to the same double
  JsonOut& us(std::int64_t ns);  // nanoseconds as microseconds with three decimals
  JsonOut& scaled(std::int64_t value, int decimals);
  // "name": with a comma before it when a member precedes it.
  JsonOut& key(std::string_view name) {
    comma();
    str(name).raw(":");
    need_comma_ = true;  // for the member after this one's value
    after_key_ = true;
    return *this;
  }
  // Objects and arrays; a comma goes before them unless they are a member's value.
  JsonOut& open(char bracket) {
    if (!after_key_) comma();
    after_key_ = false;
    buffer_.push_back(bracket);
    need_comma_ = false;
    return *this;
  }
  JsonOut& close(char bracket) {
    buffer_.push_back(bracket);
    need_comma_ = true;
    after_key_ = false;
    return *this;
  }
  // Before an array element.
  void comma() {
    if (need_comma_) buffer_.push_back(',');
    need_comma_ = false;
    after_key_ = false;
  }
  // After a scalar array element.
  void value_done() { need_comma_ = true; }
  // Hands full buffers to the sink; false once the sink failed.
  [[nodiscard]] bool flush_if_full() { return buffer_.size() < kFlushBytes || flush(); }
  [[nodiscard]] bool flush();

 private:
  static constexpr std::size_t kFlushBytes = std::size_t{1} << 20;
  Sink& sink_;
  std::string buffer_;
  bool need_comma_ = false;
  bool after_key_ = false;
};

class StringSink : public Sink {
 public:
  explicit StringSink(std::string& out) : out_(out) {}
  bool write(std::string_view bytes) override {
    out_.append(bytes);
    return true;
  }

 private:
  std::string& out_;
};

}  // namespace gtv::io
